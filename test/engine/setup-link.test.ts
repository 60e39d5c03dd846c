/**
 * `[setup] link`: each worktree gets a symbolic link to the repo's own untracked folder
 * (node_modules) instead of a copy. Real repos, real worktrees, real checks resolving through
 * the link, real commits, and the real sandbox (bubblewrap) for the read-only share.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkedTargets } from '../../src/engine/workspace/setup-link.js';
import { prepareWorkspace, redoSetup, type WorkspaceOptions } from '../../src/engine/workspace/workspace.js';
import { commitAll } from '../../src/git/history/commit.js';
import { runShell } from '../../src/process/run-process.js';
import { probeSandbox, runAgentProcess, type SandboxLayout } from '../../src/process/sandbox.js';
import { loadSpec } from '../../src/spec/load.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';
import { workspaceFixture } from '../helpers/workspace-options.js';

const { repo, tempDir } = tempRepos();

interface Project {
  readonly r: TempRepo;
  readonly worktree: string;
  options(overrides?: Partial<WorkspaceOptions>): WorkspaceOptions;
}

/** A Node repo whose test imports a dependency from an untracked, ignored node_modules. */
function nodeProject(gitignore = 'node_modules\n'): Project {
  const r = repo({
    'package.json': JSON.stringify({ name: 'app', scripts: { test: 'node test/app.test.js' } }),
    'test/app.test.js': "const pad = require('left-pad');\nif (pad('7', 3) !== '007') process.exit(1);\nconsole.log('ok');\n",
    '.gitignore': gitignore,
  });
  r.write('node_modules/left-pad/package.json', JSON.stringify({ name: 'left-pad', main: 'index.js' }));
  r.write('node_modules/left-pad/index.js', "module.exports = (s, n) => s.padStart(n, '0');\n");
  r.write('node_modules/.bin/hello', '#!/bin/sh\necho hello from bin\n');
  const fixture = workspaceFixture(r.dir, r.git('rev-parse', 'HEAD'), tempDir());
  const options = (overrides: Partial<WorkspaceOptions> = {}): WorkspaceOptions => fixture.options({ link: ['node_modules'], ...overrides });
  const { worktree } = fixture;
  return { r, worktree, options };
}

