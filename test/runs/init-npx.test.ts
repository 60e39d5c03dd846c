/**
 * `npx --prefix /path/to/bestof bestof init`, as the README has a user run it without installing
 * bestof, through the real npx: init's closing line gives the next commands in that same form.
 * In this tier because npm's own start can be slow on a loaded or offline machine.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo } = tempRepos();

describe('init through the real npx', () => {
  it('npx --prefix <bestof> bestof init: the closing line says npx --prefix <bestof> bestof validate && ... run', () => {
    const r = repo({ 'README.md': '# x\n' });
    const root = PROJECT_ROOT.replace(/\/$/, '');
    const npx = spawnSync('npx', ['--prefix', root, 'bestof', 'init'], {
      cwd: r.dir,
      encoding: 'utf8',
      // As from a user's shell: none of the npm_* variables of the npm that started the tests; and
      // npm asks no registry (the bin is this package's own).
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_'))),
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
    });
    expect(npx.status, npx.stderr).toBe(0);
    expect(npx.stdout).toContain(`then: npx --prefix ${root} bestof validate && npx --prefix ${root} bestof run\n`);
  });
});
