/**
 * Nothing tampered is ever merged, and what is merged is what was scored: through the real
 * binary, real git, script and command agents.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, IDLE_SCRIPT, makeProject, PROJECT_FILES, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

/** Fixes add() and guts the frozen test file down to a test that always passes. */
const GUTTING_FIX_SCRIPT = `${FIX_SCRIPT}
[[steps]]
write = "test/add.test.mjs"
content = "import { test } from 'node:test';\\ntest('ok', () => {});\\n"
[[steps]]
write = "test/extra.test.mjs"
content = "import { test } from 'node:test';\\ntest('extra', () => {});\\n"
`;

interface Report {
  runId: string;
  winner: string | null;
  ranking: { candidate: string; eligible: boolean; reason?: string }[];
  merge: { ok: boolean; message: string; commit?: string } | null;
  candidates: { id: string; branch: string; ref: string; commit: string; score: number }[];
  warnings: string[];
}

function report(): Report {
  const runsDir = join(project.repo.dir, '.bestof', 'runs');
  return JSON.parse(readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'report.json'), 'utf8')) as Report;
}

function scripts(...bodies: string[]): string {
  return bodies
    .map((body, i) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside(`agent-${i + 1}.toml`, body))}\n`)
    .join('');
}

async function run(providers: string, extra = '') {
  const spec = project.writeOutside('spec.toml', specToml(project.repo.dir, `${providers}${ADD_CHECKS}\n${extra}`));
  return runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

const userTest = (): string => readFileSync(join(project.repo.dir, 'test/add.test.mjs'), 'utf8');

describe('nothing tampered is ever merged', () => {
  it("the honest agent wins over one that fixed the bug and gutted the frozen tests; main's tests stay intact", async () => {
    project = makeProject();
    const result = await run(scripts(GUTTING_FIX_SCRIPT, FIX_SCRIPT), '[select]\nmerge = "merge"\n');
    expect(result.code).toBe(0);
    const r = report();
    expect(r.winner).toBe('c2');
    const cheater = r.ranking.find((e) => e.candidate === 'c1');
    expect(cheater?.eligible).toBe(false);
    expect(cheater?.reason).toBe(
      'changed frozen paths: test/add.test.mjs, test/extra.test.mjs (select.allow_tampered = true would let it win with them reverted)',
    );
    expect(userTest()).toBe(PROJECT_FILES['test/add.test.mjs']);
    expect(project.repo.git('ls-tree', '-r', '--name-only', 'HEAD', 'test')).toBe('test/add.test.mjs');
    expect(readFileSync(join(project.repo.dir, 'src/add.mjs'), 'utf8')).toContain('a + b');
  });

  it("with allow_tampered, the only passing cheater wins, but bestof's own commit reverts its frozen edits before the merge", async () => {
    project = makeProject();
    const result = await run(scripts(IDLE_SCRIPT, GUTTING_FIX_SCRIPT), '[select]\nmerge = "merge"\nallow_tampered = true\n');
    expect(result.code).toBe(0);
    const r = report();
    expect(r.winner).toBe('c2');
    expect(r.merge?.message).toMatch(
      /^merged bestof\/.*\/c2 \(\w{10}\) into main \(merge\) as \w{10}; bestof's commit \w{10} \(kept at refs\/bestof\/.*\/c2\/reverted\) reverted frozen paths test\/add\.test\.mjs, test\/extra\.test\.mjs on top of the scored commit$/,
    );
    expect(userTest()).toBe(PROJECT_FILES['test/add.test.mjs']);
    expect(project.repo.git('ls-tree', '-r', '--name-only', 'HEAD', 'test')).toBe('test/add.test.mjs');
    expect(readFileSync(join(project.repo.dir, 'src/add.mjs'), 'utf8')).toContain('a + b');
    // The merged side is bestof's commit, whose parent is the scored commit; the merge message names the branch.
    const c2 = r.candidates.find((c) => c.id === 'c2');
    expect(project.repo.git('rev-parse', 'HEAD^2^')).toBe(c2?.commit);
    expect(project.repo.git('rev-parse', 'HEAD^2')).toBe(project.repo.git('rev-parse', `refs/bestof/${r.runId}/c2/reverted`));
    expect(project.repo.git('log', '-1', '--format=%B', 'HEAD')).toContain(`Branch ${c2?.branch} at ${c2?.commit.slice(0, 10)} (the scored commit).`);
    // The candidate's own commit still holds what it wrote: kept, not merged.
    expect(project.repo.git('show', `${c2?.ref}:test/add.test.mjs`)).toContain("test('ok'");
  });

  it('with allow_tampered, a winner that added a protected file (a conftest.py) gets it reverted before the merge, as a frozen one', async () => {
    project = makeProject();
    const fixAndHook = `${FIX_SCRIPT}
