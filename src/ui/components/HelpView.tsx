import { Box } from 'ink';
import { fit, wrapText } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import type { Capabilities } from '../state/keys.js';
import { runIsOver, type UiState } from '../state/ui-state.js';
import { Line, type Segment } from './Line.js';
import { plural } from '../../engine/words.js';

/** The screens with keys of their own: the run going (the dashboard and a candidate's details), the compare view, and a candidate's details once the run is over. */
type Screen = 'running' | 'compare' | 'details';

interface KeyHelp {
  readonly key: string;
  readonly what: string;
  /** The command the key needs (left out when the front end was not given it). */
  readonly needs?: keyof Capabilities;
  readonly on: readonly Screen[];
  /** Only for a run with a vote. */
  readonly vote?: boolean;
}

/**
 * The keys of the screen `?` was pressed on. The same letters mean different things on
 * different screens (j and k select a candidate on the dashboard and in a candidate's details,
 * and scroll the diff in the compare view), so one list for all would say two things about each.
 */
const KEYS: readonly KeyHelp[] = [
  { key: '↑ ↓  (k j)', what: 'select a candidate', on: ['running', 'details'] },
  { key: '↑ ↓', what: 'select a candidate', on: ['compare'] },
  { key: 'enter', what: "the selected candidate's details: iterations, checks, activity", on: ['running', 'compare'] },
  { key: 'esc / backspace', what: 'back to the list', on: ['running'] },
  { key: 'esc / backspace', what: 'back to the ranking', on: ['details'] },
  { key: 's', what: 'stop the selected candidate (its work is kept)', needs: 'stop', on: ['running'] },
  { key: 'm', what: 'type a message for its next prompt', needs: 'message', on: ['running'] },
  { key: 'q / Ctrl-C', what: 'cancel the run (asks first)', on: ['running'] },
  { key: 'Ctrl-C twice', what: 'while cancelling: quit at once', on: ['running'] },
  { key: 'j k', what: 'scroll the diff (or the vote) by a line', on: ['compare'] },
  { key: 'space b', what: 'scroll the diff (or the vote) by a page', on: ['compare'] },
  { key: 'n / p', what: 'next / previous file of the diff', on: ['compare'] },
  { key: 'v', what: 'the vote about the selected candidate, or its diff again', on: ['compare'], vote: true },
  { key: 'w', what: 'merge the selected candidate as the winner (asks first)', needs: 'chooseWinner', on: ['compare', 'details'] },
  { key: 'q / Ctrl-C', what: 'quit', on: ['compare', 'details'] },
  { key: '?', what: 'this list', on: ['running', 'compare', 'details'] },
];

const HEADINGS: Record<Screen, string> = {
  running: 'Keys while the run goes',
  compare: 'Keys of the compare view',
  details: "Keys of a candidate's details",
};

/** Columns of the key, before what it does. */
const KEY_COLUMN = 18;

/**
 * The keys, one per line; on a narrow terminal what a key does goes on over more lines, under
 * its first, rather than losing its end. A screen too short for the whole list ends with how
 * many keys are left out.
 */
export function HelpView({
  state,
  width,
  height,
  capabilities,
}: {
  readonly state: UiState;
  readonly width: number;
  readonly height: number;
  readonly capabilities: Capabilities;
}) {
  const theme = useTheme();
  const screen: Screen = !runIsOver(state) ? 'running' : state.view === 'detail' ? 'details' : 'compare';
  const keys = KEYS.filter((k) => k.on.includes(screen) && (k.needs === undefined || capabilities[k.needs]) && (!k.vote || state.run.vote !== undefined));
  const lines: Segment[][] = [[{ text: HEADINGS[screen], style: theme.text.heading }]];
  const room = Math.max(8, width - KEY_COLUMN);
  for (const [i, { key, what }] of keys.entries()) {
    const wrapped = wrapText(what, room).map((text, j): Segment[] => [
      { text: j === 0 ? `  ${fit(key, KEY_COLUMN - 2)}` : ' '.repeat(KEY_COLUMN), style: theme.text.accent },
      { text },
    ]);
    const left = keys.length - i;
    // The last line says what is left out, when the rest does not fit.
    if (lines.length + wrapped.length > height - (left > 1 ? 1 : 0)) {
      if (lines.length < height) lines.push([{ text: `  … ${plural(left, 'more key')}: a taller terminal shows them`, style: theme.text.secondary }]);
      break;
    }
    lines.push(...wrapped);
  }
  return (
    <Box flexDirection="column">
      {lines.map((segments, i) => (
        <Line key={i} segments={segments} width={width} />
      ))}
    </Box>
  );
}
