/**
 * The plain reporter: one readable line per event, for CI logs, pipes and `--no-tui`.
 * No colours, no cursor movement; every line starts with the time since the run started.
 * What an agent wrote (its output, its messages, its file names) is in these lines, so each
 * line is made printable (src/printable.ts): a sequence the terminal would obey, or a newline
 * that would start a forged line, is shown escaped.
 */
import { distinguishEventLine } from './format/distinguish.js';
import type { EventOf, RunEvent } from '../engine/record/events.js';
import { testCountsWords } from '../engine/record/test-report-words.js';
import { madeBinaryWords, plural } from '../engine/words.js';
import { printable } from '../printable.js';
import { voteEventLine } from './vote-lines.js';
import { formatDuration } from '../spec/duration.js';

const MAX_ACTIVITY = 160;

/** An event in words, safe to print: one line, or two for candidate.tampered. */
export function formatEvent(event: RunEvent): string {
  const said = eventWords(event);
  return typeof said === 'string' ? printable(said) : said.map(printable).join('\n');
}

/** An event in words, as written (the only event of two lines gives them apart). */
function eventWords(event: RunEvent): string | readonly string[] {
  switch (event.type) {
    case 'run.started':
      return `run ${event.runId} (${event.name}): ${plural(event.candidates.length, 'candidate')} on ${event.base} (${event.baseCommit.slice(0, 10)}), ${plural(event.checks.length, 'check')} worth ${plural(event.maxScore, 'point')}; run folder ${event.runDir}`;
    case 'run.resumed':
      return `resuming ${event.resumed.length > 0 ? event.resumed.join(', ') : 'no candidate'}${event.finished.length > 0 ? `; already finished: ${event.finished.join(', ')}` : ''}`;
    case 'candidate.status':
      return `${event.candidate} ${event.status}${event.iteration > 0 ? ` (iteration ${event.iteration}${event.phase ? `, phase ${event.phase}` : ''})` : ''}`;
    case 'candidate.waiting':
      return `${event.candidate} ${event.reason === 'rate_limited' ? 'rate-limited' : 'usage limit reached'}: waiting ${formatDuration(event.waitMs)} (attempt ${event.attempt}); this does not use up an iteration`;
    case 'channel.received':
      return event.kind === 'stop'
        ? `${event.candidate} received stop: it stops at this iteration boundary`
        : `${event.candidate} received a message for its next prompt: ${event.text}`;
    case 'review.finished':
      return `${event.candidate} review: ${event.verdict === 'lgtm' ? `LGTM (+${event.points})` : event.verdict === 'refuse' ? `REFUSE: ${event.reason ?? ''}` : `no verdict${event.reason ? ` (${event.reason})` : ''}`}`;
    case 'candidate.setup':
      return event.ok
        ? `${event.candidate} ready${event.copied.length > 0 ? ` (copied ${event.copied.join(', ')})` : ''}`
        : `${event.candidate} setup failed: ${event.message ?? ''}`;
    case 'candidate.setup_progress':
      return `${event.candidate} setup: ${event.text}`;
    case 'candidate.provider':
      return `${event.candidate} agent: ${event.kind} ${event.version ?? '(version unknown)'}${event.model ? `, model ${event.model}` : ''} — ${event.argv.join(' ')}`;
    case 'candidate.activity': {
      const text = event.text.replace(/\s+/g, ' ').trim();
      return `${event.candidate} | ${text.length > MAX_ACTIVITY ? `${text.slice(0, MAX_ACTIVITY - 1)}…` : text}`;
    }
    case 'provider.finished':
      return `${event.candidate} agent ${event.outcome} after ${formatDuration(event.durationMs)}${event.costUsd > 0 ? `, $${event.costUsd.toFixed(4)}` : ''}${event.message && event.outcome !== 'success' ? `: ${event.message}` : ''}`;
    case 'candidate.committed':
      return `${event.candidate} committed ${event.commit.slice(0, 10)} (${event.changedFiles} file${event.changedFiles === 1 ? '' : 's'})`;
    case 'check.finished':
      return checkLine(event);
    case 'candidate.tampered': {
      // Frozen paths (and the git dir) make a candidate unable to win; changes outside `editable` are only put back.
      const frozen = event.paths.filter((p) => (p.rule ?? 'frozen') === 'frozen');
      const outside = event.paths.filter((p) => p.rule === 'editable');
      const list = (paths: typeof event.paths) => paths.map((p) => `${p.path} (${p.change}${p.note ? `: ${p.note}` : ''})`).join(', ');
      return [
        ...(frozen.length > 0 ? [`${event.candidate} TAMPERED with frozen paths (put back for scoring): ${list(frozen)}`] : []),
        ...(outside.length > 0
          ? [`${event.candidate} changed files outside [checks] editable (put back for scoring and before any merge): ${list(outside)}`]
          : []),
      ];
    }
    case 'candidate.scored':
      return `${event.candidate} score ${event.score}/${event.maxScore}${event.reviewPoints ? ` (review +${event.reviewPoints})` : ''}${event.failedChecks.length > 0 ? ` (failed: ${event.failedChecks.join(', ')})` : ''}`;
    case 'candidate.finished':
      return `${event.candidate} ${event.status} (${event.reason}): score ${event.score}, ${event.iterations} iteration${event.iterations === 1 ? '' : 's'}, +${event.diff.insertions} -${event.diff.deletions} in ${event.diff.files} file${event.diff.files === 1 ? '' : 's'}${madeBinaryWords(event.diff) ? ` (${madeBinaryWords(event.diff)})` : ''}${event.message ? ` — ${event.message}` : ''}`;
    case 'selection.finished':
      return `ranking: ${event.ranking.map((r) => `${r.rank}. ${r.candidate} ${r.score}/${r.maxScore}${r.reason ? ` (${r.reason})` : ''}`).join(', ')} — ${event.message}`;
    case 'merge.started':
      return `merging ${event.candidate} (${event.mode})${event.into ? ` into ${event.into}` : ''}`;
    case 'merge.finished':
      return `${event.ok ? 'merge' : 'merge NOT done'} (${event.mode}): ${event.message}`;
    case 'winner.chosen': {
      const instead = event.previous === undefined ? '' : event.previous === event.candidate ? '' : ` instead of ${event.previous}`;
      return event.ok
        ? `winner chosen by you in the compare view: ${event.candidate}${instead} (${event.mode}): ${event.message}`
        : `${event.candidate} chosen by you in the compare view, but the merge was NOT done (${event.mode}): ${event.message}${event.previous ? `; the winner is still ${event.previous}` : ''}`;
    }
    case 'run.warning':
      return `warning: ${event.candidate ? `${event.candidate}: ` : ''}${event.message}`;
    case 'run.stopping_others':
      return `${event.candidate} reached the threshold with ${plural(event.score, 'point')} and can win: ${event.stopping.length > 0 ? `${event.stopping.join(', ')} finish their current step and start no new iteration` : 'no other candidate is still running'} (select.stop_others = "on_threshold")`;
    case 'reference.started':
      return `base: running ${event.checks.join(', ')} on base for the tests each must pass (beside the agents)`;
    case 'reference.finished':
      return event.error !== undefined
        ? `base: ${event.error}`
        : `base${event.cached ? ' (cached)' : ''}: ${event.checks.map((c) => `${c.name} ran ${plural(c.tests, 'test')}, ${c.failing} failing (the task's targets)`).join('; ')}`;
    case 'run.finished':
      return `run ${event.status} in ${formatDuration(event.durationMs)} (exit ${event.exitCode}): ${event.message}`;
    case 'vote.started':
    case 'vote.call':
    case 'vote.finished':
    case 'vote.skipped':
      return voteEventLine(event);
    case 'distinguish.started':
    case 'distinguish.tester':
    case 'distinguish.cross':
    case 'distinguish.run':
    case 'distinguish.finished':
    case 'distinguish.skipped':
      return distinguishEventLine(event);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/**
 * "c1 check tests: FAIL: 3 of 50 tests failed (0/10, 2s)": with a test report, what its tests came
 * to (its failure's words, or its counts when it passed) beside the points.
 */
function checkLine(event: EventOf<'check.finished'>): string {
  const check = event.check;
  const mark = check.passed ? 'pass' : check.timedOut ? 'TIMEOUT' : 'FAIL';
  const failure = check.report?.failure;
  const tests = check.report ? (check.passed ? `, ${testCountsWords(check.report)}` : failure ? `: ${failure}` : '') : '';
  return `${event.candidate} check ${check.name}${check.hidden ? ' (hidden)' : ''}: ${mark}${tests} (${check.points}/${check.maxPoints}, ${formatDuration(check.durationMs)})`;
}

export function createPlainReporter(write: (line: string) => void): (event: RunEvent) => void {
  return (event) => write(`${formatEvent(event)}\n`);
}
