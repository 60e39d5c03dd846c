import { Box } from 'ink';
import { costIsKnown } from '../../engine/record/run-state.js';
import { reviewText } from '../format/candidate.js';
import { distinguishSummary } from '../format/distinguish.js';
import { formatElapsed, formatKnownCost } from '../format/numbers.js';
import { cut, oneLine, wrapText } from '../format/text.js';
import { voteSummary } from '../format/vote.js';
import { useTheme } from '../hooks/useTheme.js';
import { candidateName } from '../layout/columns.js';
import { fitSegments } from '../layout/fit-parts.js';
import type { UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { DiffPane } from './DiffPane.js';
import { Line, type Segment } from './Line.js';
import { RankingTable } from './RankingTable.js';
import { toneStyle, VotePane } from './VotePane.js';

/**
 * The title line, the table heading, the reviews line (the vote's summary in a run with a vote)
 * and the diff's two header lines (the vote pane's, when it is shown instead); the outcome's
 * lines (./compareOutcome) and the distinguishing tests' line (compareTopLines) come on top.
 */
const FIXED_LINES = 5;

/** The outcome of the run (the merge's result, with the command to merge a kept branch) takes at most this many lines. */
const MAX_OUTCOME_LINES = 3;

/**
 * The outcome under the title, wrapped rather than cut: the merge's result names the command
 * the user runs next (`git merge bestof/...`), and it must be read whole at any width.
 */
export function compareOutcome(run: UiState['run'], width: number): string[] {
  const outcome = oneLine(run.merge?.message ?? run.message ?? run.selectionMessage ?? '');
  const lines = wrapText(outcome, width);
  return lines.length <= MAX_OUTCOME_LINES ? lines : [...lines.slice(0, MAX_OUTCOME_LINES - 1), cut(lines.slice(MAX_OUTCOME_LINES - 1).join(' '), width)];
}

/**
 * The lines the compare view takes above the table's share beyond FIXED_LINES: the outcome's, and
 * the distinguishing tests' line in a run with that step. App sizes the diff's page from it too.
 */
export function compareTopLines(run: UiState['run'], width: number): number {
  return compareOutcome(run, width).length + (run.distinguish ? 1 : 0);
}

/** How the compare view splits its height between the ranking table and the diff. */
export function compareHeights(candidates: number, height: number, topLines = 1): { readonly tableRows: number; readonly diffLines: number } {
  const room = Math.max(2, height - FIXED_LINES - topLines);
  const tableRows = Math.max(1, Math.min(candidates, Math.max(2, Math.floor(room / 2))));
  return { tableRows, diffLines: Math.max(1, room - tableRows) };
}

/**
 * The line between the table and the lower pane. In a run with a vote, the vote's summary
 * (./format/vote.ts) and the key to its pane (the footer's hints are the same for every run);
 * otherwise the review verdict of the selected candidate's latest reviewed iteration.
 */
function reviewLine(state: UiState, theme: Theme): Segment[] {
  const vote = state.run.vote;
  if (vote) {
    const key = state.comparePane === 'vote' ? 'v: diff' : vote.skipped ? 'v: in full' : 'v: ballots';
    return [
      { text: 'Vote', style: theme.text.heading },
      { text: ` (${key}): `, style: theme.text.secondary },
      ...voteSummary(vote).map((p) => ({ text: p.text, style: toneStyle(p.tone, theme) })),
    ];
  }
  const reviewed = state.run.order.some((id) => state.run.candidates[id]?.iterations.some((it) => it.review));
  if (!reviewed) return [{ text: 'Reviews and votes: none in this run', style: theme.text.secondary }];
  const c = state.selected === undefined ? undefined : state.run.candidates[state.selected];
  const latest = c ? [...c.iterations].reverse().find((it) => it.review) : undefined;
  if (!c || !latest?.review) return [{ text: `Review of ${c ? candidateName(c) : '—'}: none`, style: theme.text.secondary }];
  const style = latest.review.verdict === 'lgtm' ? theme.status.ok : latest.review.verdict === 'refuse' ? theme.status.error : theme.text.secondary;
  return [
    { text: `Review of ${candidateName(c)} (iteration ${latest.iteration}): `, style: theme.text.secondary },
    { text: reviewText(latest.review), style },
  ];
}

/**
 * The line under the table in a run with distinguishing tests (`[select.distinguish]`): the
 * sentence that says which rule decided ("c2 won: passed 7 of 8 distinguishing tests, c1 passed
 * 4"), or why the step did not decide. The table's `tests` column has each finalist's count.
 */
function distinguishLine(run: UiState['run'], theme: Theme): Segment[] {
  if (!run.distinguish) return [];
  const summary = distinguishSummary(run.distinguish);
  return [
    { text: 'Distinguishing tests', style: theme.text.heading },
    { text: ': ', style: theme.text.secondary },
    { text: oneLine(summary.text), style: summary.tone === 'warning' ? theme.status.warning : theme.text.primary },
  ];
}

/**
 * The end of a run: the outcome, the ranking with its check matrix (and the vote's columns when
 * a vote decided, the distinguishing tests' when they did), what the distinguishing tests decided,
 * the review verdict or the vote's summary, and the selected candidate's diff, or the vote about it.
 *
 * The vote takes the diff's place rather than lines of its own: `v` switches the lower pane
 * between the two. A vote has more to say about one candidate (a ballot per voter, pair
 * verdicts, a review per voter) than a few fixed lines hold, and lines taken from the diff
 * would shrink it in every run with a vote, at 80x24 to almost nothing; one summary line (the
 * old reviews line) stays on screen either way, so the result is never hidden. The pane has the
 * diff's height, so compareHeights (and the page size App derives from it) stays one rule.
 */
export function CompareView({ state, width, height }: { readonly state: UiState; readonly width: number; readonly height: number }) {
  const theme = useTheme();
  const run = state.run;
  const winner = run.winner ? run.candidates[run.winner] : undefined;
  // On a narrow terminal the merge mode goes first, then the run's id (the outcome and `bestof ls` say them).
  const title: Segment[] = [
    { text: 'bestof ', style: theme.text.heading },
    ...fitSegments<Segment['style']>(
      [
        { text: run.name, style: theme.text.accent },
        winner
          ? { text: `winner ${candidateName(winner)}`, style: theme.status.ok, sep: ' · ' }
          : { text: run.status.replace('_', ' '), style: theme.status.warning, sep: ' · ' },
        { text: formatElapsed(run.durationMs), style: theme.text.secondary, sep: ' · ', drop: 1 },
        { text: formatKnownCost(run.costUsd, costIsKnown(run)), style: theme.text.secondary, sep: ' · ' },
        { text: `merge = "${run.mergeMode}"`, style: theme.text.secondary, sep: ' · ', drop: 3 },
        { text: `run ${run.runId}`, style: theme.text.secondary, sep: ' · ', drop: 2 },
      ],
      width - 'bestof '.length,
      theme.text.secondary,
    ),
  ];
  const outcome = compareOutcome(run, width);
  const { tableRows, diffLines } = compareHeights(run.order.length, height, compareTopLines(run, width));
  const selected = state.selected === undefined ? undefined : run.candidates[state.selected];
  return (
    <Box flexDirection="column">
      <Line segments={title} width={width} />
      {outcome.map((line, i) => (
        <Line key={`outcome${i}`} segments={[{ text: line, style: run.merge && !run.merge.ok ? theme.status.warning : theme.text.secondary }]} width={width} />
      ))}
      <RankingTable state={state} width={width} rows={tableRows} />
      {run.distinguish ? <Line segments={distinguishLine(run, theme)} width={width} /> : null}
      <Line segments={reviewLine(state, theme)} width={width} />
      {selected && run.vote && state.comparePane === 'vote' ? (
        <VotePane state={state} vote={run.vote} candidate={selected} width={width} lines={diffLines} />
      ) : selected ? (
        <DiffPane state={state} candidate={selected} width={width} lines={diffLines} />
      ) : null}
    </Box>
  );
}
