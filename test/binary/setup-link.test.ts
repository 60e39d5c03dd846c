/**
 * `[setup] link` through the real binary: the run wires the link into setup, says what setup is
 * doing, the check resolves a dependency through the link, and in the sandbox an agent cannot
 * write through it into the user's own node_modules (the unit tests of src/engine/workspace/setup-link.ts
 * cover the rules; this shows the run uses them).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/process/sandbox.js';
import { runCli } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/**
 * The agent: fixes the bug only if it can load the dependency through the link (in the sandbox the
 * repo, under the hidden /tmp, is visible only through the read-only bind of the link's target),
 * then tries to plant a file in the linked node_modules.
 */
const AGENT_SCRIPT =
  'node -e "require(process.cwd() + \'/node_modules/left-pad\')" && sed -i s/a-b/a+b/ src/add.js; echo planted > node_modules/left-pad/planted.js 2>/dev/null; true';

function project(sandbox: 'off' | 'required'): { dir: string; spec: string } {
  const r = repo({
    'src/add.js': 'module.exports = (a, b) => a-b;\n',
    'test/add.test.js': "const pad = require('left-pad');\nconst add = require('../src/add.js');\nif (pad(String(add(2, 5)), 3) !== '007') process.exit(1);\n",
    '.gitignore': 'node_modules\n',
  });
  r.write('node_modules/left-pad/package.json', JSON.stringify({ name: 'left-pad', main: 'index.js' }));
  r.write('node_modules/left-pad/index.js', "module.exports = (s, n) => s.padStart(n, '0');\n");
  const spec = join(tempDir(), 'spec.toml');
  const toml = `name = "link"
repo = ${JSON.stringify(r.dir)}

[prompt]
text = "fix add"

[provider]
kind = "command"
command = "sh"
args = ["-c", ${JSON.stringify(AGENT_SCRIPT)}]

[sandbox]
mode = "${sandbox}"

[setup]
link = ["node_modules"]

[checks]
frozen = ["test/**"]

[[checks.items]]
name = "test"
command = "node test/add.test.js"
score = 100

[select]
merge = "branch"
`;
  writeFileSync(spec, toml);
  return { dir: r.dir, spec };
}

describe('[setup] link in a run', () => {
  it('links node_modules into the worktree, says so while setting up, and the check resolves through it', async () => {
    const p = project('off');
    const result = await runCli(['run', p.spec, '--no-tui'], { cwd: p.dir, worktreesDir: tempDir() });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('c1 setup: linking node_modules');
    expect(result.stdout).toMatch(/c1 score 100\/100/);
    // Without the sandbox nothing stops the write: the run said so.
    expect(result.stdout + result.stderr).toContain('setup.link: agents run without the sandbox');
  });

  it.skipIf(process.platform !== 'linux')(
    "in the sandbox an agent loads what the link points at and cannot write through it into the repo's node_modules",
    async () => {
      const probe = await probeSandbox();
      expect(probe.ok, 'bubblewrap is required by the default tier (docs/development.md)').toBe(true);
      const p = project('required');
      const result = await runCli(['run', p.spec, '--no-tui'], { cwd: p.dir, worktreesDir: tempDir() });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/c1 score 100\/100/);
      expect(existsSync(join(p.dir, 'node_modules/left-pad/planted.js'))).toBe(false);
      expect(readFileSync(join(p.dir, 'node_modules/left-pad/index.js'), 'utf8')).toContain('padStart');
    },
  );
});
