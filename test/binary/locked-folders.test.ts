/**
 * bestof as a user without root, with an agent that leaves folders their owner cannot read or
 * write: `chmod 000` on a folder of its work, and read-only folders as Go's module cache makes them
 * (`$GOPATH/pkg/mod`), in an ignored folder of the worktree and in its HOME. Found by running bestof
 * as another user: the candidate failed with an internal error (`git clean` could not open the
 * folder), what the locked folder held was in no commit (git skips a folder it cannot read, with a
 * warning and exit 0), and the removed worktree stayed on disk (`rm -rf` cannot delete what a
 * read-only folder holds). A second agent makes the worktree's root read-only: its ignored build
 * output could not be moved aside for the checks (an internal error). A file the agent made
 * unreadable (`chmod 000`) failed `git add -A` itself: an internal error, and the worktree kept.
 * As root none of it shows (root reads and deletes anything), so the run is made as `nobody`
 * (setpriv) when the tests run as root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bestofAsUser, CAN_RUN_AS_USER, giveToUser } from '../helpers/as-user.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const made: string[] = [];
afterEach(() => {
  // As root: whatever the run left, even read-only, goes.
  for (const dir of made.splice(0)) execFileSync('sh', ['-c', 'chmod -R u+rwx "$1" 2>/dev/null; rm -rf "$1"', 'sh', dir]);
});

/** The agent: its answer, a folder it locks (`chmod 000`), and read-only module caches in the worktree and in its HOME. */
const AGENT = `#!/bin/sh
set -e
echo 42 > answer.txt
mkdir locked && echo secret > locked/secret.txt && chmod 000 locked
echo private > unreadable.txt && chmod 000 unreadable.txt
mkdir -p cache/mod/m@v1 && echo 'module m' > cache/mod/m@v1/go.mod && chmod 555 cache/mod/m@v1 cache/mod
mkdir -p "$HOME/go/pkg/mod/m@v1" && echo 'module m' > "$HOME/go/pkg/mod/m@v1/go.mod" && chmod 555 "$HOME/go/pkg/mod/m@v1" "$HOME/go/pkg/mod"
`;

/** Another agent: its answer and build output the repo ignores, then the worktree's root made read-only (nothing locked for the commit to open up first). */
const READ_ONLY_ROOT = `#!/bin/sh
set -e
echo 42 > answer.txt
mkdir -p cache && echo built > cache/out.log
chmod 555 .
`;

describe("folders the agent left without their owner's permissions (bestof as a user without root)", () => {
  it.runIf(CAN_RUN_AS_USER)(
    'are committed, scored, put back and deleted: each candidate is scored with every file it wrote, and nothing is left on disk',
    async () => {
      const root = makeTempDir('bestof-locked-');
      made.push(root);
      const repo = join(root, 'repo');
      const home = join(root, 'home');
      const worktrees = join(root, 'worktrees');
      mkdirSync(repo);
      mkdirSync(home);
      writeFileSync(join(repo, 'README.md'), '# r\n');
      writeFileSync(join(repo, '.gitignore'), 'cache/\n');
      const git = (...args: string[]): string => execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd: repo, encoding: 'utf8' }).trim();
      git('init', '--quiet', '--initial-branch=main');
      git('add', '-A');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base');
      writeFileSync(join(root, 'agent.sh'), AGENT, { mode: 0o755 });
      writeFileSync(join(root, 'read-only-root.sh'), READ_ONLY_ROOT, { mode: 0o755 });
      writeFileSync(
        join(root, 'spec.toml'),
        [
          `repo = ${JSON.stringify(repo)}`,
          '[prompt]\ntext = "Write answer.txt."',
          '[parallel]\ncandidates = 2',
          `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(root, 'agent.sh'))}`,
          `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(root, 'read-only-root.sh'))}`,
          '[[checks.items]]\nname = "answer"\ncommand = "test -f answer.txt"\nscore = 1',
          '[[checks.items]]\nname = "locked work committed"\ncommand = "git ls-files --error-unmatch locked/secret.txt"\nscore = 1',
          '[select]\nmerge = "branch"',
          '',
        ].join('\n'),
      );
      giveToUser(root);

      const result = await bestofAsUser(['run', join(root, 'spec.toml'), '--json'], repo, { HOME: home, BESTOF_WORKTREES_DIR: worktrees });

      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/internal error|Permission denied/);
      const report = JSON.parse(result.stdout) as { runId: string; winner: string | null; candidates: { id: string; score: number; reason: string }[] };
      expect(report.winner).toBe('c1');
      expect(report.candidates.map((c) => [c.id, c.score, c.reason])).toEqual([
        ['c1', 2, 'threshold_reached'],
        ['c2', 1, 'completed'],
      ]);
      expect(git('cat-file', '-p', `refs/bestof/${report.runId}/c1/kept:locked/secret.txt`)).toBe('secret');
      expect(git('cat-file', '-p', `refs/bestof/${report.runId}/c1/kept:unreadable.txt`)).toBe('private');
      // The worktree and the agent's HOME (read-only module caches in both) are deleted after the run, in the background.
      await waitUntil(() => !existsSync(worktrees) || readdirSync(worktrees).length === 0, `the worktrees root ${worktrees} to be empty`, { attempts: 300 });
    },
    90_000,
  );
});
