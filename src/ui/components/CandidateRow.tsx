import { memo } from 'react';
import { costIsKnown, type CandidateState, type RunState } from '../../engine/record/run-state.js';
import {
  activitySummary,
  candidateElapsed,
  CHECK_GLYPH,
  checkMarks,
  checkStyle,
  formatScore,
  scoreBar,
  scoreStyle,
  statusGlyph,
  statusStyle,
} from '../format/candidate.js';
import { formatElapsed, formatKnownCost, formatTokens } from '../format/numbers.js';
import { fit } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { agentName, candidateName, MAX_CHECK_GLYPHS, type Column } from '../layout/columns.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';

export interface CandidateRowProps {
  readonly candidate: CandidateState;
  /** The run's check list, iteration limit and threshold (stable for the whole run, so memo works). */
  readonly checks: RunState['checks'];
  readonly maxIterations: number;
  readonly scoreThreshold: number;
  readonly columns: readonly Column[];
  readonly width: number;
  readonly selected: boolean;
  /** For the spinner and the elapsed time; pass 0 for a row that is not busy, so that it is not redrawn every tick. */
  readonly now: number;
  readonly activeSince: number | undefined;
}

function cell(column: Column, props: CandidateRowProps, theme: Theme): Segment[] {
  const c = props.candidate;
  const text = (value: string, style?: Segment['style'], alone = false): Segment[] => [{ text: fit(value, column.width, column.align), style, alone }];
  switch (column.id) {
    case 'name':
      return text(candidateName(c), props.selected ? theme.selection : theme.text.primary);
    case 'provider':
      return text(agentName(c), theme.text.secondary);
    case 'state':
      return text(`${statusGlyph(c.status, props.now)} ${c.status}`, statusStyle(c.status, theme), true);
    case 'iteration':
      return text(c.iteration > 0 ? `${c.iteration}/${props.maxIterations}` : '—', theme.text.secondary);
    case 'bar': {
      const bar = scoreBar(c.score, c.maxScore, props.scoreThreshold, column.width);
      return [
        { text: bar.filled, style: scoreStyle(c.score, props.scoreThreshold, theme) },
        { text: bar.track, style: theme.score.track },
      ];
    }
    case 'score':
      return text(formatScore(c), scoreStyle(c.score, props.scoreThreshold, theme));
    case 'checks': {
      const marks = checkMarks(props.checks, c);
      if (marks.length > MAX_CHECK_GLYPHS) return text(`${marks.filter((m) => m.mark === 'passed').length}/${marks.length}`, theme.text.secondary);
      return [
        ...marks.map((m) => ({ text: CHECK_GLYPH[m.mark], style: checkStyle(m.mark, theme) })),
        { text: ' '.repeat(Math.max(0, column.width - marks.length)) },
      ];
    }
    case 'cost':
      return text(
        c.iterations.some((it) => it.outcome !== undefined) || c.costUsd > 0 ? formatKnownCost(c.costUsd, costIsKnown(c)) : '—',
        theme.text.secondary,
      );
    case 'tokens':
      return text(c.usage.input + c.usage.output > 0 ? formatTokens(c.usage) : '—', theme.text.secondary);
    case 'elapsed': {
      const ms = candidateElapsed(c, props.now, props.activeSince);
      return text(ms === undefined ? '' : formatElapsed(ms), theme.text.secondary, true);
    }
    case 'activity': {
      const summary = activitySummary(c);
      const tone = { error: theme.status.error, warning: theme.status.warning, idle: theme.status.idle, normal: theme.text.primary };
      return text(summary.text, tone[summary.tone]);
    }
    default: {
      const unreachable: never = column.id;
      return unreachable;
    }
  }
}

/** One candidate, one line, the same columns in every row. */
export const CandidateRow = memo(function CandidateRow(props: CandidateRowProps) {
  const theme = useTheme();
  const segments: Segment[] = [{ text: props.selected ? '› ' : '  ', style: theme.selection }];
  props.columns.forEach((column, i) => {
    if (i > 0) segments.push({ text: ' ' });
    segments.push(...cell(column, props, theme));
  });
  return <Line segments={segments} width={props.width} />;
});
