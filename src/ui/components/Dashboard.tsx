import { Box } from 'ink';
import { useMemo } from 'react';
import { fit } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { planColumns } from '../layout/columns.js';
import { listWindow } from '../layout/window.js';
import { isBusy, type UiState } from '../state/ui-state.js';
import { CandidateRow } from './CandidateRow.js';
import { Header } from './Header.js';
import { Line, type Segment } from './Line.js';

/**
 * The live view: the header, column titles, and one row per candidate in the order the run
 * started them. Rows never move: a finished candidate keeps its row (docs/design/style.md suggests Ink's
 * <Static> for finished work, but here finished rows must stay selectable for their details
 * and in line with the others). When there are more candidates than lines, the list scrolls
 * with the selection.
 */
export function Dashboard({ state, width, height }: { readonly state: UiState; readonly width: number; readonly height: number }) {
  const theme = useTheme();
  const run = state.run;
  // Widths come from what run.started fixed (labels, checks, limits): the same columns, and the same
  // array, for the whole run, so that rows whose candidate did not change are not redrawn.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the parts of run that set the columns, not run itself (a new object on every event)
  const columns = useMemo(() => planColumns(run, width), [run.order, run.checks, run.maxScore, run.maxIterations, width]);
  const titles: Segment[] = [{ text: '  ' }];
  columns.forEach((column, i) => {
    titles.push({ text: `${i > 0 ? ' ' : ''}${fit(column.title, column.width, column.align)}`, style: theme.text.secondary });
  });
  const capacity = Math.max(1, height - 3);
  const selectedIndex = state.selected === undefined ? 0 : run.order.indexOf(state.selected);
  const window = listWindow(run.order.length, selectedIndex, capacity);
  const visible = run.order.slice(window.start, window.end);
  return (
    <Box flexDirection="column">
      <Header state={state} width={width} />
      <Line segments={titles} width={width} />
      {visible.map((id, i) => {
        const candidate = run.candidates[id];
        if (!candidate) return null;
        // The first or last line turns into "n more" when the list goes on past it (that row included).
        const more =
          i === 0 && window.hiddenAbove > 0 ? window.hiddenAbove + 1 : i === visible.length - 1 && window.hiddenBelow > 0 ? window.hiddenBelow + 1 : 0;
        if (more > 0) {
          const arrow = i === 0 ? '↑' : '↓';
          return <Line key={id} segments={[{ text: `  ${arrow} ${more} more`, style: theme.text.secondary }]} width={width} />;
        }
        const busy = isBusy(candidate.status);
        return (
          <CandidateRow
            key={id}
            candidate={candidate}
            checks={run.checks}
            maxIterations={run.maxIterations}
            scoreThreshold={run.scoreThreshold}
            columns={columns}
            width={width}
            selected={id === state.selected}
            now={busy ? state.now : 0}
            activeSince={state.activeSince[id]}
          />
        );
      })}
    </Box>
  );
}
