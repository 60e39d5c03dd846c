/**
 * `[select.distinguish]` as the plan reads it (src/engine/plan/distinguish-plan.ts): the command
 * that runs one test file, given or derived from the report check's runner; a spec that can
 * derive none is refused with the key and the fix; a command without `{file}` is a spec error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planDistinguish } from '../../src/engine/plan/distinguish-plan.js';
import { loadSpec } from '../../src/spec/load.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo } = tempRepos();

const TESTER = '[select.distinguish]\nprovider = { kind = "command", command = "true" }\n';

async function load(toml: string) {
  const r = repo({ 'README.md': 'x\n' });
  const specPath = join(r.dir, 'bestof.toml');
  writeFileSync(specPath, `[prompt]\ntext = "x"\n${toml}`);
  return { loaded: await loadSpec(specPath), dir: r.dir };
}

async function plan(toml: string) {
  const { loaded, dir } = await load(toml);
  if (!loaded.ok) throw new Error(loaded.error.map((p) => p.message).join('\n'));
  const problems: string[] = [];
  const planned = await planDistinguish(loaded.value.spec, { specDir: dir, scripts: new Map(), sandboxed: false, problems });
  return { planned, problems };
}

const check = (command: string, report = 'junit') => `[[checks.items]]\nname = "tests"\ncommand = '${command}'\nreport = "${report}"\n`;

describe('the plan of [select.distinguish]', () => {
  it.each([
    ['python3 -m pytest -q --junitxml="$BESTOF_REPORT_DIR/pytest.xml"', 'python3 -m pytest -q {file}'],
    ['npm test -- --reporter=junit --outputFile.junit="$BESTOF_REPORT_DIR/vitest.xml" # vitest', 'npx vitest run {file}'],
    ['NODE_OPTIONS="--test-reporter=junit --test-reporter-destination=$BESTOF_REPORT_DIR/n.xml" npm test', 'node --test {file}'],
  ])('derives the command from the report check %s', async (command, expected) => {
    const { planned, problems } = await plan(`${check(command)}${TESTER}`);
    expect(problems).toEqual([]);
    expect(planned?.command).toBe(expected);
  });

  it('keeps the command the spec gives', async () => {
    const { planned } = await plan(`${check('go test -json ./...', 'go-json')}${TESTER}command = "sh {file}"\n`);
    expect(planned?.command).toBe('sh {file}');
  });

  it('refuses a spec whose checks name no runner it can derive a command from, with the key and the fix', async () => {
    const { planned, problems } = await plan(`${check('go test -json ./...', 'go-json')}${TESTER}`);
    expect(planned).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^select\.distinguish\.command: no command runs one generated test file.*set command = "<runner> \{file\}"/);
  });

  it('a command without {file} is a spec error at its key', async () => {
    const { loaded } = await load(`${TESTER}command = "node --test"\n`);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.error.map((p) => `${p.key ?? ''}: ${p.message}`).join('\n')).toMatch(/select\.distinguish\.command.*\{file\}/);
  });

  it('is absent without the table', async () => {
    const { planned, problems } = await plan(check('pytest'));
    expect(planned).toBeUndefined();
    expect(problems).toEqual([]);
  });
});
