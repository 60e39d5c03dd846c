/**
 * The choice of front end, and what the Ink UI needs from the CLI side: the run's commands
 * (cancel through the run's AbortController; stop and message through the candidate's
 * channel file, like `bestof stop` and `bestof send`; choose another winner through the
 * engine's merge policy, recorded in the run's log) and diffs read with git. The UI itself
 * never imports the engine's coordinator or git; Ink and React are loaded with `import()`
 * (ui/load-ink-ui.ts) only when this decides that stdout and stdin are an interactive terminal.
 */
import { writeToChannel } from '../engine/loop/channel.js';
import type { RunEvent, RunEventListener } from '../engine/record/events.js';
import { applyMergePolicy } from '../engine/merge/merge-policy.js';
import { runIsAlive } from '../engine/record/run-lock.js';
import { reduceRunState, type RunState } from '../engine/record/run-state.js';
import { diffText } from '../git/history/diff.js';
import { currentBranch } from '../git/running/repo.js';
import { recordAfterRun } from '../report/after-run.js';
import type { DiffLoader, UiCommands, WinnerChoiceResult } from '../ui/commands.js';
import { wrapText } from '../ui/format/text.js';
import { loadInkUi } from '../ui/load-ink-ui.js';
import { formatEvent } from '../ui/plain-reporter.js';
import { printable } from '../printable.js';

// Where it is decided, apart, so that a command can ask before it loads this module.
export { wantsInteractiveUi } from './wants-interactive-ui.js';

export const loadDiff: DiffLoader = ({ repo, from, to }) => diffText(repo, from, to);

/**
 * Makes `candidateId` the winner by the engine's own merge code, into `into` (the checked-out
 * branch by default), and records the choice in the run's log as winner.chosen, with state.json
 * and the reports rewritten from it, so that `show`, `ls` and the reports name the winner the
 * user chose. The recorded event comes back for the UI to fold.
 */
export async function chooseWinner(run: RunState, candidateId: string, mode: RunState['mergeMode'], into: string | undefined): Promise<WinnerChoiceResult> {
  const candidate = run.candidates[candidateId];
  if (!candidate) return { ok: false, message: `no candidate ${candidateId} in run ${run.runId}` };
  if (!candidate.commit) return { ok: false, message: `${candidateId} has no commit to merge` };
  // `bestof show` of a run another bestof is still running: its record writer owns the files.
  if (run.status === 'running' && runIsAlive(run.runDir)) {
    return { ok: false, message: `run ${run.runId} is still running in another bestof process; nothing was merged: choose a winner once it has finished` };
  }
  const target = into ?? (await currentBranch(run.repo));
  // The scored commit by sha; the protected paths it was seen to change are reverted first.
  const merged = await applyMergePolicy({
    repoRoot: run.repo,
    mode,
    runId: run.runId,
    candidate: candidateId,
    label: candidate.label,
    branch: candidate.branch,
    commit: candidate.commit,
    baseCommit: run.baseCommit,
    keptRef: candidate.ref,
    revert: candidate.tampered,
    into: target,
  });
  const event: RunEvent = {
    t: new Date().toISOString(),
    type: 'winner.chosen',
    candidate: candidateId,
    previous: run.winner,
    mode,
    ok: merged.ok,
    ...(merged.commit ? { commit: merged.commit } : {}),
    branch: candidate.branch,
    message: merged.message,
    by: 'user',
  };
  try {
    await recordAfterRun(run.runDir, event);
  } catch (error) {
    // The merge happened (or not) whatever the record says: say both.
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: merged.ok,
      message: `${merged.message} (not recorded in the run folder ${run.runDir}: ${why}; \`bestof show\` still names the run's own winner)`,
      recorded: event,
    };
  }
  return { ok: merged.ok, message: merged.message, recorded: event };
}

/**
 * Prints the lines that close a run after the Ink UI, wrapped between words at the terminal's
 * width: the terminal would break them anywhere, a command to copy in the middle of a branch
 * name. A backquoted command stays on one line; one wider than the terminal gets a line of its
 * own and the terminal's own wrapping, which copies back as one line. Each line is printable
 * (src/printable.ts): a merge's message can name a file an agent made.
 */
