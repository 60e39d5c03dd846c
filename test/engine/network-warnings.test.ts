/**
 * `validate` and `run` warn about a check that needs more than the network of its own it gets
 * (`[sandbox] check_network = "own"`): a download, or a server of the machine on a fixed port
 * (src/engine/sandbox/agent-sandbox.ts networkWarnings).
 */
import { describe, expect, it } from 'vitest';
import { networkWarnings } from '../../src/engine/sandbox/agent-sandbox.js';

const spec = (checks: string[]) => ({ checks: { items: checks.map((command) => ({ command })) } });
const OWN = 'each check runs with a network of its own ([sandbox] check_network = "own")';

describe('networkWarnings', () => {
  it('names a check that downloads or reaches another host, and says to install in [setup] or share the network', () => {
    expect(
      networkWarnings(
        spec([
          'npm test',
          'npm ci && npm test',
          'pip install -e . && python3 -m pytest',
          'curl -fsS https://example.com/data.json -o data.json && make test',
          'git fetch origin && go mod download',
        ]),
      ),
    ).toEqual([
      `checks.items[1].command runs \`npm ci\`, which needs the network: ${OWN}, with no route out; run installs in [setup] commands (they keep your machine's network), or set [sandbox] check_network = "shared"`,
      `checks.items[2].command runs \`pip install\`, which needs the network: ${OWN}, with no route out; run installs in [setup] commands (they keep your machine's network), or set [sandbox] check_network = "shared"`,
      `checks.items[3].command reaches example.com, which needs the network: ${OWN}, with no route out; run installs in [setup] commands (they keep your machine's network), or set [sandbox] check_network = "shared"`,
      `checks.items[4].command runs \`git fetch\` and runs \`go mod download\`, which needs the network: ${OWN}, with no route out; run installs in [setup] commands (they keep your machine's network), or set [sandbox] check_network = "shared"`,
    ]);
  });

  it('names a check that talks to a fixed port of the machine', () => {
    expect(networkWarnings(spec(['DATABASE_URL=postgres://app@localhost:5432/test npm test', 'redis-cli -u redis://127.0.0.1:6379 ping']))).toEqual([
      `checks.items[0].command talks to localhost:5432: ${OWN}, whose loopback holds only what the check itself starts; if that is a server of your machine (a database), set [sandbox] check_network = "shared"`,
      `checks.items[1].command talks to 127.0.0.1:6379: ${OWN}, whose loopback holds only what the check itself starts; if that is a server of your machine (a database), set [sandbox] check_network = "shared"`,
    ]);
  });

  it("leaves alone what works on a loopback of its own: the candidate's $PORT, a local URL, tests, builds, and look-alike words", () => {
    expect(
      networkWarnings(
        spec([
          'npm start & sleep 1; curl -fsS http://localhost:$PORT/health',
          'npm test',
          'npm run install-check',
          'cargo test',
          'go test ./...',
          'make install-deps-offline',
          'my-npm ci',
          'echo "pip installs nothing here"',
        ]),
      ),
    ).toEqual([]);
  });
});
