import { Box } from 'ink';
import { reviewText } from '../format/candidate.js';
import { formatCost, formatElapsed } from '../format/numbers.js';
import { oneLine } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { candidateName } from '../layout/columns.js';
import type { UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { DiffPane } from './DiffPane.js';
import { Line, type Segment } from './Line.js';
import { RankingTable } from './RankingTable.js';

/** Lines above the table, plus the table heading, the reviews line and the diff's two header lines. */
const FIXED_LINES = 6;

/** How the compare view splits its height between the ranking table and the diff. */
export function compareHeights(candidates: number, height: number): { readonly tableRows: number; readonly diffLines: number } {
  const room = Math.max(2, height - FIXED_LINES);
  const tableRows = Math.max(1, Math.min(candidates, Math.max(2, Math.floor(room / 2))));
  return { tableRows, diffLines: Math.max(1, room - tableRows) };
}

/**
 * The review verdict of the selected candidate's latest reviewed iteration. This line is where
 * cross-review and anonymous votes go when they land.
 */
function reviewLine(state: UiState, theme: Theme): Segment[] {
  const reviewed = state.run.order.some((id) => state.run.candidates[id]?.iterations.some((it) => it.review));
  if (!reviewed) return [{ text: 'Reviews and votes: none in this run', style: theme.text.secondary }];
  const c = state.selected === undefined ? undefined : state.run.candidates[state.selected];
  const latest = c ? [...c.iterations].reverse().find((it) => it.review) : undefined;
  if (!c || !latest?.review) return [{ text: `Review of ${c ? candidateName(c) : '—'}: none`, style: theme.text.secondary }];
  const style = latest.review.verdict === 'lgtm' ? theme.status.ok : latest.review.verdict === 'refuse' ? theme.status.error : theme.text.secondary;
  return [{ text: `Review of ${candidateName(c)} (iteration ${latest.iteration}): `, style: theme.text.secondary }, { text: reviewText(latest.review), style }];
}

/**
 * The end of a run: the outcome, the ranking with its check matrix, a place for review
 * verdicts and votes (none yet in this version), and the selected candidate's diff.
 */
export function CompareView({ state, width, height }: { readonly state: UiState; readonly width: number; readonly height: number }) {
  const theme = useTheme();
  const run = state.run;
  const winner = run.winner ? run.candidates[run.winner] : undefined;
  const title: Segment[] = [
    { text: 'bestof ', style: theme.text.heading },
    { text: run.name, style: theme.text.accent },
    { text: ' · ' },
    winner ? { text: `winner ${candidateName(winner)}`, style: theme.status.ok } : { text: run.status.replace('_', ' '), style: theme.status.warning },
    { text: ` · ${formatElapsed(run.durationMs)} · ${formatCost(run.costUsd)} · merge = "${run.mergeMode}" · run ${run.runId}`, style: theme.text.secondary },
  ];
  const outcome = oneLine(run.merge?.message ?? run.message ?? run.selectionMessage ?? '');
  const { tableRows, diffLines } = compareHeights(run.order.length, height);
  const selected = state.selected === undefined ? undefined : run.candidates[state.selected];
  return (
    <Box flexDirection="column">
      <Line segments={title} width={width} />
      <Line segments={[{ text: outcome, style: run.merge && !run.merge.ok ? theme.status.warning : theme.text.secondary }]} width={width} />
      <RankingTable state={state} width={width} rows={tableRows} />
      <Line segments={reviewLine(state, theme)} width={width} />
      {selected ? <DiffPane state={state} candidate={selected} width={width} lines={diffLines} /> : null}
    </Box>
  );
}