export function writeClosingLines(text: string, out: { readonly columns?: number; write(chunk: string): unknown } = process.stdout): void {
  const width = out.columns;
  const lines = text
    .split('\n')
    .map(printable)
    .flatMap((line) => (width === undefined || width <= 0 ? [line] : wrapText(line, width, { long: 'keep' })));
  out.write(`${lines.join('\n')}\n`);
}

/** What the user chose in the compare view, for the exit code and the closing line. */
export interface UserChoice {
  readonly candidate: string;
  readonly ok: boolean;
  readonly message: string;
}

function userChoice(run: { readonly choice?: { readonly candidate: string; readonly ok?: boolean; readonly message?: string } }): UserChoice | undefined {
  const choice = run.choice;
  return choice && choice.ok !== undefined ? { candidate: choice.candidate, ok: choice.ok, message: choice.message ?? '' } : undefined;
}

export interface LiveFrontEnd {
  readonly listener: RunEventListener;
  /** After the run: waits until the user leaves the compare view, restores the terminal, prints a closing line. */
  finish(): Promise<UserChoice | undefined>;
  /** The run is being cancelled from outside (SIGINT, SIGTERM): say so, and close when it has ended. */
  cancelling(): void;
  /** Restores the terminal at once (an error, or quitting). */
  close(): void;
}

export interface LiveFrontEndOptions {
  readonly runDir: string;
  readonly budgetUsd: number | undefined;
  /** The branch a chosen winner is merged into (the plan's `into`). */
  readonly into: string | undefined;
  /** Cancels the run: the same AbortController as SIGINT. */
  readonly cancel: () => void;
  /** Ctrl-C while already cancelling: the same as a second SIGINT. */
  readonly quitNow: () => void;
  /** Where events go if the UI has closed before the run ends (so nothing is lost from view). */
  readonly fallback: RunEventListener;
}

export async function startLiveFrontEnd(options: LiveFrontEndOptions): Promise<LiveFrontEnd> {
  const { startLiveUi } = await loadInkUi();
  let lastFinished: RunEvent | undefined;
  const commands: UiCommands = {
    cancelRun: options.cancel,
    stopCandidate: (candidateId) => writeToChannel(options.runDir, candidateId, { kind: 'stop', text: 'stop requested from the dashboard' }),
    sendMessage: (candidateId, text) => writeToChannel(options.runDir, candidateId, { kind: 'message', text }),
    chooseWinner: (candidateId, mode) => chooseWinner(ui.store.getSnapshot().run, candidateId, mode, options.into),
  };
  const ui = startLiveUi({
    commands,
    loadDiff,
    budgetUsd: options.budgetUsd,
    onForceQuit: () => {
      ui.close();
      options.quitNow();
    },
  });
  return {
    listener(event) {
      if (event.type === 'run.finished') lastFinished = event;
      if (ui.isOpen()) ui.onEvent(event);
      else options.fallback(event);
    },
    async finish() {
      await ui.closed;
      const choice = userChoice(ui.store.getSnapshot());
      if (lastFinished) writeClosingLines(formatEvent(lastFinished));
      if (choice) writeClosingLines(`winner chosen in the compare view: ${choice.candidate}: ${choice.message}`);
      return choice;
    },
    cancelling: () => ui.store.dispatch({ type: 'cancel-requested' }),
    close: () => ui.close(),
  };
}

/** `bestof show` on a terminal: the compare view of a finished run. */
export async function reviewRunInTerminal(run: RunState): Promise<UserChoice | undefined> {
  const { reviewRun } = await loadInkUi();
  let choice: UserChoice | undefined;
  // The run as recorded so far: a second choice names the first as the winner it replaces.
  let current = run;
  await reviewRun(run, {
    commands: {
      chooseWinner: async (candidateId, mode) => {
        const result = await chooseWinner(current, candidateId, mode, undefined);
        if (result.recorded) current = reduceRunState(current, result.recorded);
        choice = { candidate: candidateId, ok: result.ok, message: result.message };
        return result;
      },
    },
    loadDiff,
  });
  if (choice) writeClosingLines(`winner chosen in the compare view: ${choice.candidate}: ${choice.message}`);
  return choice;
}
