/**
 * The matrix order: the one order of cells that shards slice, merged records are sorted in and
 * reports list. Tasks in the spec's order, then agents in the spec's order, then trials 1..n:
 * the order a reader of the spec expects, and one that does not depend on when a trial ended.
 */
import type { BenchMatrix, Cell } from './types.js';

/** Every cell of the matrix, in matrix order. */
export function allCells(matrix: BenchMatrix): Cell[] {
  return matrix.tasks.flatMap((task) =>
    matrix.agents.flatMap((agent) => Array.from({ length: matrix.trials }, (_, i) => ({ task: task.id, agent: agent.id, trial: i + 1 }))),
  );
}

/** A cell as messages name it: `fix-login/claude-sonnet#2`. Also the key of maps of cells. */
export function cellLabel(cell: Cell): string {
  return `${cell.task}/${cell.agent}#${cell.trial}`;
}

/**
 * A cell's position in matrix order, or -1 when the matrix has no such cell (an unknown task or
 * agent, a trial out of 1..trials).
 */
export function cellIndex(matrix: BenchMatrix, cell: Cell): number {
  const task = matrix.tasks.findIndex((t) => t.id === cell.task);
  const agent = matrix.agents.findIndex((a) => a.id === cell.agent);
  if (task < 0 || agent < 0 || !Number.isInteger(cell.trial) || cell.trial < 1 || cell.trial > matrix.trials) return -1;
  return (task * matrix.agents.length + agent) * matrix.trials + (cell.trial - 1);
}

/** At most `max` labels, then how many more: long lists of cells stay one readable line. */
export function listCells(cells: readonly Cell[], max = 10): string {
  const shown = cells.slice(0, max).map(cellLabel).join(', ');
  return cells.length > max ? `${shown} and ${cells.length - max} more` : shown;
}
