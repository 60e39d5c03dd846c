import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState } from '../run-lookup.js';
import { runPlanned } from '../run-session.js';
import { runInsideForCopyOnWrite, withWorktreeMode } from '../worktree-mode.js';
import { formatSpecProblems } from '../../spec/errors.js';
import { loadSpec } from '../../spec/load.js';
import { readRunKey } from '../../engine/sandbox/leftovers.js';
import { planWithMergeChecks } from '../plan-or-explain.js';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { runIsAlive } from '../../engine/record/run-lock.js';
import { REPORT_HTML_FILE, REPORT_JSON_FILE, REPORT_MD_FILE, SPEC_FILE, STATE_FILE } from '../../engine/record/run-folder.js';
import type { RunState } from '../../engine/record/run-state.js';
import { printable } from '../../printable.js';
import { writeRunHtml } from '../../report/html/write-run-html.js';
import { writeReports } from '../../report/report-files.js';
import { writeFileAtomic } from '../../report/state-file.js';

/**
 * `bestof resume <run>`: continue a run that crashed, was killed, or was cancelled. Finished
 * candidates stay finished; the others continue from their last scored iteration, with what
 * they spent counted against the budget. A run that already finished is not run again.
 *
 * The event log is not taken on its word: before the final scoring, every finished
 * candidate's recorded commit is checked against its kept ref (which no sandboxed agent can
 * move) and the tree its score was given for; one that does not match is scored again at its
 * ref's commit, one whose kept ref is gone cannot win (src/engine/run/stages/final-scoring.ts
 * `verifyResumedRecord`, and the selection's own ref check).
 */
export async function resumeCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('resume', args);
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  if (runIsAlive(run.runDir)) {
    process.stderr.write(`bestof resume: run ${run.runId} is still running in another process; nothing to resume\n`);
    return EXIT_CODES.badInput;
  }
  const state = await loadRunState(run.runDir);
  if (state.status !== 'running' && state.status !== 'cancelled') {
    process.stdout.write(`run ${run.runId} already finished (${state.status}): ${printable(state.message ?? '')}\n`);
    const written = await writeMissingRecord(run.runDir, state);
    if (written.length > 0)
      process.stdout.write(
        `its record ended before its reports were written (bestof was killed in its last instant): wrote ${written.join(', ')} from its event log\n`,
      );
    process.stdout.write(`nothing to resume; see \`bestof show ${run.runId}\`\n`);
    return state.exitCode ?? 0;
  }
  // The run's own frozen copy of the spec, with paths relative to where the spec was.
  const loadResult = await loadSpec(join(run.runDir, SPEC_FILE), { baseDir: dirname(state.specPath) });
  if (!loadResult.ok) {
    process.stderr.write(`${formatSpecProblems(loadResult.error)}\nbestof resume: the run's spec no longer loads; nothing was resumed\n`);
    return EXIT_CODES.badInput;
  }
  const loaded = loadResult.value;
  if (!loaded.spec.loop.checkpoint) {
    process.stderr.write(`bestof resume: run ${run.runId} was started with loop.checkpoint = false; it cannot be resumed\n`);
    return EXIT_CODES.badInput;
  }
  // Copy-on-write worktrees: the rest happens in a mount namespace (../worktree-mode.ts).
  const inside = await runInsideForCopyOnWrite(loaded.spec);
  if ('exitCode' in inside) return inside.exitCode;
  const planned = await planWithMergeChecks(
    { spec: loaded.spec, specPath: state.specPath, specDir: loaded.specDir, source: loaded.source },
    // The run's key, so that the processes the interrupted run left running are found and stopped (runs made before keys existed get a new one).
    { runId: state.runId, baseCommit: state.baseCommit, runKey: readRunKey(run.runDir) },
  );
  if (!planned.ok) {
    for (const problem of planned.error) process.stderr.write(`${state.specPath}: ${problem}\n`);
    process.stderr.write('bestof resume: nothing was resumed.\n');
    return EXIT_CODES.badInput;
  }
  return runPlanned(withWorktreeMode(planned.value, inside.why), { json: values.json === true, noTui: values['no-tui'] === true, resume: state });
}

/**
 * What a run writes after its last event is logged (state.json's last snapshot, report.json and
 * report.md, then report.html): a kill -9 in that instant leaves a finished log without them.
 * Written now from the log, which holds every event; the names of the files written. A report
 * that cannot be written is said and skipped (`bestof show` rebuilds it from the log too).
 */
async function writeMissingRecord(runDir: string, state: RunState): Promise<string[]> {
  if (existsSync(join(runDir, REPORT_JSON_FILE)) && existsSync(join(runDir, REPORT_MD_FILE)) && existsSync(join(runDir, REPORT_HTML_FILE))) return [];
  const written: string[] = [];
  try {
    writeFileAtomic(join(runDir, STATE_FILE), JSON.stringify(state, null, 2));
    written.push(STATE_FILE);
    writeReports(runDir, state);
    written.push(REPORT_JSON_FILE, REPORT_MD_FILE);
  } catch (error) {
    process.stderr.write(`bestof resume: warning: cannot write the reports of run ${state.runId} (${(error as Error).message})\n`);
    return written;
  }
  const html = await writeRunHtml(runDir, state);
  if (html.ok) written.push(REPORT_HTML_FILE);
  else process.stderr.write(`bestof resume: warning: ${html.error}\n`);
  return written;
}