describe('setup.link', () => {
  it.each([['node_modules\n'], ['node_modules/\n']])(
    'links node_modules (.gitignore %j): the checks resolve through it, and it is a setup path never committed',
    async (gitignore) => {
      const p = nodeProject(gitignore);
      const made = await prepareWorkspace(p.options());
      expect(made.ok && made.value.warnings).toEqual([]);
      expect(lstatSync(join(p.worktree, 'node_modules')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(p.worktree, 'node_modules'))).toBe(join(p.r.dir, 'node_modules'));
      expect(made.ok && made.value.setupPaths).toEqual(['node_modules']);
      // The checks run in the worktree: `npm test` and a node_modules/.bin tool resolve through the link.
      const test = await runShell('npm test --silent && sh node_modules/.bin/hello', { cwd: p.worktree, env: process.env, timeoutMs: 60_000 });
      expect(test.ok, test.stderr).toBe(true);
      expect(test.stdout).toContain('ok\nhello from bin');
      // An agent's change is committed; the link never is.
      writeFileSync(join(p.worktree, 'index.js'), 'module.exports = 1;\n');
      const committed = await commitAll(p.worktree, { message: 'iteration 1', excludePaths: made.ok ? [...made.value.setupPaths] : [] });
      expect(committed.commit).toBeDefined();
      expect(p.r.git('-C', p.worktree, 'show', '--name-only', '--format=', 'HEAD')).toBe('index.js');
      expect(p.r.git('-C', p.worktree, 'ls-tree', '-r', '--name-only', 'HEAD')).not.toContain('node_modules');
    },
  );

  it('refuses entries that leave the repo, links that leave it, and paths the repo tracks', async () => {
    const p = nodeProject();
    const leaves = await prepareWorkspace(p.options({ link: ['../elsewhere'] }));
    expect(leaves).toEqual({ ok: false, error: { message: expect.stringContaining('setup.link: "../elsewhere" leaves the repo'), infrastructure: false } });

    const q = nodeProject();
    const away = tempDir();
    symlinkSync(away, join(q.r.dir, 'vendor'));
    const through = await prepareWorkspace(q.options({ link: ['vendor'] }));
    expect(through).toEqual({ ok: false, error: { message: 'setup.link: "vendor" is a link that leaves the repo; refused', infrastructure: false } });

    const t = nodeProject();
    const tracked = await prepareWorkspace(t.options({ link: ['test'] }));
    expect(tracked).toEqual({
      ok: false,
      error: { message: expect.stringContaining('setup.link: "test" is already in the worktree (the repo tracks files there)'), infrastructure: false },
    });
    expect(readFileSync(join(t.worktree, 'test', 'app.test.js'), 'utf8')).toContain('left-pad');
  });

  it('the spec refuses a link entry that leaves the repo, at its line, before any run', async () => {
    const r = repo({ 'README.md': '# x\n' });
    r.write(
      'bestof.toml',
      'name = "x"\n[prompt]\ntext = "t"\n[[checks.items]]\nname = "t"\ncommand = "true"\n[setup]\nlink = ["node_modules", "../shared/node_modules"]\n',
    );
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    expect(loaded.ok).toBe(false);
    expect(JSON.stringify(loaded)).toContain('setup.link[1]');
    expect(JSON.stringify(loaded)).toContain('\\"../shared/node_modules\\" leaves the repo');
  });

  it('warns when there is nothing to link, and when the agents run without the sandbox', async () => {
    const p = nodeProject();
    const missing = await prepareWorkspace(p.options({ link: ['vendor/cache'] }));
    expect(missing.ok && missing.value.warnings).toEqual([expect.stringContaining('setup.link: "vendor/cache" matches nothing in')]);

    const q = nodeProject();
    const open = await prepareWorkspace(q.options({ sandboxed: false }));
    expect(open.ok && open.value.warnings).toEqual([
      expect.stringContaining('setup.link: agents run without the sandbox, so an agent that writes into node_modules writes through the link into'),
    ]);
  });

  it('a link the agent replaced is made again by the redo of the setup', async () => {
    const p = nodeProject();
    const made = await prepareWorkspace(p.options());
    if (!made.ok) throw new Error(made.error.message);
    rmSync(join(p.worktree, 'node_modules'));
    mkdirSync(join(p.worktree, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(join(p.worktree, 'node_modules', 'left-pad', 'index.js'), 'module.exports = () => "007";\n');
    const redone = await redoSetup(p.options(), made.value.setupPaths, new AbortController().signal);
    expect(redone.ok).toBe(true);
    expect(readlinkSync(join(p.worktree, 'node_modules'))).toBe(join(p.r.dir, 'node_modules'));
    // The user's own folder was never touched.
    expect(readFileSync(join(p.r.dir, 'node_modules', 'left-pad', 'index.js'), 'utf8')).toContain('padStart');
  });
});

describe('setup.link in the sandbox', async () => {
  const probe = await probeSandbox();
  if (!probe.ok) throw new Error(`these tests need a working bubblewrap: ${probe.reason}`);
  // Under /var/tmp: the sandbox's private /tmp would hide anything under /tmp by itself.
  const base = mkdtempSync('/var/tmp/bestof-setup-link-');
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('the linked folder is read-only to the agent, and visible even when the repo is in a hidden folder (HOME)', async () => {
    const home = join(base, 'home');
    const repoRoot = join(home, 'app');
    mkdirSync(join(repoRoot, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repoRoot, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
    const worktree = join(base, 'worktrees', 'c1');
    mkdirSync(worktree, { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(worktree, 'node_modules'));
    const layout = (readOnly: readonly string[]): SandboxLayout => ({
      bwrap: probe.bwrap,
      workdir: worktree,
      home: join(base, 'agent-home'),
      hidden: [home, join(base, 'worktrees')],
      writable: [],
      readOnly,
      pathVariable: process.env.PATH,
    });
    const script =
      "console.log(require('dep')); try { require('fs').writeFileSync('node_modules/dep/index.js', 'module.exports = 0;'); console.log('written'); } catch (e) { console.log(e.code); }";
    const run = (l: SandboxLayout) =>
      runAgentProcess(process.execPath, ['-e', script], { cwd: worktree, env: { PATH: process.env.PATH }, timeoutMs: 30_000 }, l);

    expect(linkedTargets(repoRoot, ['node_modules', '../outside', 'missing'])).toEqual([join(repoRoot, 'node_modules')]);
    const bound = await run(layout(linkedTargets(repoRoot, ['node_modules'])));
    expect(bound.stdout.trim().split('\n')).toEqual(['42', 'EROFS']);
    expect(readFileSync(join(repoRoot, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('module.exports = 42;\n');
    // Without the bind, the link points into the hidden HOME: nothing there.
    const unbound = await run(layout([]));
    expect(unbound.ok).toBe(false);
    expect(unbound.stderr).toContain("Cannot find module 'dep'");
    expect(existsSync(join(repoRoot, 'node_modules', 'dep', 'index.js'))).toBe(true);
  });
});
