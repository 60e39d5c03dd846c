/**
 * The plan of the hidden checks (src/engine/plan/hidden-checks.ts): every place where an agent
 * would see the hidden files anyway is refused, naming the key; `hidden` becomes absolute; and
 * without the sandbox the plan warns, once. Real repos, real spec files loaded.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planHiddenChecks } from '../../src/engine/plan/hidden-checks.js';
import { agentSandbox, checkSandbox } from '../../src/engine/sandbox/agent-sandbox.js';
import { loadSpec } from '../../src/spec/load.js';
import type { Spec } from '../../src/spec/schema.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** A repo with a visible test and its spec at the root (`extra` TOML added), and a folder of hidden tests outside it. */
async function project(extra = ''): Promise<{ repo: TempRepo; spec: Spec; specDir: string; outside: string }> {
  const r = repo({ 'src/add.js': 'module.exports = (a, b) => a - b;\n', 'test/add.test.js': '// visible\n' });
  const outside = realpathSync(tempDir());
  mkdirSync(join(outside, 'hidden-tests'));
  writeFileSync(join(outside, 'hidden-tests', 'acceptance.test.js'), '// hidden\n');
  const specPath = join(r.dir, 'bestof.toml');
  writeFileSync(specPath, `[prompt]\ntext = "x"\n${extra}\n[[checks.items]]\nname = "acceptance"\ncommand = "node --test test/hidden"\n`);
  const loaded = await loadSpec(specPath);
  if (!loaded.ok) throw new Error(loaded.error.map((p) => p.message).join('\n'));
  return { repo: r, spec: loaded.value.spec, specDir: r.dir, outside };
}

async function plan(p: Awaited<ReturnType<typeof project>>, sandboxed = true) {
  return planHiddenChecks(p.spec, { specDir: p.specDir, repoRoot: p.repo.dir, baseCommit: p.repo.git('rev-parse', 'HEAD'), sandboxed });
}

describe('the plan of a hidden check', () => {
  it("resolves a relative `hidden` from the spec's folder", async () => {
    const p = await project();
    const planned = await planHiddenChecks(withHidden(p.spec, 'hidden-tests', 'test/hidden'), {
      specDir: p.outside,
      repoRoot: p.repo.dir,
      baseCommit: p.repo.git('rev-parse', 'HEAD'),
      sandboxed: true,
    });
    expect(planned.problems).toEqual([]);
    expect(planned.spec.checks.items[0]!.hidden).toBe(join(p.outside, 'hidden-tests'));
  });

  it('an absolute folder outside the repo: no problem, the folder in `folders`, no warning in the sandbox, one warning without', async () => {
    const p = await project();
    const withFolder = { ...p, spec: withHidden(p.spec, join(p.outside, 'hidden-tests'), 'test/hidden') };
    const inSandbox = await plan(withFolder);
    expect(inSandbox.problems).toEqual([]);
    expect(inSandbox.folders).toEqual([join(p.outside, 'hidden-tests')]);
    expect(inSandbox.warnings).toEqual([]);
    const without = await plan(withFolder, false);
    expect(without.problems).toEqual([]);
    expect(without.warnings).toHaveLength(1);
    expect(without.warnings[0]).toContain("an agent could read the hidden checks' folder");
    expect(without.warnings[0]).toContain(join(p.outside, 'hidden-tests'));
  });

  it.each([
    ['a folder inside the repo', (p: Project) => inRepo(p), 'checks.items[0].hidden: ', 'is inside the repo'],
    ['the folder that holds the repo', (p: Project) => join(p.repo.dir, '..'), 'checks.items[0].hidden: ', 'holds the repo itself'],
    ['a link to a folder', (p: Project) => linkTo(p), 'checks.items[0].hidden: ', 'is a symbolic link'],
    ['a folder holding a link', (p: Project) => holdingLink(p), 'checks.items[0].hidden: ', '"escape.txt", not a file nor a folder'],
    ['a folder that is gone', (p: Project) => join(p.outside, 'gone'), 'checks.items[0].hidden: ', 'folder not found'],
  ])('refuses %s, naming the key', async (_what, folderOf, key, words) => {
    const p = await project();
    const folder = folderOf(p);
    const planned = await plan({ ...p, spec: withHidden(p.spec, folder, 'test/hidden') });
    expect(planned.problems).toHaveLength(1);
    expect(planned.problems[0]).toContain(key);
    expect(planned.problems[0]).toContain(words);
  });

  it.each([
    ['a folder base has', 'test', 'checks.items[0].into: "test" exists in base'],
    ['a file base has', 'src/add.js', 'checks.items[0].into: "src/add.js" exists in base'],
    ["the repo's root", '.', 'checks.items[0].into: "." is the repo\'s root'],
    ["git's folder", '.git/x', 'checks.items[0].into: ".git/x" is inside git\'s own folder'],
    ['a setup path', 'node_modules/hidden', 'checks.items[0].into: "node_modules/hidden" meets the setup path "node_modules"'],
  ])('refuses `into` at %s', async (_what, into, words) => {
    const p = await project('[setup]\nlink = ["node_modules"]\n');
    const planned = await plan({ ...p, spec: withHidden(p.spec, join(p.outside, 'hidden-tests'), into) });
    expect(planned.problems).toHaveLength(1);
    expect(planned.problems[0]).toContain(words);
  });
});

describe('the sandbox of a run with a hidden check', () => {
  it("hides the hidden folder from the candidates', the reviewer's and the checks' processes", async () => {
    const p = await project();
    const folder = join(p.outside, 'hidden-tests');
    const run = { repoRoot: p.repo.dir, sandbox: { enabled: true, bwrap: '/usr/bin/bwrap' }, spec: withHidden(p.spec, folder, 'test/hidden') };
    const candidate = { id: 'c1', worktree: join(p.outside, 'worktrees', 'run', 'c1') };
    expect(agentSandbox(run, candidate, process.env)?.hidden).toContain(folder);
    expect(agentSandbox(run, candidate, process.env, 'reviewer')?.hidden).toContain(folder);
    expect(checkSandbox(run, candidate, process.env, join(p.outside, 'home'))?.hidden).toContain(folder);
  });
});

type Project = Awaited<ReturnType<typeof project>>;

function withHidden(spec: Spec, hidden: string, into: string): Spec {
  return { ...spec, checks: { ...spec.checks, items: [{ ...spec.checks.items[0]!, hidden, into }] } };
}

function inRepo(p: Project): string {
  const folder = join(p.repo.dir, 'hidden-tests');
  mkdirSync(folder);
  writeFileSync(join(folder, 'a.test.js'), '// hidden\n');
  return folder;
}

function linkTo(p: Project): string {
  const link = join(p.outside, 'link-to-hidden');
  symlinkSync(join(p.outside, 'hidden-tests'), link);
  return link;
}

function holdingLink(p: Project): string {
  symlinkSync('/etc/hostname', join(p.outside, 'hidden-tests', 'escape.txt'));
  return join(p.outside, 'hidden-tests');
}