[[steps]]
write = "conftest.py"
content = "# a hook\\n"
`;
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `${scripts(fixAndHook)}${ADD_CHECKS.replace('frozen = ["test/**", "scripts/check.sh"]', 'frozen = ["test/**", "scripts/check.sh"]\nprotected = ["**/conftest.py"]')}\n[select]\nmerge = "merge"\nallow_tampered = true\n`,
      ),
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const r = report();
    expect(r.winner).toBe('c1');
    expect(r.merge?.message).toContain('reverted frozen paths conftest.py on top of the scored commit');
    expect(project.repo.git('ls-tree', '--name-only', 'HEAD')).not.toContain('conftest.py');
    expect(readFileSync(join(project.repo.dir, 'src/add.mjs'), 'utf8')).toContain('a + b');
  });

  it('a change outside [checks] editable is not merged', async () => {
    const fixAndMore = `${FIX_SCRIPT}
[[steps]]
write = "README.md"
content = "# rewritten by the agent\\n"
[[steps]]
write = "docs/new.md"
content = "new\\n"
`;
    project = makeProject();
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `${scripts(fixAndMore)}${ADD_CHECKS.replace('frozen = ["test/**", "scripts/check.sh"]', 'frozen = ["test/**", "scripts/check.sh"]\neditable = ["src/**"]')}\n[select]\nmerge = "squash"\n`,
      ),
    );
    const editable = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(editable.code).toBe(0);
    const r = report();
    expect(r.winner).toBe('c1');
    expect(r.merge?.message).toContain('reverted paths outside [checks] editable README.md, docs/new.md');
    expect(readFileSync(join(project.repo.dir, 'README.md'), 'utf8')).toBe('# project\n');
    expect(project.repo.git('ls-tree', '--name-only', 'HEAD')).not.toContain('docs');
    expect(readFileSync(join(project.repo.dir, 'src/add.mjs'), 'utf8')).toContain('a + b');
  });
});

describe('merge the sha that was scored', () => {
  it('a candidate whose kept ref and branch a rival moved cannot win; both are put back, the moved tips kept', async () => {
    project = makeProject();
    // The rival waits until c1's iteration is scored (its commit reworded with the score), then
    // points c1's kept ref and branch at a commit of its own that guts the tests. No sandbox:
    // this is the unsandboxed case that the selection's check is for.
    const rival = project.writeOutside(
      'rival.sh',
      `#!/bin/sh
run=$(git symbolic-ref --short HEAD | cut -d/ -f2)
i=0
until git log -1 --format=%s "refs/bestof/$run/c1/kept" 2>/dev/null | grep -q 'score'; do
  i=$((i+1)); [ $i -gt 600 ] && exit 1; sleep 0.1
