/**
 * A run whose run folder's disk fills up while it runs: a tmpfs of 200 KB mounted on the repo's
 * `.bestof/` (in a user and mount namespace of its own, `unshare -rm`, as the copy-on-write
 * worktrees use: no root needed), the repo's git and the worktrees elsewhere, and an agent that
 * fills that disk, then talks. Before, bestof died with a stack trace from a timer (state.json's write), its
 * candidate's work uncommitted. Now the run stops as a Ctrl-C would, every candidate's work is
 * committed and kept, the exit code is 4 and the output says why; once there is room again,
 * `bestof resume` finishes the run. Through the real binary.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

describe.runIf(process.platform === 'linux')('a run folder on a disk that fills up', () => {
  it('stops the run with the work committed and kept, exits 4 saying why, and `bestof resume` finishes it once there is room', () => {
    project = makeProject();
    const runFolders = join(project.repo.dir, '.bestof');
    // The agent writes its fix, fills the run folder's disk to the last block (the sandbox is off,
    // so that it can), then says 80 lines: the first 50 of an agent call each become an event (activity), 10 KB or so,
    // more than any block freed later (a failed state.json is removed) can hold. So the event log's
    // write fails, every time, while the agent works.
    // Only in its first call: the resumed run's call must find the room that was made.
    const filled = join(project.writeOutside('marks/.keep', ''), '..', 'filled');
    const agent = project.writeOutside(
      'agent.sh',
      `#!/bin/sh\necho "export const add = (a, b) => a + b;" > src/add.mjs\n[ -e ${JSON.stringify(filled)} ] || { touch ${JSON.stringify(filled)}; dd if=/dev/zero of=${JSON.stringify(join(runFolders, 'filler'))} bs=4096 2>/dev/null; }\ni=0\nwhile [ $i -lt 80 ]; do echo "line $i of what the agent says while the disk is full"; i=$((i + 1)); done\n`,
    );
    chmodSync(agent, 0o755);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(agent)}\n[sandbox]\nmode = "off"\n[[checks.items]]\nname = "fixed"\ncommand = "grep -q 'a + b' src/add.mjs"\n[select]\nmerge = "branch"\n`,
      ),
    );
    mkdirSync(runFolders);
    const out = project.writeOutside('out', '');
    const bestof = `${JSON.stringify(process.execPath)} ${JSON.stringify(BESTOF_BIN)}`;
    // Everything in one namespace: the mount lives as long as it does.
    const script = [
      'set -u',
      `export BESTOF_WORKTREES_DIR=${JSON.stringify(project.worktreesDir)}`,
      `cd ${JSON.stringify(project.repo.dir)}`,
      `mount -t tmpfs -o size=200k tmpfs ${JSON.stringify(runFolders)} || exit 90`,
      `${bestof} run ${JSON.stringify(spec)} --no-tui > ${out}.run 2>&1; echo $? > ${out}.run-code`,
      `ls .bestof/runs > ${out}.run-id`,
      `cat .bestof/runs/*/report.json > ${out}.report 2>/dev/null`,
      `mount -o remount,size=8m ${JSON.stringify(runFolders)}`,
      `${bestof} resume "$(cat ${out}.run-id)" --no-tui > ${out}.resume 2>&1; echo $? > ${out}.resume-code`,
      `${bestof} show "$(cat ${out}.run-id)" > ${out}.show 2>&1; echo $? > ${out}.show-code`,
    ].join('\n');
    writeFileSync(`${out}.sh`, script);
    const namespace = spawnSync('unshare', ['-rm', 'sh', `${out}.sh`], { encoding: 'utf8', timeout: 120_000 });
    expect(namespace.status, `unshare -rm and a tmpfs mount are needed here: ${namespace.stderr}`).toBe(0);
    const read = (suffix: string): string => readFileSync(`${out}.${suffix}`, 'utf8');

    const ran = read('run');
    expect(ran).not.toMatch(/^\s+at /m); // no stack trace
    expect(ran).toContain("cannot write the run's record");
    // Whichever met the full disk too (the CLI through the log, the engine through a file of the
    // candidate's), the run stopped incomplete and says how to go on.
    expect(ran).toMatch(/ENOSPC: no space left on device/);
    expect(ran).toMatch(/make room( on that disk)?, then `bestof resume \S+` goes on/);
    expect(read('run-code').trim()).toBe('4');
    // No half-written report.json: none at all, or one that parses.
    const report = read('report');
    if (report !== '') expect(() => JSON.parse(report)).not.toThrow();
    const runId = read('run-id').trim();
    // The candidate's work is committed and kept.
    expect(project.repo.git('show', `refs/bestof/${runId}/c1/kept:src/add.mjs`)).toContain('a + b');

    // Once there is room, resume finishes the run from the log as far as it was written.
    expect(read('resume-code').trim(), `${ran}\n---\n${read('resume')}`).toBe('0');
    expect(read('resume')).toMatch(/run winner in .* c1 \(\S+\) won/);
    expect(read('show-code').trim()).toBe('0');
    expect(read('show')).toContain('status: **winner**');
    expect(existsSync(join(project.worktreesDir, runId, 'c1'))).toBe(false);
  });

  it('a worktrees folder whose disk cannot hold one checkout: the setup says the disk is full and what to do, and does not try again', () => {
    project = makeProject();
    // 40 files of 25 KB: 1 MB, on a disk of 300 KB.
    for (let i = 0; i < 40; i++) project.repo.write(`data/f${i}.txt`, `${'z'.repeat(25_000)}\n`);
    project.repo.commitAll('data');
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside('idle.toml', '[[steps]]\nsay = "hello"\n'))}\n[select]\nmerge = "branch"\n`,
      ),
    );
    const out = project.writeOutside('out', '');
    const script = [
      `mount -t tmpfs -o size=300k tmpfs ${JSON.stringify(project.worktreesDir)} || exit 90`,
      `cd ${JSON.stringify(project.repo.dir)}`,
      `BESTOF_WORKTREES_DIR=${JSON.stringify(project.worktreesDir)} ${JSON.stringify(process.execPath)} ${JSON.stringify(BESTOF_BIN)} run ${JSON.stringify(spec)} --no-tui > ${out}.run 2>&1; echo $? > ${out}.run-code`,
    ].join('\n');
    writeFileSync(`${out}.sh`, script);
    mkdirSync(project.worktreesDir, { recursive: true });
    const namespace = spawnSync('unshare', ['-rm', 'sh', `${out}.sh`], { encoding: 'utf8', timeout: 120_000 });
    expect(namespace.status, `unshare -rm and a tmpfs mount are needed here: ${namespace.stderr}`).toBe(0);
    const ran = readFileSync(`${out}.run`, 'utf8');
    expect(readFileSync(`${out}.run-code`, 'utf8').trim(), ran).toBe('4');
    expect(ran).toMatch(
      /c1 setup failed: cannot create worktree \S+ on branch \S+ from \w+: the disk of \S+ is full \(No space left on device: \d+ KiB free\): make room there, or set BESTOF_WORKTREES_DIR to a folder on a disk with room; git said: checkout failed: unable to write file/,
    );
    expect(ran).not.toContain('tried 3 times');
  });
});
