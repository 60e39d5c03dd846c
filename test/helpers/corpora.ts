/**
 * The real repositories the mining tests use (git bundles of small public projects, with their
 * whole history; docs/corpora.md says how to make them): in `$BESTOF_CORPORA`, else `.cache/corpora`
 * in the checkout, else the team's shared folder beside the checkout. Without them those tests
 * skip, saying so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from './cli.js';
import { makeTempDir } from './temp-repo.js';

export const CORPORA_DIR = corporaDir();

function corporaDir(): string {
  if (process.env.BESTOF_CORPORA) return resolve(process.env.BESTOF_CORPORA);
  const own = resolve(PROJECT_ROOT, '.cache', 'corpora');
  const team = resolve(PROJECT_ROOT, '..', 'shared', 'corpora');
  return existsSync(own) || !existsSync(team) ? own : team;
}

/** Why the corpus' tests skip, or undefined when its bundle is here. */
export function corpusMissing(bundle: string): string | undefined {
  return existsSync(join(CORPORA_DIR, bundle)) ? undefined : `skipped: ${join(CORPORA_DIR, bundle)} is absent (docs/corpora.md says how to make it)`;
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
