/**
 * The matrix of a running bench, drawn from its folded state (./bench-state.ts): a header of
 * counts, one row per task with a column per agent (a glyph per trial), each agent's resolved
 * rate at the foot of its column, the last finished trials, and the keys.
 *
 * Tasks are rows and agents columns (not one row per task x agent) because that is the table
 * a bench is read as, the one bench.md prints: along a row the agents are compared on the same
 * task, and each agent's rate sits under its own column. It is also the shape that fits 80x24:
 * the height grows with the tasks only, the width with agents x trials, and 3 tasks x 4 agents
 * x 5 trials take 7 lines of 58 columns, which leaves room for the last trials' lines.
 *
 * Every line is cut at the terminal's width (never wrapped), and the whole view is cut at the
 * height it is given, with a "… N more tasks" line when the tasks do not all fit.
 */
import { trialLine } from '../bench-lines.js';
import { plural } from '../../engine/words.js';
import { Line, type Segment } from '../components/Line.js';
import { formatCost, formatElapsed } from '../format/numbers.js';
import { displayWidth, fit, oneLine } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import type { TextStyle, Theme } from '../theme.js';
import { cellKey, etaLeftMs, markOf, type BenchViewState, type CellMark } from './bench-state.js';

export const GLYPHS: Readonly<Record<CellMark, string>> = {
  resolved: '✓',
  unresolved: '✗',
  infra: '!',
  running: '◐',
  waiting: '·',
  'not-run': '–',
};

const GAP = '  ';
/** The last finished trials shown under the matrix when there is room. */
const RECENT_SHOWN = 5;
/** When the tasks do not all fit, the last trials keep at most this many lines. */
const RECENT_SHOWN_WHEN_TIGHT = 3;

export function markStyle(mark: CellMark, theme: Theme): TextStyle {
  switch (mark) {
    case 'resolved':
      return theme.status.ok;
    case 'unresolved':
      return theme.status.error;
    case 'infra':
      return theme.status.warning;
    case 'running':
      return theme.status.busy;
    case 'waiting':
    case 'not-run':
      return theme.status.idle;
    default: {
      const unreachable: never = mark;
      return unreachable;
    }
  }
}

/** "3/5 60%" of the trials that were not infra failures; "–" before the first. */
export function rateText(tally: { readonly resolved: number; readonly valid: number } | undefined): string {
  if (!tally || tally.valid === 0) return '–';
  return `${tally.resolved}/${tally.valid} ${Math.round((100 * tally.resolved) / tally.valid)}%`;
}

function headerLines(state: BenchViewState, theme: Theme, now: number): Segment[][] {
  const status: Segment[] =
    state.finishedAt !== null
      ? [{ text: state.cancelled ? ' · cancelled' : ' · finished', style: state.cancelled ? theme.status.warning : theme.status.ok }]
      : state.cancelRequested
        ? [{ text: ' · cancelling', style: theme.status.warning }]
        : [];
  const elapsed = (state.finishedAt ?? now) - state.startedAt;
  const first: Segment[] = [
    { text: 'bestof bench ', style: theme.text.heading },
    { text: oneLine(state.bench), style: theme.text.accent },
    ...(state.shard ? [{ text: ` · shard ${state.shard.index}/${state.shard.count}`, style: theme.text.secondary }] : []),
    ...status,
    { text: ` · ${formatElapsed(elapsed)} · ` },
    { text: `${formatCost(state.costUsd)} spent`, style: theme.text.secondary },
  ];
  const waiting = state.total - state.done - state.running;
  const second: Segment[] = [
    { text: `${state.done}/${state.total} done`, style: state.done > 0 ? theme.status.ok : theme.text.secondary },
    { text: ' · ' },
    { text: `${state.running} running`, style: state.running > 0 ? theme.status.busy : theme.text.secondary },
    { text: ' · ' },
    { text: `${waiting} waiting`, style: theme.text.secondary },
  ];
  if (state.finishedAt === null) {
    const left = etaLeftMs(state, now);
    second.push({ text: ' · ' }, { text: `ETA ${left === null ? '–' : formatElapsed(left)}`, style: theme.text.primary });
  }
  second.push({ text: ` · ${state.concurrency} at a time`, style: theme.text.secondary });
  if (state.resumed > 0) second.push({ text: ` · ${state.resumed} resumed`, style: theme.text.secondary });
  return [first, second];
}

interface Columns {
  readonly task: number;
  readonly agent: number;
}

/** The task column fits the longest id (up to 24); an agent's column its name, its rate and its trials, shrunk to share the width. */
function columnWidths(state: BenchViewState, width: number): Columns {
  const { tasks, agents, trials } = state.matrix;
  const task = Math.min(24, Math.max(displayWidth('resolved'), ...tasks.map((t) => displayWidth(oneLine(t.id)))));
  const most = tasks.length * trials;
  const rate = displayWidth(`${most}/${most} 100%`);
  const wanted = Math.max(trials, rate, ...agents.map((a) => displayWidth(oneLine(a.id))));
  const room = agents.length === 0 ? wanted : Math.floor((width - task) / agents.length) - GAP.length;
  return { task, agent: Math.max(trials, Math.min(wanted, room)) };
}

function columnHeader(state: BenchViewState, theme: Theme, cols: Columns): Segment[] {
  return [
    { text: fit('task', cols.task), style: theme.text.secondary },
    ...state.matrix.agents.flatMap((a): Segment[] => [{ text: GAP }, { text: fit(oneLine(a.id), cols.agent), style: theme.text.heading }]),
  ];
}