done
printf "import { test } from 'node:test';\\ntest('ok', () => {});\\n" > test/add.test.mjs
git add -A && git -c user.name=x -c user.email=x@x commit -qm forged
forged=$(git rev-parse HEAD)
git reset -q --hard HEAD~1
git update-ref "refs/bestof/$run/c1/kept" "$forged"
git update-ref "refs/heads/bestof/$run/c1" "$forged"
echo "done" > notes.txt
`,
    );
    chmodSync(rival, 0o755);
    const result = await run(
      `${scripts(FIX_SCRIPT)}[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(rival)}\n`,
      '[select]\nmerge = "merge"\n[sandbox]\nmode = "off"\n',
    );
    const r = report();
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const c1 = r.candidates.find((c) => c.id === 'c1');
    const entry = r.ranking.find((e) => e.candidate === 'c1');
    expect(entry?.eligible).toBe(false);
    expect(entry?.reason).toMatch(
      new RegExp(
        `^its kept ref refs/bestof/${r.runId}/c1/kept moved to \\w{10} and its branch bestof/${r.runId}/c1 moved to \\w{10} since its commit ${c1?.commit.slice(0, 10)} was scored$`,
      ),
    );
    expect(r.warnings.join('\n')).toMatch(/c1: its kept ref .* it cannot win; .*kept is back at/);
    expect(project.repo.git('rev-parse', c1?.ref as string)).toBe(c1?.commit);
    expect(project.repo.git('rev-parse', `refs/heads/${c1?.branch}`)).toBe(c1?.commit);
    expect(project.repo.git('show', `refs/bestof/${r.runId}/c1/moved-ref:test/add.test.mjs`)).toContain("test('ok'");
    expect(project.repo.git('show', `refs/bestof/${r.runId}/c1/moved-branch:test/add.test.mjs`)).toContain("test('ok'");
    expect(userTest()).toBe(PROJECT_FILES['test/add.test.mjs']);
  });

  it('`git merge bestof/<run>/c1` names only the branch: no "refname is ambiguous"', async () => {
    project = makeProject();
    expect((await run(scripts(FIX_SCRIPT), '[select]\nmerge = "branch"\n')).code).toBe(0);
    const { runId } = report();
    const merged = spawnSync('git', ['merge', '--no-edit', `bestof/${runId}/c1`], { cwd: project.repo.dir, encoding: 'utf8' });
    expect(merged.status).toBe(0);
    expect(merged.stderr + merged.stdout).not.toMatch(/ambiguous/);
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(report().candidates[0]?.commit);
  });
});

/** A finished run cut back to just before its selection: what a kill -9 after the loops leaves. */
function cutBeforeSelection(runDir: string): void {
  const file = join(runDir, 'events.jsonl');
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const cut = lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === 'selection.finished');
  writeFileSync(file, `${lines.slice(0, cut).join('\n')}\n`);
  for (const f of ['state.json', 'report.json', 'report.md']) writeFileSync(join(runDir, f), '{}');
}

/** Appends a forged "finished, scored 10" for `commit` to the event log, as a writer of the run folder could. */
function forge(runDir: string, candidate: string, commit: string): void {
  const t = new Date().toISOString();
  const lines = [
    {
      t,
      type: 'candidate.finished',
      candidate,
      status: 'done',
      reason: 'threshold_reached',
      iterations: 1,
      score: 10,
      commit,
      diff: { files: 1, insertions: 1, deletions: 1 },
      durationMs: 1,
      costUsd: 0,
    },
    { t, type: 'candidate.scored', candidate, iteration: 1, score: 10, maxScore: 10, failedChecks: [], final: true },
  ];
  appendFileSync(join(runDir, 'events.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

describe('resume verifies the record', () => {
  /** A commit that fixes add() but is on no candidate's ref. */
  function forgedCommit(): string {
    project.repo.git('checkout', '--quiet', '-b', 'forger-scratch');
    project.repo.write('src/add.mjs', 'export const add = (a, b) => a + b;\n');
    const sha = project.repo.commitAll('forged');
    project.repo.git('checkout', '--quiet', 'main');
    project.repo.git('branch', '-D', 'forger-scratch');
    return sha;
  }

  for (const real of ['idle', 'fix'] as const) {
    it(`a forged "scored 10" for a commit its kept ref does not hold is scored again from the ref (its real work ${real === 'idle' ? 'fails' : 'passes'})`, async () => {
      project = makeProject();
      const first = await run(scripts(IDLE_SCRIPT, real === 'idle' ? IDLE_SCRIPT : FIX_SCRIPT), '[select]\nmerge = "merge"\n');
      expect(first.code).toBe(real === 'idle' ? 1 : 0);
      const { runId } = report();
      if (real === 'fix') project.repo.git('reset', '--quiet', '--hard', 'HEAD~1');
      const runDir = join(project.repo.dir, '.bestof', 'runs', runId);
      cutBeforeSelection(runDir);
      const forged = forgedCommit();
      forge(runDir, 'c2', forged);
      const mainBefore = project.repo.git('rev-parse', 'HEAD');

      const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      const r = report();
      const c2 = r.candidates.find((c) => c.id === 'c2');
      expect(r.warnings.join('\n')).toContain(`c2: the record says its work is ${forged.slice(0, 10)}, its kept ref refs/bestof/${runId}/c2/kept says`);
      expect(c2?.commit).toBe(project.repo.git('rev-parse', `refs/bestof/${runId}/c2/kept`));
      expect(c2?.commit).not.toBe(forged);
      if (real === 'idle') {
        expect(resumed.code, resumed.stdout + resumed.stderr).toBe(1);
        expect(r.winner).toBeNull();
        expect(c2?.score).toBe(0);
        expect(project.repo.git('rev-parse', 'HEAD')).toBe(mainBefore);
      } else {
        expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
        expect(r.winner).toBe('c2');
        expect(c2?.score).toBe(10);
        expect(project.repo.git('rev-parse', 'HEAD^2')).toBe(c2?.commit);
      }
    });
  }
});

describe('resume with `[sandbox] checks = false`', () => {
  it('a record it cannot tell from a forged one is scored again, even for the very commit its kept ref holds: the code a check ran could have written it', async () => {
    project = makeProject();
    const first = await run(scripts(IDLE_SCRIPT), '[select]\nmerge = "merge"\n[sandbox]\nchecks = false\n');
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const { runId } = report();
    const runDir = join(project.repo.dir, '.bestof', 'runs', runId);
    cutBeforeSelection(runDir);
    forge(runDir, 'c1', project.repo.git('rev-parse', `refs/bestof/${runId}/c1/kept`));

    const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const r = report();
    expect(r.warnings.join('\n')).toContain(
      'c1 finished before the interruption; with `[sandbox] checks = false` the code a check ran could have written their scores into the run folder, so they are scored again',
    );
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(1);
    expect(r.winner).toBeNull();
    expect(r.candidates.find((c) => c.id === 'c1')?.score).toBe(0);
  });
});

describe('frozen and editable globs must match', () => {
  it('but protected globs need not match: they keep a candidate from adding such a file; an unmatched frozen one is pointed there', async () => {
    project = makeProject();
    const checksWith = (globs: string[], editable: string[] = [], protectedGlobs: string[] = []): string =>
      project!.writeOutside(
        'spec.toml',
        specToml(
          project!.repo.dir,
          `${scripts(FIX_SCRIPT)}${ADD_CHECKS.replace('frozen = ["test/**", "scripts/check.sh"]', `frozen = ${JSON.stringify(globs)}\neditable = ${JSON.stringify(editable)}\nprotected = ${JSON.stringify(protectedGlobs)}`)}`,
        ),
      );
    const ok = await runCli(
      ['validate', checksWith(['test/**'], [], ['**/conftest.py', '**/*.dist-info/**', './**/pytest/__init__.py', '**/node_modules/**', 'test/**'])],
      { cwd: project.repo.dir },
    );
    expect(ok.stdout + ok.stderr).toContain('ok');
    expect(ok.code).toBe(0);
    const refused = await runCli(
      [
        'validate',
        checksWith(['test/**', '**/conftest.py', 'scripts/chek.sh', 'nothing/**', '**/[ab].py', '**/no*/**'], ['src/**', '**/new.py'], ['**/*.dist-info/**']),
      ],
      {
        cwd: project.repo.dir,
      },
    );
    expect(refused.code).toBe(2);
    for (const [i, glob] of [
      [1, '**/conftest.py'],
      [2, 'scripts/chek.sh'],
      [3, 'nothing/**'],
      [4, '**/[ab].py'],
      [5, '**/no*/**'],
    ] as const) {
      expect(refused.stderr).toContain(`checks.frozen[${i}]: ${JSON.stringify(glob)} matches no file in base`);
    }
    // Every unmatched frozen pattern is pointed to protected; a path without wildcards is also told its every-folder form.
    expect(
      refused.stderr.match(/; or, to keep candidates from adding such a file, move it to checks\.protected, which need not match a file of base/g),
    ).toHaveLength(5);
    expect(refused.stderr).toContain('move it to checks.protected, which need not match a file of base (as "**/scripts/chek.sh" for every folder)');
    expect(refused.stderr).toContain('(as "**/nothing/**" for every folder)');
    expect(refused.stderr.match(/for every folder/g)).toHaveLength(2);
    // editable is an allow-list: a name that matches nothing allows nothing, and stays an error.
    expect(refused.stderr).toContain('checks.editable[1]: "**/new.py" matches no file in base');
    expect(refused.stderr).not.toContain('checks.protected[');
  });

  it('a frozen glob that matches no file in base is a spec error: exit 2, the key and glob named, nothing created', async () => {
    project = makeProject();
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `${scripts(FIX_SCRIPT)}${ADD_CHECKS.replace('frozen = ["test/**", "scripts/check.sh"]', 'frozen = ["scripts/check.sh", "tests/**"]\neditable = ["lib/**"]')}`,
      ),
    );
    const branches = project.repo.git('for-each-ref');
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code).toBe(2);
    const base = project.repo.git('rev-parse', 'HEAD').slice(0, 10);
    expect(result.stderr).toContain(
      `checks.frozen[1]: "tests/**" matches no file in base ${base}, so it protects nothing; the top level there is: README.md, scripts/, src/, test/.`,
    );
    expect(result.stderr).toContain(`checks.editable[0]: "lib/**" matches no file in base ${base}`);
    expect(project.repo.git('for-each-ref')).toBe(branches);
    expect(readdirSync(project.repo.dir)).not.toContain('.bestof');
  });
});
