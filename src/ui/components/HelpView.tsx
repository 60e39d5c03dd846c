import { Box } from 'ink';
import { fit } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import type { Capabilities } from '../state/keys.js';
import { runIsOver, type UiState } from '../state/ui-state.js';
import { Line } from './Line.js';

interface KeyHelp {
  readonly key: string;
  readonly what: string;
  /** The command the key needs (left out when the front end was not given it). */
  readonly needs?: keyof Capabilities;
  /** While the run goes (the dashboard and its details), or once it is over (the compare view). */
  readonly when: 'running' | 'over' | 'always';
  /** Only for a run with a vote. */
  readonly vote?: boolean;
}

/**
 * The keys of the screen `?` was pressed on. The same letters mean different things before and
 * after the run (j and k select a candidate on the dashboard, and scroll the diff in the compare
 * view), so one list for both would say two things about each.
 */
const KEYS: readonly KeyHelp[] = [
  { key: '↑ ↓  (k j)', what: 'select a candidate', when: 'running' },
  { key: '↑ ↓', what: 'select a candidate', when: 'over' },
  { key: 'enter', what: "the selected candidate's details: iterations, checks, activity", when: 'always' },
  { key: 'esc / backspace', what: 'back to the list', when: 'running' },
  { key: 'esc / backspace', what: 'back to the ranking', when: 'over' },
  { key: 's', what: 'stop the selected candidate (its work is kept)', needs: 'stop', when: 'running' },
  { key: 'm', what: 'type a message for its next prompt', needs: 'message', when: 'running' },
  { key: 'q / Ctrl-C', what: 'cancel the run (asks first)', when: 'running' },
  { key: 'Ctrl-C twice', what: 'while cancelling: quit at once', when: 'running' },
  { key: 'j k', what: 'scroll the diff (or the vote) by a line', when: 'over' },
  { key: 'space b', what: 'scroll the diff (or the vote) by a page', when: 'over' },
  { key: 'n / p', what: 'next / previous file of the diff', when: 'over' },
  { key: 'v', what: 'the vote about the selected candidate, or its diff again', when: 'over', vote: true },
  { key: 'w', what: 'merge the selected candidate as the winner (asks first)', needs: 'chooseWinner', when: 'over' },
  { key: 'q / Ctrl-C', what: 'quit', when: 'over' },
  { key: '?', what: 'this list', when: 'always' },
];

export function HelpView({ state, width, capabilities }: { readonly state: UiState; readonly width: number; readonly capabilities: Capabilities }) {
  const theme = useTheme();
  const over = runIsOver(state);
  const keys = KEYS.filter(
    (k) => (k.when === 'always' || k.when === (over ? 'over' : 'running')) && (k.needs === undefined || capabilities[k.needs]) && (!k.vote || state.run.vote !== undefined),
  );
  return (
    <Box flexDirection="column">
      <Line segments={[{ text: over ? 'Keys of the compare view' : 'Keys while the run goes', style: theme.text.heading }]} width={width} />
      {keys.map(({ key, what }) => (
        <Line key={`${key} ${what}`} segments={[{ text: `  ${fit(key, 16)}`, style: theme.text.accent }, { text: what }]} width={width} />
      ))}
    </Box>
  );
}