function taskRow(state: BenchViewState, theme: Theme, cols: Columns, taskId: string): Segment[] {
  const segments: Segment[] = [{ text: fit(oneLine(taskId), cols.task) }];
  for (const agent of state.matrix.agents) {
    segments.push({ text: GAP });
    for (let trial = 1; trial <= state.matrix.trials; trial++) {
      const mark = state.marks.get(cellKey({ task: taskId, agent: agent.id, trial }));
      // A cell of another shard's slice: blank, so that the columns stay where they are.
      segments.push(mark === undefined ? { text: ' ' } : { text: GLYPHS[mark], style: markStyle(mark, theme) });
    }
    segments.push({ text: ' '.repeat(Math.max(0, cols.agent - state.matrix.trials)) });
  }
  return segments;
}

function rateRow(state: BenchViewState, theme: Theme, cols: Columns): Segment[] {
  return [
    { text: fit('resolved', cols.task), style: theme.text.secondary },
    ...state.matrix.agents.flatMap((a): Segment[] => {
      const tally = state.agents.get(a.id);
      return [{ text: GAP }, { text: fit(rateText(tally), cols.agent), style: tally && tally.valid > 0 ? theme.text.primary : theme.text.secondary }];
    }),
  ];
}

function legend(theme: Theme): Segment[] {
  const entry = (mark: CellMark, text: string, last = false): Segment[] => [
    { text: GLYPHS[mark], style: markStyle(mark, theme) },
    { text: ` ${text}${last ? '' : '  '}`, style: theme.text.secondary },
  ];
  return [
    ...entry('resolved', 'resolved'),
    ...entry('unresolved', 'not resolved'),
    ...entry('infra', 'infra failure'),
    ...entry('running', 'running'),
    ...entry('waiting', 'waiting'),
    ...entry('not-run', 'not run', true),
  ];
}

function footer(state: BenchViewState, theme: Theme): Segment[] {
  if (state.finishedAt !== null) {
    if (!state.cancelled) return [{ text: `finished: ${plural(state.total, 'trial')} recorded; the reports follow below`, style: theme.status.ok }];
    let notRun = 0;
    for (const mark of state.marks.values()) if (mark === 'not-run') notRun += 1;
    return [{ text: `cancelled: ${plural(notRun, 'trial')} recorded "not run"; go on with --resume`, style: theme.status.warning }];
  }
  if (state.cancelRequested) return [{ text: 'cancelling: running trials stop and keep their work; the rest are "not run"', style: theme.status.warning }];
  return [{ text: 'q or Ctrl-C: cancel the bench', style: theme.text.secondary }];
}

/** The first task with a trial still to record: where the window over many tasks starts. */
function firstUnfinished(state: BenchViewState): number {
  const index = state.matrix.tasks.findIndex((t) =>
    state.matrix.agents.some((a) =>
      Array.from({ length: state.matrix.trials }, (_, i) => state.marks.get(cellKey({ task: t.id, agent: a.id, trial: i + 1 }))).some(
        (m) => m === 'waiting' || m === 'running',
      ),
    ),
  );
  return index < 0 ? 0 : index;
}

/** Every line of the view, at most `height` of them, each cut to `width` by <Line>. */
export function benchViewLines(state: BenchViewState, theme: Theme, width: number, height: number, now: number): Segment[][] {
  if (!state.started) return [[{ text: 'bestof bench: starting…', style: theme.text.secondary }]];
  const cols = columnWidths(state, width);
  const tasks = state.matrix.tasks;
  // The header (2), a blank line and the column header; after the tasks the rates and the legend; a blank line and the footer.
  const fixed = 2 + 1 + 1 + 2 + 1 + 1;
  const room = Math.max(0, height - fixed);
  let recentShown = Math.min(RECENT_SHOWN, state.recent.length);
  let taskRoom = room - (recentShown > 0 ? recentShown + 1 : 0);
  if (tasks.length > taskRoom) {
    recentShown = Math.min(recentShown, RECENT_SHOWN_WHEN_TIGHT);
    taskRoom = room - (recentShown > 0 ? recentShown + 1 : 0);
    if (taskRoom < 2) {
      recentShown = 0;
      taskRoom = room;
    }
  }
  const taskLines: Segment[][] = [];
  if (tasks.length <= taskRoom) {
    for (const t of tasks) taskLines.push(taskRow(state, theme, cols, t.id));
  } else {
    const shown = Math.max(0, taskRoom - 1);
    const start = Math.min(firstUnfinished(state), tasks.length - shown);
    for (const t of tasks.slice(start, start + shown)) taskLines.push(taskRow(state, theme, cols, t.id));
    const above = start;
    const below = tasks.length - start - shown;
    const where = above > 0 && below > 0 ? ` (${above} above, ${below} below)` : above > 0 ? ' above' : '';
    taskLines.push([{ text: `… ${plural(above + below, 'more task')}${where}`, style: theme.text.secondary }]);
  }
  const recentLines: Segment[][] =
    recentShown === 0
      ? []
      : [
          [],
          ...state.recent.slice(-recentShown).map((r): Segment[] => {
            const mark = markOf(r);
            return [{ text: GLYPHS[mark], style: markStyle(mark, theme) }, { text: ` ${oneLine(trialLine(r))}`, style: theme.text.secondary }];
          }),
        ];
  const lines = [
    ...headerLines(state, theme, now),
    [],
    columnHeader(state, theme, cols),
    ...taskLines,
    rateRow(state, theme, cols),
    legend(theme),
    ...recentLines,
    [],
    footer(state, theme),
  ];
  return lines.slice(0, Math.max(1, height));
}

export function BenchView({ state, width, height, now }: { readonly state: BenchViewState; readonly width: number; readonly height: number; readonly now: number }) {
  const theme = useTheme();
  return (
    <>
      {benchViewLines(state, theme, width, height, now).map((segments, i) => (
        <Line key={i} segments={segments} width={width} />
      ))}
    </>
  );
}
