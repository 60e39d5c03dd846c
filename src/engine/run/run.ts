/**
 * A run, from plan to record, as a list of stages. Read this first. (A stage is a step of the run;
 * a phase is a `[[prompts]]` entry inside a candidate's loop: ../loop/prompt-phases.ts.)
 *
 *   prepare        run folder, liveness mark, run.started (or run.resumed)
 *   candidates     every candidate's loop, concurrently (src/engine/loop/candidate.ts)
 *   final scoring  the complete frozen checks over every candidate's last commit
 *   vote           cross-review and anonymous vote (`[vote]`; skipped without it)
 *   distinguish    generated tests that tell the tied finalists apart (`[select.distinguish]`)
 *   selection      ranking and winner (src/engine/select/select.ts)
 *   merge          the winner merged, left on its branch, or proposed as a PR
 *   finish         worktrees removed, run.finished with status and exit code
 *
 * Each stage is a function of the RunContext (./run-context.ts) that emits events; a stage
 * talks to the next only through the run's state, the fold of those events. After a cancel
 * the stages that would judge or merge are skipped and the run finishes as cancelled.
 *
 * The engine writes no record of its own: the event log, state.json and the reports are
 * listeners (src/report/run-record.ts) that the CLI wires up beside the front end. Whatever
 * happens, every candidate's work is committed and kept under refs/bestof/<run>/<candidate>/kept.
 */
import type { RunEventListener } from '../record/events.js';
import type { RunPlan } from '../plan/plan.js';
import { isDiskFull } from '../../process/disk-full.js';
import { createRunContext, readRunSecrets, type RunContext } from './run-context.js';
import type { SecretSet } from '../sandbox/secrets.js';
import { runCandidates } from './stages/candidates.js';
import { finalScoring } from './stages/final-scoring.js';
import { finish } from './stages/finish.js';
import { merge } from './stages/merge.js';
import { prepareRun } from './stages/prepare.js';
import { selection } from './stages/selection.js';
import { vote } from './stages/vote.js';
import { distinguish } from './stages/distinguish.js';
import type { RunState } from '../record/run-state.js';

export { EXIT_CODES } from '../exit-codes.js';

export interface RunStage {
  readonly name: string;
  readonly run: (ctx: RunContext) => Promise<void>;
  /** Stages that judge or merge do not run once the run is cancelled. */
  readonly skippedWhenCancelled: boolean;
}

export const RUN_STAGES: readonly RunStage[] = [
  { name: 'prepare', run: prepareRun, skippedWhenCancelled: false },
  { name: 'candidates', run: runCandidates, skippedWhenCancelled: false },
  { name: 'final scoring', run: finalScoring, skippedWhenCancelled: true },
  { name: 'vote', run: vote, skippedWhenCancelled: true },
  { name: 'distinguish', run: distinguish, skippedWhenCancelled: true },
  { name: 'selection', run: selection, skippedWhenCancelled: true },
  { name: 'merge', run: merge, skippedWhenCancelled: true },
  { name: 'finish', run: finish, skippedWhenCancelled: false },
];

export interface ExecuteRunOptions {
  readonly signal: AbortSignal;
  /** Every consumer of the run's events: the record (event log, state.json, reports) and a front end. */
  readonly listeners?: readonly RunEventListener[];
  /** Continue an interrupted run: its state as folded from its event log. */
  readonly resume?: RunState;
  /** The run's secrets, when the caller needs them too (report.html). @default readRunSecrets */
  readonly secrets?: SecretSet;
}

export async function executeRun(plan: RunPlan, options: ExecuteRunOptions): Promise<RunState> {
  const secrets = options.secrets ?? (await readRunSecrets(plan, { signal: options.signal }));
  const ctx = createRunContext(plan, { signal: options.signal, listeners: options.listeners ?? [], resume: options.resume, secrets });
  for (const stage of RUN_STAGES) {
    if (stage.skippedWhenCancelled && ctx.signal.aborted) continue;
    try {
      await stage.run(ctx);
    } catch (error) {
      // A full disk stops the run (src/process/disk-full.ts): the stages that judge or merge are skipped,
      // finish still removes what it can and says how to resume. Anything else is a bug: thrown.
      if (stage.name === 'finish' || !isDiskFull(error)) throw error;
      ctx.stopRun(`the disk is full (${(error as Error).message}) during ${stage.name}`);
    }
  }
  return ctx.state();
}
