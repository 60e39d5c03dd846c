/**
 * init's closing line names the next commands in the form the user started bestof with: a user
 * who followed the README without installing bestof (`npx --prefix /path/to/bestof bestof init`)
 * is not told to type `bestof validate`, which their shell does not have. Through the real npx.
 */
import { spawnSync } from 'node:child_process';
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

  it('through `npx --prefix <bestof> bestof init`: the same form back', () => {
    const r = repo({ 'README.md': '# x\n' });
    const npx = spawnSync('npx', ['--prefix', PROJECT_ROOT, 'bestof', 'init'], {
      cwd: r.dir,
      encoding: 'utf8',
      // As from a user's shell: none of the npm_* variables of the npm that started the tests.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_'))), npm_config_offline: 'true' },
    });
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout).toContain(
      `then: npx --prefix ${PROJECT_ROOT.replace(/\/$/, '')} bestof validate && npx --prefix ${PROJECT_ROOT.replace(/\/$/, '')} bestof run\n`,
    );
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
