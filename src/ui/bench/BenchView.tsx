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
 * Every line is cut at the terminal's width, and the whole view is cut at the height it is
 * given, with a "… N more tasks" line when the tasks do not all fit. On a narrow terminal what
 * must be read whole goes over more lines instead: the agents' names, the legend, the footer.
 */
import { trialLine } from '../bench-lines.js';
import { plural } from '../../engine/words.js';
import { Line, type Segment } from '../components/Line.js';
import { formatElapsed, formatKnownCost, UNKNOWN_COST } from '../format/numbers.js';
import { cut, displayWidth, fit, oneLine, wrapText } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { fitSegments } from '../layout/fit-parts.js';
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

function headerLines(state: BenchViewState, theme: Theme, now: number, width: number): Segment[][] {
  const status: Segment[] =
    state.finishedAt !== null
      ? [{ text: state.cancelled ? ' · cancelled' : ' · finished', style: state.cancelled ? theme.status.warning : theme.status.ok }]
      : state.cancelRequested
        ? [{ text: ' · cancelling', style: theme.status.warning }]
        : [];
  const elapsed = (state.finishedAt ?? now) - state.startedAt;
  const spent = formatKnownCost(state.costUsd, state.costKnown);
  const first: Segment[] = [
    { text: 'bestof bench ', style: theme.text.heading },
    { text: oneLine(state.bench), style: theme.text.accent },
    ...(state.shard ? [{ text: ` · shard ${state.shard.index}/${state.shard.count}`, style: theme.text.secondary }] : []),
    ...status,
    { text: ` · ${formatElapsed(elapsed)} · ` },
    { text: spent === UNKNOWN_COST ? 'cost not reported' : `${spent} spent`, style: theme.text.secondary },
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
  // On a narrow terminal the concurrency goes first, then the count of resumed trials: the counts and the ETA stay.
  const used = second.reduce((sum, segment) => sum + displayWidth(segment.text), 0);
  const extra = fitSegments<TextStyle>(
    [
      { text: `${state.concurrency} at a time`, style: theme.text.secondary, sep: ' · ', drop: 2 },
      { text: state.resumed > 0 ? `${state.resumed} resumed` : '', style: theme.text.secondary, sep: ' · ', drop: 1 },
    ],
    width - used - 3,
    theme.text.secondary,
  );
  if (extra.length > 0) second.push({ text: ' · ', style: theme.text.secondary }, ...extra);
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

/**
 * The agents' names over their columns: on one line when each fits its column, else on two,
 * every other name on the second, where each has its own column, the gap and the next column
 * (which is named on the other line): a name matters more than a straight line of them.
 */
function columnHeader(state: BenchViewState, theme: Theme, cols: Columns, width: number): Segment[][] {
  const names = state.matrix.agents.map((a) => oneLine(a.id));
  if (names.every((name) => displayWidth(name) <= cols.agent)) {
    return [
      [
        { text: fit('task', cols.task), style: theme.text.secondary },
        ...names.flatMap((name): Segment[] => [{ text: GAP }, { text: fit(name, cols.agent), style: theme.text.heading }]),
      ],
    ];
  }
  const step = GAP.length + cols.agent;
  return [0, 1].map((line) => {
    const segments: Segment[] = [{ text: fit(line === 0 ? 'task' : '', cols.task), style: theme.text.secondary }];
    let at = cols.task;
    names.forEach((name, i) => {
      if (i % 2 !== line) return;
      const start = cols.task + i * step + GAP.length;
      const room = i + 1 < names.length ? step + cols.agent : width - start;
      segments.push({ text: ' '.repeat(start - at) }, { text: cut(name, room), style: theme.text.heading });
      at = start + displayWidth(cut(name, room));
    });
    return segments;
  });
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

/** What each glyph means, over two lines (or more) on a narrow terminal, never between a glyph and its meaning. */
function legend(theme: Theme, width: number): Segment[][] {
  const entries: [CellMark, string][] = [
    ['resolved', 'resolved'],
    ['unresolved', 'not resolved'],
    ['infra', 'infra failure'],
    ['running', 'running'],
    ['waiting', 'waiting'],
    ['not-run', 'not run'],
  ];
  const lines: Segment[][] = [[]];
  let used = 0;
  for (const [mark, text] of entries) {
    const w = displayWidth(GLYPHS[mark]) + 1 + displayWidth(text);
    const line = lines[lines.length - 1] ?? [];
    if (used > 0 && used + 2 + w > width) {
      lines.push([]);
      used = 0;
    }
    const current = lines[lines.length - 1] ?? line;
    if (used > 0) current.push({ text: '  ' });
    current.push({ text: GLYPHS[mark], style: markStyle(mark, theme) }, { text: ` ${text}`, style: theme.text.secondary });
    used += (used > 0 ? 2 : 0) + w;
  }
  return lines;
}

/** The keys, or what the bench is doing at its end, wrapped (it says what to do next). */
function footer(state: BenchViewState, theme: Theme, width: number): Segment[][] {
  const wrapped = (text: string, style: TextStyle): Segment[][] => wrapText(text, width).map((line) => [{ text: line, style }]);
  if (state.finishedAt !== null) {
    // The reports are files, written once the view is gone: say where, not that they follow.
    if (!state.cancelled)
      return wrapped(
        `finished: ${plural(state.total, 'trial')} recorded; the reports (bench.md, junit.xml, bench.json) go to ${state.outDir}`,
        theme.status.ok,
      );
    let notRun = 0;
    for (const mark of state.marks.values()) if (mark === 'not-run') notRun += 1;
    return wrapped(`cancelled: ${plural(notRun, 'trial')} recorded "not run"; go on with --resume`, theme.status.warning);
  }
  if (state.cancelRequested) return wrapped('cancelling: running trials stop and keep their work; the rest are "not run"', theme.status.warning);
  return wrapped('q or Ctrl-C: cancel the bench', theme.text.secondary);
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
  return Math.max(index, 0);
}

/** Every line of the view, at most `height` of them, each cut to `width` by <Line>. */
export function benchViewLines(state: BenchViewState, theme: Theme, width: number, height: number, now: number): Segment[][] {
  if (!state.started) return [[{ text: 'bestof bench: starting…', style: theme.text.secondary }]];
  const cols = columnWidths(state, width);
  const tasks = state.matrix.tasks;
  const names = columnHeader(state, theme, cols, width);
  const glyphs = legend(theme, width);
  const end = footer(state, theme, width);
  // The header (2), a blank line and the column header; after the tasks the rates and the legend; a blank line and the footer.
  const fixed = 2 + 1 + names.length + 1 + glyphs.length + 1 + end.length;
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
            return [
              { text: GLYPHS[mark], style: markStyle(mark, theme) },
              { text: ` ${oneLine(trialLine(r))}`, style: theme.text.secondary },
            ];
          }),
        ];
  const lines = [...headerLines(state, theme, now, width), [], ...names, ...taskLines, rateRow(state, theme, cols), ...glyphs, ...recentLines, [], ...end];
  return lines.slice(0, Math.max(1, height));
}

export function BenchView({
  state,
  width,
  height,
  now,
}: {
  readonly state: BenchViewState;
  readonly width: number;
  readonly height: number;
  readonly now: number;
}) {
  const theme = useTheme();
  return (
    <>
      {benchViewLines(state, theme, width, height, now).map((segments, i) => (
        <Line key={i} segments={segments} width={width} />
      ))}
    </>
  );
}
