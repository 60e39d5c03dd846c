import { Box } from 'ink';
import type { CandidateState } from '../../engine/record/run-state.js';
import type { VoteState } from '../../vote/record.js';
import { cut, displayWidth } from '../format/text.js';
import { votePaneLines, voteSettings, type VoteTone } from '../format/vote.js';
import { useTheme } from '../hooks/useTheme.js';
import { candidateName } from '../layout/columns.js';
import type { UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';

export function toneStyle(tone: VoteTone, theme: Theme): Segment['style'] {
  switch (tone) {
    case 'primary':
      return theme.text.primary;
    case 'secondary':
      return theme.text.secondary;
    case 'heading':
      return theme.text.heading;
    case 'warning':
      return theme.status.warning;
    case 'error':
      return theme.status.error;
    case 'ok':
      return theme.status.ok;
    default: {
      const unreachable: never = tone;
      return unreachable;
    }
  }
}

/** Words into lines of at most `width` columns (a word longer than that is cut). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (displayWidth(next) <= width) line = next;
    else {
      if (line !== '') lines.push(line);
      line = cut(word, width);
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The vote about the selected candidate, in the place of its diff (the same height: two header
 * lines, then `lines` lines that j k space b scroll): how the vote was run, its result, the
 * candidate's ballots, pair verdicts and cross-reviews (./format/vote.ts). Every line is cut
 * to the width, never wrapped, so the line count the scroll stops at is the one on screen;
 * a skipped vote's reason is the exception: it is all the pane has, and its fix is at the end.
 */
export function VotePane({
  state,
  vote,
  candidate,
  width,
  lines,
}: {
  readonly state: UiState;
  readonly vote: VoteState;
  readonly candidate: CandidateState;
  readonly width: number;
  readonly lines: number;
}) {
  const theme = useTheme();
  const all = votePaneLines(state.run, candidate.id);
  const room = Math.max(1, lines);
  const scroll = Math.max(0, Math.min(state.voteScroll, all.length - room));
  const shown = vote.skipped
    ? all.flatMap((l) => wrap(l.text, width).map((text) => ({ text, tone: l.tone }))).slice(0, room)
    : all.slice(scroll, scroll + room);
  const position = vote.skipped || all.length <= room ? '' : ` · lines ${scroll + 1}-${scroll + shown.length} of ${all.length} (j/k)`;
  const header: Segment[] = [
    { text: `Vote about ${candidateName(candidate)}`, style: theme.text.heading },
    { text: `${position} · v: back to the diff · report.md has the tally`, style: theme.text.secondary },
  ];
  return (
    <Box flexDirection="column">
      <Line segments={header} width={width} />
      <Line segments={[{ text: voteSettings(vote, state.run.voteCostUsd), style: theme.text.secondary }]} width={width} />
      {shown.map((line, i) => (
        <Line key={i} segments={[{ text: line.text === '' ? ' ' : line.text, style: toneStyle(line.tone, theme) }]} width={width} />
      ))}
    </Box>
  );
}
