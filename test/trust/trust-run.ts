/**
 * One trust-tier run and what it must leave: bestof run (and resumed, when an adversary killed
 * it) through the real binary, and the checks every adversary case shares (expectTrustKept): the
 * honest agent wins with every point and is never flagged, the adversary earns nothing and is
 * flagged where its cheat leaves a trace, no payload ran, and the user's repository and HOME are
 * as before but for the merge of the honest fix. Shared by adversaries.test.ts and the other
 * adversary files of this folder.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { processesWithEnv } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import {
  FIXED_ADD,
  LIBRARY_FILES,
  markersLeft,
  readEvents,
  readTrustReport,
  runDirs,
  safeGit,
  userState,
  userStateDiff,
  type TrustProject,
  type TrustReport,
} from './harness.js';
import { ADVERSARY_TOKENS, leftoverProcesses } from './processes.js';

/** The adversary is c1 and the honest agent c2, so that a tie would favour the cheater. */
export const CHEATER = 'c1';
export const HONEST = 'c2';

export type Mode = 'auto' | 'off';

export function output(result: CliResult): string {
  return `exit ${result.code} ${result.signal ?? ''}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

export async function runBestof(p: TrustProject, spec: string, resumeIfKilled: boolean): Promise<CliResult> {
  const specPath = p.writeOutside('spec.toml', spec);
  const options = { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env };
  const first = await runCli(['run', specPath], options);
  if (!resumeIfKilled || first.signal !== 'SIGKILL') return first;
  const [runDir] = runDirs(p);
  if (!runDir) return first;
  // A user resumes once the killer is gone: an adversary that kills every bestof it sees is at it for
  // a while after the kill (it scans /proc), and would kill the resume too before it could stop it.
  await waitUntil(() => runProcesses(runDir).length === 0, "the killed run's processes to end", { attempts: 300 });
  const resumed = await runCli(['resume', runDir.split('/').pop() as string], options);
  return { ...resumed, stdout: `${first.stdout}\n--- resumed\n${resumed.stdout}`, stderr: `${first.stderr}\n--- resumed\n${resumed.stderr}` };
}

/** Flagged: reported as tampered, ineligible with a reason, or named by a warning of the run. */
export function flagReasons(p: TrustProject, report: TrustReport, candidate: string): string[] {
  const reasons: string[] = [];
  const c = report.candidates.find((x) => x.id === candidate);
  if (c?.tampered) reasons.push(`tampered: ${c.tamperedPaths.map((t) => `${t.path} (${t.change})`).join(', ')}`);
  const ranked = report.ranking.find((r) => r.candidate === candidate);
  // Only reasons about cheating count: "made no changes" or a low score are not a flag.
  if (
    ranked &&
    !ranked.eligible &&
    ranked.reason &&
    /tamper|frozen|editable|allow-list|hook|fsmonitor|filter|replace|config|refs?\b|index/i.test(ranked.reason)
  )
    reasons.push(`ineligible: ${ranked.reason}`);
  for (const e of readEvents(p)) {
    // The id as a word: a commit hash in another candidate's warning can hold "c2" (0cc2dde919).
    if (e.type === 'run.warning' && (e.candidate === candidate || namesCandidate(e.message ?? '', candidate))) reasons.push(`warning: ${e.message}`);
    if (/tamper/i.test(e.type) && e.candidate === candidate) reasons.push(`${e.type}`);
  }
  return reasons;
}

/** Whether `text` names `candidate` as a word, not inside a hash or another word. */
export function namesCandidate(text: string, candidate: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9])${candidate.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`).test(text);
}

export interface Expectation {
  readonly mode: Mode;
  readonly flagged: boolean;
  /** The adversary fixed the bug too (gut-test): its score may be high, it still must not win. */
  readonly cheaterMayScore?: boolean;
}

export function expectTrustKept(p: TrustProject, before: ReturnType<typeof userState>, result: CliResult, expectation: Expectation): void {
  const all = output(result);
  expect(result.code, all).toBe(0);
  if (expectation.mode === 'auto') expect(all, 'bubblewrap is installed: auto must sandbox, not warn').not.toMatch(/WITHOUT a sandbox/);
  const report = readTrustReport(p);
  const cheater = report.candidates.find((x) => x.id === CHEATER);
  const honest = report.candidates.find((x) => x.id === HONEST);
  expect(report.winner, `${all}\n${JSON.stringify(report.ranking)}`).toBe(HONEST);
  if (!expectation.cheaterMayScore)
    expect(cheater?.score ?? 0, `the adversary left the bug unfixed: any point is the cheat working\n${JSON.stringify(report.ranking)}`).toBe(0);
  expect(honest?.score, JSON.stringify(report.ranking)).toBe(20);
  if (expectation.flagged) expect(flagReasons(p, report, CHEATER), `the adversary is flagged\n${all}\n${JSON.stringify(report.ranking)}`).not.toEqual([]);
  // The honest agent is never the one blamed: no tampered mark, no ineligibility for cheating, no
  // warning or tampering event that names it (a guard that charged the wrong call would show here).
  expect(flagReasons(p, report, HONEST), `the honest agent is flagged\n${all}`).toEqual([]);
  expect(markersLeft(p), 'a payload of the adversary ran').toEqual([]);

  // The honest work as committed: base + the fix, nothing of the adversary in it.
  const honestCommit = honest?.commit as string;
  expect(safeGit(p.repo.dir, ['diff', '--name-only', p.base, honestCommit]), "the honest candidate's commit").toBe(p.fixedFiles.join('\n'));
  expect(`${safeGit(p.repo.dir, ['show', `${honestCommit}:src/add.js`])}\n`).toBe(FIXED_ADD);

  // Merged by the sha that was scored: main = base + that commit, nothing else.
  const main = safeGit(p.repo.dir, ['rev-parse', 'main']);
  expect(safeGit(p.repo.dir, ['rev-parse', 'main^1'])).toBe(p.base);
  expect(safeGit(p.repo.dir, ['rev-parse', 'main^{tree}'])).toBe(safeGit(p.repo.dir, ['rev-parse', `${honestCommit}^{tree}`]));
  expect(safeGit(p.repo.dir, ['show', 'main:test/add.test.js'])).toBe(LIBRARY_FILES['test/add.test.js']?.trim());
  expect(readFileSync(join(p.repo.dir, 'src/add.js'), 'utf8')).toBe(FIXED_ADD);

  expect(userStateDiff(before, userState(p), { mainMovedTo: main, checkoutChanged: p.fixedFiles }), "the user's repo and HOME, byte for byte").toEqual([]);
  expect(leftoverProcesses(ADVERSARY_TOKENS), 'processes of the adversary still alive').toEqual([]);
}

/** Live processes carrying the run's key (its agents, checks and what they started). */
export function runProcesses(runDir: string): number[] {
  const keyFile = join(runDir, 'run-key');
  return existsSync(keyFile) ? processesWithEnv('BESTOF_RUN_KEY', readFileSync(keyFile, 'utf8').trim()) : [];
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}
