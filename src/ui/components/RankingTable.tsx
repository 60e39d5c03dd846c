import { Box } from 'ink';
import type { RankEntry } from '../../engine/record/run-types.js';
import { costIsKnown, type CandidateState } from '../../engine/record/run-state.js';
import { CHECK_GLYPH, checkMarks, checkStyle, formatScore, scoreStyle } from '../format/candidate.js';
import { formatElapsed, formatKnownCost } from '../format/numbers.js';
import { distinguishCell, distinguishDecided } from '../format/distinguish.js';
import { displayWidth, fit } from '../format/text.js';
import { voteCells, voteDecided } from '../format/vote.js';
import { useTheme } from '../hooks/useTheme.js';
import { candidateName, fitColumns, type ColumnSpec } from '../layout/columns.js';
import { listWindow } from '../layout/window.js';
import { selectionOrder, type UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';

type FixedId = 'rank' | 'name' | 'points' | 'vote' | 'combined' | 'distinguish' | 'cost' | 'time' | 'diff' | 'checks' | 'note';
type ColumnId = FixedId | `check:${string}`;

/** The row's note: winner, merge result, tampering, or why it can not win. */
function note(state: UiState, c: CandidateState, rank: RankEntry | undefined): { text: string; style: keyof Theme['status'] } {
  const choice = state.choice?.candidate === c.id ? state.choice : undefined;
  if (choice)
    return choice.ok === undefined
      ? { text: `merging (${choice.mode})…`, style: 'busy' }
      : { text: choice.ok ? `chosen by you: ${choice.message}` : `merge failed: ${choice.message}`, style: choice.ok ? 'ok' : 'error' };
  const parts: string[] = [];
  let style: keyof Theme['status'] = 'idle';
  if (state.run.winner === c.id) {
    parts.push(state.run.merge && !state.run.merge.ok ? 'winner (merge not done)' : 'winner');
    style = state.run.merge && !state.run.merge.ok ? 'warning' : 'ok';
  }
  if (c.tampered.length > 0) {
    parts.push('TAMPERED');
    style = 'warning';
  }
  // An eligible entry's reason says why it ranks below the one above (an unknown cost, say).
  if (rank?.reason) parts.push(rank.reason);
  else if (c.status === 'failed' || c.status === 'stopped' || c.status === 'cancelled') parts.push(`${c.status}${c.reason ? ` (${c.reason})` : ''}`);
  if (style === 'idle' && c.status === 'failed') style = 'error';
  return { text: parts.join(' · '), style };
}

function diffLabel(c: CandidateState, rank: RankEntry | undefined): string {
  if (!c.commit && (rank?.diffSize ?? 0) === 0) return '—';
  return `+${c.diff.insertions} -${c.diff.deletions}`;
}

/**
 * Columns: named check columns when they all fit, else one column of check glyphs. When a vote
 * decided, its two columns (vote score, combined place and score) come right after the points
 * and before everything but the name: they decided the ranking as much as the points did. So does
 * the distinguishing tests' column (each finalist's kept tests passed) when those tests decided.
 */
function planTable(state: UiState, width: number) {
  const run = state.run;
  const voted = voteDecided(run);
  const distinguished = distinguishDecided(run);
  const names = run.order.map((id) => run.candidates[id]).filter((c) => c !== undefined);
  const nameWidth = Math.min(24, Math.max(9, ...names.map((c) => displayWidth(candidateName(c)))));
  const diffWidth = Math.min(14, Math.max(4, ...names.map((c) => displayWidth(diffLabel(c, undefined)))));
  const base: ColumnSpec<ColumnId>[] = [
    { id: 'rank', width: 3 },
    { id: 'name', width: nameWidth },
    { id: 'points', width: Math.max(6, String(run.maxScore).length * 2 + 1) },
    ...(voted
      ? [
          { id: 'vote' as const, width: 4 },
          { id: 'combined' as const, width: Math.max(8, ...names.map((c) => displayWidth(voteCells(c).combined))) },
        ]
      : []),
    ...(distinguished
      ? [{ id: 'distinguish' as const, width: Math.max(TITLES.distinguish.length, ...names.map((c) => displayWidth(distinguishCell(run, c.id)))) }]
      : []),
    { id: 'cost', width: 7 },
    { id: 'time', width: 6 },
    { id: 'diff', width: diffWidth },
  ];
  const named: ColumnSpec<ColumnId>[] = run.checks.map((k) => ({ id: `check:${k.name}`, width: Math.min(10, Math.max(3, displayWidth(k.name))) }));
  const noteSpec: ColumnSpec<ColumnId> = { id: 'note', width: 8, flex: true };
  const first: ColumnId[] = ['rank', 'name', 'points', 'vote', 'combined', 'distinguish', 'note'];
  const withNames = fitColumns([...base, ...named, noteSpec], [...first, 'cost', ...named.map((c) => c.id), 'time', 'diff'], width);
  if (named.every((spec) => withNames.some((c) => c.id === spec.id))) return withNames;
  const glyphs: ColumnSpec<ColumnId> = { id: 'checks', width: run.checks.length === 0 ? 0 : Math.max(6, run.checks.length) };
  // The cost before the check glyphs: with a vote's two columns, a 60-column terminal has room for one of them.
  return fitColumns([...base, glyphs, noteSpec], [...first, 'cost', 'checks', 'time', 'diff'], width);
}

const TITLES: Record<FixedId, string> = {
  rank: '#',
  name: 'candidate',
  points: 'points',
  vote: 'vote',
  combined: 'combined',
  distinguish: 'tests',
  cost: 'cost',
  time: 'time',
  diff: 'diff',
  checks: 'checks',
  note: '',
};
const RIGHT_ALIGNED = new Set<ColumnId>(['points', 'vote', 'distinguish', 'cost', 'time']);

type TableColumn = ReturnType<typeof planTable>[number];

/** One cell of a candidate's row: one segment, or one per check glyph. */
function rowCell(state: UiState, c: CandidateState, col: TableColumn, theme: Theme): Segment[] {
  const run = state.run;
  const rank = run.ranking.find((r) => r.candidate === c.id);
  const text = (value: string, style?: Segment['style']): Segment[] => [{ text: fit(value, col.width, RIGHT_ALIGNED.has(col.id) ? 'right' : 'left'), style }];
  const marks = checkMarks(run.checks, c);
  if (col.id.startsWith('check:')) {
    const mark = marks.find((m) => `check:${m.name}` === col.id)?.mark ?? 'pending';
    return text(CHECK_GLYPH[mark], checkStyle(mark, theme));
  }
  switch (col.id as FixedId) {
    case 'rank':
      return text(rank ? `${rank.rank}.` : '—', theme.text.secondary);
    case 'name':
      return text(candidateName(c), c.id === state.selected ? theme.selection : theme.text.primary);
    case 'points':
      return text(formatScore(c), scoreStyle(c.score, run.scoreThreshold, theme));
    case 'vote':
      return text(voteCells(c).score, c.vote ? theme.text.primary : theme.text.secondary);
    case 'combined':
      return text(voteCells(c).combined, c.vote ? theme.text.primary : theme.text.secondary);
    case 'distinguish': {
      const cell = distinguishCell(run, c.id);
      return text(cell, cell === '-' ? theme.text.secondary : theme.text.primary);
    }
    case 'cost':
      return text(formatKnownCost(rank?.costUsd ?? c.costUsd, costIsKnown(c)), theme.text.secondary);
    case 'time':
      return text(formatElapsed(rank?.durationMs ?? c.durationMs), theme.text.secondary);
    case 'diff':
      return text(diffLabel(c, rank), theme.text.secondary);
    case 'checks':
      return [
        ...marks.map((m) => ({ text: CHECK_GLYPH[m.mark], style: checkStyle(m.mark, theme) })),
        { text: ' '.repeat(Math.max(0, col.width - marks.length)) },
      ];
    case 'note': {
      const n = note(state, c, rank);
      return text(n.text, theme.status[n.style]);
    }
  }
}

function rowSegments(state: UiState, c: CandidateState, columns: readonly TableColumn[], theme: Theme): Segment[] {
  const segments: Segment[] = [{ text: c.id === state.selected ? '› ' : '  ', style: theme.selection }];
  columns.forEach((col, i) => {
    if (i > 0) segments.push({ text: ' ' });
    segments.push(...rowCell(state, c, col, theme));
  });
  return segments;
}

/**
 * The ranking and the check matrix in one table: a row per candidate, best first, with its
 * points, its vote score and combined place when a vote decided ("-" for a candidate the vote
 * did not judge), the distinguishing tests each finalist passed when they decided ("7/8"), cost,
 * time, diff size and a column per check (✓ passed, ✗ failed, · not run).
 */
export function RankingTable({ state, width, rows }: { readonly state: UiState; readonly width: number; readonly rows: number }) {
  const theme = useTheme();
  const run = state.run;
  const columns = planTable(state, width);
  const order = selectionOrder(run, 'compare', state.mode);
  const window = listWindow(order.length, state.selected === undefined ? 0 : order.indexOf(state.selected), rows);
  const heading: Segment[] = [{ text: '  ' }];
  columns.forEach((col, i) => {
    const title = col.id.startsWith('check:') ? col.id.slice('check:'.length) : TITLES[col.id as FixedId];
    heading.push({ text: `${i > 0 ? ' ' : ''}${fit(title, col.width, RIGHT_ALIGNED.has(col.id) ? 'right' : 'left')}`, style: theme.text.secondary });
  });
  const visible = order.slice(window.start, window.end);
  return (
    <Box flexDirection="column">
      <Line segments={heading} width={width} />
      {visible.map((id, i) => {
        const c = run.candidates[id];
        const hidden = i === 0 ? window.hiddenAbove : i === visible.length - 1 ? window.hiddenBelow : 0;
        if (hidden > 0 || !c)
          return <Line key={id} segments={[{ text: `  ${i === 0 ? '↑' : '↓'} ${hidden + 1} more`, style: theme.text.secondary }]} width={width} />;
        return <Line key={id} segments={rowSegments(state, c, columns, theme)} width={width} />;
      })}
    </Box>
  );
}
