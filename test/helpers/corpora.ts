/**
 * The real repositories of `../shared/corpora` (git bundles of small public projects, with their
 * whole history), for the tests that mine benchmarks from real history. A clone of bestof outside
 * this workplace has no `../shared`: those tests then skip, saying so (README, Development).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from './cli.js';
import { makeTempDir } from './temp-repo.js';

export const CORPORA_DIR = resolve(PROJECT_ROOT, '..', 'shared', 'corpora');

/** Why the corpus' tests skip, or undefined when its bundle is here. */
export function corpusMissing(bundle: string): string | undefined {
  return existsSync(join(CORPORA_DIR, bundle)) ? undefined : `skipped: ${join(CORPORA_DIR, bundle)} is absent (../shared/corpora exists only in the workplace)`;
}

/** A fresh clone of the bundle in a temp folder (its default branch checked out). */
export function cloneCorpus(bundle: string, name: string): string {
  const dir = join(makeTempDir('bestof-corpus-'), name);
  execFileSync('git', ['clone', '-q', join(CORPORA_DIR, bundle), dir], { stdio: 'ignore' });
  return dir;
}

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}
