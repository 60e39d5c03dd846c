/**
 * init's closing line names the next commands in the form the user started bestof with: a user
 * who followed the README without installing bestof (`npx --prefix /path/to/bestof bestof init`)
 * is not told to type `bestof validate`, which their shell does not have. With the variables npx
 * sets; through the real npx in test/runs/init-npx.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { bestofInvocation } from '../../src/cli/invocation.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe("init's closing line", () => {
  it('with bestof started directly (on PATH): bestof validate && bestof run', async () => {
    const r = repo({ 'README.md': '# x\n' });
    const init = await runCli(['init'], { cwd: r.dir, env: { npm_command: undefined, npm_config_prefix: undefined } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('edit the task and the checks, then: bestof validate && bestof run\n');
  });

  it('started by npx --prefix (the variables npx sets): the same form back', async () => {
    // What `npx --prefix <bestof> bestof init` gives the program it starts (the real npx: test/runs/init-npx.test.ts).
    const r = repo({ 'README.md': '# x\n' });
    const init = await runCli(['init'], { cwd: r.dir, env: { npm_command: 'exec', npm_config_prefix: PROJECT_ROOT } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`then: npx --prefix ${PROJECT_ROOT} bestof validate && npx --prefix ${PROJECT_ROOT} bestof run\n`);
  });

  it("reads npm's words for npx: the prefix only when it is this bestof, else `npx bestof`", () => {
    expect(bestofInvocation({}, PROJECT_ROOT)).toBe('bestof');
    expect(bestofInvocation({ npm_command: 'run-script' }, PROJECT_ROOT)).toBe('bestof');
    expect(bestofInvocation({ npm_command: 'exec', npm_config_prefix: '/usr' }, PROJECT_ROOT)).toBe('npx bestof');
    expect(bestofInvocation({ npm_command: 'exec', npm_config_prefix: PROJECT_ROOT }, PROJECT_ROOT)).toBe(`npx --prefix ${PROJECT_ROOT} bestof`);
    const other = tempDir();
    expect(bestofInvocation({ npm_command: 'exec', npm_config_prefix: other }, other)).toBe(`npx --prefix ${other} bestof`);
  });
});
