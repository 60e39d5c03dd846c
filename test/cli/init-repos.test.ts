/**
 * `bestof init` on real repos of each kind, run as a user runs it: it writes the checks it found
 * at the repo root (also from a subfolder, and says so), the spec loads, and every check it
 * wrote passes on the repo as it is: init presents nothing that does not work.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load.js';
import { runCli } from '../helpers/cli.js';
import { globsMatching } from '../../src/checks/frozen.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { REPO_FIXTURES, type FixtureKind } from '../spec/repo-fixtures.js';

const { repo, tempDir } = tempRepos();

describe('bestof init on a real repo', () => {
  it.each<FixtureKind>(['node', 'python', 'rust', 'go', 'make'])('a %s repo: the spec loads as written, and every check it wrote passes on the repo as it is', async (kind) => {
    const r = repo(REPO_FIXTURES[kind]);
    const home = tempDir();
    // Go and cargo caches in a temp folder, never the user's.
    const env = { GOCACHE: join(home, 'go-cache'), GOPATH: join(home, 'go'), GOFLAGS: '-mod=mod', CARGO_TARGET_DIR: join(home, 'target') };
    const init = await runCli(['init'], { cwd: r.dir, env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`wrote ${join(r.dir, 'bestof.toml')}\nfound ${kind}:`);
    expect(init.stdout).toMatch(/; protected: \d+ names of the test runner's own files \(\*\*\/[^,]+, \*\*\/[^,)]+(, \.\.\.)?\)/);
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    // Every frozen pattern is one the plan accepts: it matches a file of HEAD (src/engine/plan.ts);
    // the names to keep out are under protected.
    const frozen = loaded.value.spec.checks.frozen;
    const matching = await globsMatching(r.dir, 'HEAD', frozen);
    expect(frozen.filter((glob) => !matching.has(glob))).toEqual([]);
    expect(loaded.value.spec.checks.protected.length).toBeGreaterThan(0);
    // And editable, where it found the code's folder: each pattern matches too, or the plan would refuse it.
    const editable = loaded.value.spec.checks.editable;
    expect(editable.length > 0, JSON.stringify(editable)).toBe(kind === 'node' || kind === 'python' || kind === 'rust');
    const editableMatching = await globsMatching(r.dir, 'HEAD', editable);
    expect(editable.filter((glob) => !editableMatching.has(glob))).toEqual([]);
    for (const check of loaded.value.spec.checks.items) {
      const ran = spawnSync('sh', ['-c', check.command], { cwd: r.dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });
      expect(ran.status, `${check.command}: ${ran.stdout}${ran.stderr}`).toBe(0);
    }
  }, 600_000);

  it('run from a subfolder, writes at the repo root and says so', async () => {
    const r = repo(REPO_FIXTURES.node);
    mkdirSync(join(r.dir, 'src', 'deep'), { recursive: true });
    const init = await runCli(['init'], { cwd: join(r.dir, 'src', 'deep') });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`wrote ${join(r.dir, 'bestof.toml')} (at the root of the repo, not in src/deep/`);
    expect(readFileSync(join(r.dir, 'bestof.toml'), 'utf8')).toContain('command = "npm test"');
  });

  it('a Node repo with its dependencies installed gets them linked, as the setup benchmark found fastest', async () => {
    const r = repo(REPO_FIXTURES.node);
    execFileSync('mkdir', ['-p', join(r.dir, 'node_modules', 'dep')]);
    const init = await runCli(['init'], { cwd: r.dir });
    expect(init.stdout).toContain('setup.link: node_modules');
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    expect(loaded.ok && loaded.value.spec.setup.link).toEqual(['node_modules']);
  });
});
