import { Box } from 'ink';
import { fit } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import type { Capabilities } from '../state/keys.js';
import { Line } from './Line.js';

const KEYS: readonly (readonly [string, string, keyof Capabilities | undefined])[] = [
  ['↑ ↓  (k j)', 'select a candidate', undefined],
  ['enter', "open the selected candidate's details: iterations, check output, activity", undefined],
  ['esc / backspace', 'back to the list', undefined],
  ['s', 'stop the selected candidate (its work is kept)', 'stop'],
  ['m', 'type a message for its next prompt', 'message'],
  ['q / Ctrl-C', 'cancel the run (asks first); after the run: quit', undefined],
  ['Ctrl-C twice', 'while cancelling: quit at once', undefined],
  ['j k / space b', 'compare view: scroll the diff (or the vote) by a line / a page', undefined],
  ['n / p', 'compare view: next / previous file of the diff', undefined],
  ['v', 'compare view: the vote about the selected candidate instead of its diff, and back', undefined],
  ['w', 'compare view: choose the selected candidate as the winner and merge it (asks first)', 'chooseWinner'],
  ['?', 'this list', undefined],
];

export function HelpView({ width, capabilities }: { readonly width: number; readonly capabilities: Capabilities }) {
  const theme = useTheme();
  const keys = KEYS.filter(([, , needs]) => needs === undefined || capabilities[needs]);
  return (
    <Box flexDirection="column">
      <Line segments={[{ text: 'Keys', style: theme.text.heading }]} width={width} />
      {keys.map(([key, what]) => (
        <Line key={key} segments={[{ text: `  ${fit(key, 16)}`, style: theme.text.accent }, { text: what }]} width={width} />
      ))}
    </Box>
  );
}
