import { costIsKnown } from '../../engine/record/run-state.js';
import { runElapsed } from '../format/candidate.js';
import { formatCost, formatElapsed, formatKnownCost, UNKNOWN_COST } from '../format/numbers.js';
import { displayWidth } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { fitSegments } from '../layout/fit-parts.js';
import { isBusy, isFinished, type UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';
import { plural } from '../../engine/words.js';

function spendSegments(state: UiState, theme: Theme): Segment[] {
  const spent = state.run.costUsd;
  // The front end's figure first: run.started of an older run may not carry the budget.
  const budget = state.budgetUsd ?? state.run.budget?.maxTotalCostUsd;
  const warnAt = state.run.budget?.warnAtUsd ?? (budget === undefined ? undefined : budget * 0.8);
  const warn = warnAt !== undefined && spent >= warnAt;
  const shown = formatKnownCost(spent, costIsKnown(state.run));
  if (budget === undefined)
    return [{ text: shown === UNKNOWN_COST ? 'cost not reported' : `${shown} spent`, style: warn ? theme.status.warning : theme.text.secondary }];
  const style = spent >= budget ? theme.status.error : warn ? theme.status.warning : theme.text.secondary;
  return [{ text: `${shown} of ${formatCost(budget)}`, style }];
}

function countSegments(state: UiState, theme: Theme, width: number): Segment[] {
  const statuses = state.run.order.map((id) => state.run.candidates[id]?.status ?? 'queued');
  const running = statuses.filter(isBusy).length;
  const waiting = statuses.filter((s) => s === 'queued').length;
  const done = statuses.filter(isFinished).length;
  const parts: Segment[] = [
    { text: `${running} running`, style: running > 0 ? theme.status.busy : theme.text.secondary },
    { text: ' · ' },
    { text: `${waiting} waiting`, style: theme.text.secondary },
    { text: ' · ' },
    { text: `${done} done`, style: done > 0 ? theme.status.ok : theme.text.secondary },
  ];
  const run = state.run;
  if (run.status === 'running' && statuses.length > 0 && done === statuses.length)
    parts.push({ text: ' · ranking, merging, cleaning up…', style: theme.status.busy });
  // The spec's limits are what a narrow terminal leaves out first.
  const limits = fitSegments<Segment['style']>(
    [
      { text: `threshold ${run.scoreThreshold}/${run.maxScore}`, style: theme.text.secondary, sep: ' · ', drop: 1 },
      { text: `up to ${plural(run.maxIterations, 'iteration')}`, style: theme.text.secondary, sep: ' · ', drop: 2 },
    ],
    width - parts.reduce((sum, p) => sum + displayWidth(p.text), 0) - 3,
    theme.text.secondary,
  );
  if (limits.length > 0) parts.push({ text: ' · ', style: theme.text.secondary }, ...limits);
  return parts;
}

/** Two lines: the run (name, clock, spend, id), then how many candidates run, wait, are done. */
export function Header({ state, width }: { readonly state: UiState; readonly width: number }) {
  const theme = useTheme();
  const run = state.run;
  const status =
    run.status === 'running'
      ? state.cancelRequested
        ? [{ text: ' · cancelling', style: theme.status.warning }]
        : []
      : [{ text: ` · ${run.status.replace('_', ' ')}`, style: run.status === 'winner' ? theme.status.ok : theme.status.warning }];
  // The run's id is what a narrow terminal leaves out first (`bestof ls` lists it), then the clock.
  const head: Segment[] = [{ text: 'bestof ', style: theme.text.heading }, { text: run.name || '…', style: theme.text.accent }, ...status];
  const first: Segment[] = [
    ...head,
    ...fitSegments<Segment['style']>(
      [
        { text: formatElapsed(runElapsed(state)), sep: ' · ', drop: 1 },
        ...spendSegments(state, theme).map((segment) => ({ ...segment, sep: ' · ' })),
        { text: run.runId ? `run ${run.runId}` : '', style: theme.text.secondary, sep: ' · ', drop: 2 },
      ],
      width - head.reduce((sum, p) => sum + displayWidth(p.text), 0) - 3,
    ).map((segment, i) => (i === 0 ? { ...segment, text: ` · ${segment.text}` } : segment)),
  ];
  return (
    <>
      <Line segments={first} width={width} />
      <Line segments={countSegments(state, theme, width)} width={width} />
    </>
  );
}
