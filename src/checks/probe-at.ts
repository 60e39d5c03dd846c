/**
 * What `bestof init` finds in a repo (src/spec/repo-probe.ts over the files of HEAD), shared by init and
 * `bestof bench mine` (which writes the same checks into the tasks of a repo without a bestof.toml).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { globsMatching } from './frozen.js';
import { runProcess } from '../process/run-process.js';
import { editableCandidates, probeRepo, testCommandFileCandidates, type RepoProbe } from '../spec/repo-probe.js';
import { FROZEN_CANDIDATE_PATTERNS } from '../spec/runner-files.js';

/** What the repo holds, for the starter: the frozen and editable patterns (and the files its test commands name) that match a file of HEAD, and whether clippy is installed (for a Rust repo). */
export async function probeAt(root: string): Promise<RepoProbe> {
  const [frozenMatching, editableMatching] = await Promise.all([
    globsMatching(root, 'HEAD', [...FROZEN_CANDIDATE_PATTERNS, ...testCommandFileCandidates(root)]),
    globsMatching(root, 'HEAD', editableCandidates(root)),
  ]);
  const clippy = existsSync(resolve(root, 'Cargo.toml'))
    ? (await runProcess('cargo', ['clippy', '--version'], { cwd: root, env: process.env, timeoutMs: 20_000 })).ok
    : false;
  return probeRepo(root, { frozenMatching, clippy, editableMatching });
}
