/**
 * The dashboard's columns for a terminal width. Columns have fixed widths computed once from
 * the run (the longest label, the number of checks), so rows line up and never move as
 * values change; a narrow terminal drops whole columns, least useful first, and the
 * activity column takes what is left. A row is never wider than the terminal.
 */
import type { RunState } from '../../engine/record/run-state.js';
import { displayWidth } from '../format/text.js';

export type ColumnId = 'name' | 'provider' | 'state' | 'iteration' | 'bar' | 'score' | 'checks' | 'cost' | 'tokens' | 'elapsed' | 'activity';

export interface Column {
  readonly id: ColumnId;
  readonly width: number;
  readonly title: string;
  readonly align: 'left' | 'right';
}

/** The selection marker before every row ("› "). */
export const MARKER_WIDTH = 2;
const GAP = 1;
const MIN_ACTIVITY = 16;
export const BAR_WIDTH = 10;
/** One glyph per check, up to this many; more checks show as "7/9". */
export const MAX_CHECK_GLYPHS = 12;

/** Left to right on screen. */
const DISPLAY_ORDER: readonly ColumnId[] = ['name', 'provider', 'state', 'iteration', 'bar', 'score', 'checks', 'cost', 'tokens', 'elapsed', 'activity'];
/** Most useful first: a narrow terminal keeps a prefix of this list (that fits). */
const PRIORITY: readonly ColumnId[] = ['name', 'state', 'score', 'cost', 'elapsed', 'iteration', 'activity', 'bar', 'checks', 'provider', 'tokens'];

const TITLES: Record<ColumnId, string> = {
  name: 'candidate',
  provider: 'agent',
  state: 'state',
  iteration: 'iter',
  bar: 'score',
  score: 'points',
  checks: 'checks',
  cost: 'cost',
  tokens: 'tokens',
  elapsed: 'time',
  activity: 'activity',
};

const RIGHT_ALIGNED = new Set<ColumnId>(['score', 'cost', 'tokens', 'elapsed']);

export function candidateName(c: { readonly id: string; readonly label: string }): string {
  return c.label && c.label !== c.id ? `${c.id} ${c.label}` : c.id;
}

export function agentName(c: { readonly provider: string; readonly model: string | undefined }): string {
  return c.model ? `${c.provider}/${c.model}` : c.provider;
}

/** Natural widths, from the whole run (not from the values of the moment), so they never change mid-run. */
export function naturalWidths(run: RunState): Record<Exclude<ColumnId, 'activity'>, number> {
  const candidates = run.order.map((id) => run.candidates[id]).filter((c) => c !== undefined);
  const longest = (texts: string[], min: number, max: number): number => Math.min(max, Math.max(min, ...texts.map(displayWidth)));
  const maxPoints = String(Math.max(run.maxScore, ...candidates.map((c) => c.maxScore)));
  return {
    name: longest(candidates.map(candidateName), 9, 24),
    provider: longest(candidates.map(agentName), 5, 18),
    state: 11,
    iteration: Math.max(4, String(run.maxIterations).length * 2 + 1),
    bar: BAR_WIDTH,
    score: Math.max(6, maxPoints.length * 2 + 1),
    checks: run.checks.length === 0 ? 0 : Math.max(6, Math.min(run.checks.length, MAX_CHECK_GLYPHS)),
    cost: 7,
    tokens: 6,
    elapsed: 5,
  };
}

export interface ColumnSpec<Id extends string> {
  readonly id: Id;
  /** Columns; for the flexible column, its minimum. */
  readonly width: number;
  /** The one column that takes the width left over. */
  readonly flex?: boolean;
}

/**
 * Keeps, in priority order, every column that still fits in `totalWidth` (after `lead`
 * columns of row prefix and one space between columns); the flexible column grows into what
 * is left. Returns the kept columns in display order with their widths.
 */
export function fitColumns<Id extends string>(
  specs: readonly ColumnSpec<Id>[],
  priority: readonly Id[],
  totalWidth: number,
  lead = MARKER_WIDTH,
): { readonly id: Id; readonly width: number }[] {
  let used = lead;
  const chosen = new Map<Id, number>();
  for (const id of priority) {
    const spec = specs.find((s) => s.id === id);
    if (!spec || spec.width <= 0) continue;
    const extra = (chosen.size > 0 ? GAP : 0) + spec.width;
    if (used + extra > totalWidth) continue;
    chosen.set(id, spec.width);
    used += extra;
  }
  const flex = specs.find((s) => s.flex && chosen.has(s.id));
  if (flex) chosen.set(flex.id, flex.width + (totalWidth - used));
  return specs.filter((s) => chosen.has(s.id)).map((s) => ({ id: s.id, width: chosen.get(s.id) ?? 0 }));
}

export function planColumns(run: RunState, totalWidth: number): readonly Column[] {
  const widths = naturalWidths(run);
  const specs = DISPLAY_ORDER.map((id) => (id === 'activity' ? { id, width: MIN_ACTIVITY, flex: true } : { id, width: widths[id] }));
  return fitColumns(specs, PRIORITY, totalWidth).map(({ id, width }) => ({ id, width, title: TITLES[id], align: RIGHT_ALIGNED.has(id) ? 'right' : 'left' }));
}
