import { Box } from 'ink';
import type { CandidateState } from '../../engine/record/run-state.js';
import { fileAt } from '../format/diff.js';
import { useTheme } from '../hooks/useTheme.js';
import { candidateName } from '../layout/columns.js';
import { fitSegments } from '../layout/fit-parts.js';
import type { UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';
import { plural } from '../../engine/words.js';

function diffLineStyle(line: string, theme: Theme): Segment['style'] {
  if (line.startsWith('diff --git')) return theme.diff.file;
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('index ')) return theme.text.secondary;
  if (line.startsWith('@@')) return theme.diff.hunk;
  if (line.startsWith('+')) return theme.diff.added;
  if (line.startsWith('-')) return theme.diff.removed;
  return theme.text.primary;
}

/**
 * The selected candidate's change against the run's base: a header, its file list (the file
 * on screen highlighted), and `lines` lines of the diff from the scroll position.
 */
export function DiffPane({
  state,
  candidate,
  width,
  lines,
}: {
  readonly state: UiState;
  readonly candidate: CandidateState;
  readonly width: number;
  readonly lines: number;
}) {
  const theme = useTheme();
  const view = state.diffs[candidate.id];
  const base = state.run.baseCommit.slice(0, 10);
  // On a narrow terminal the base goes first, then the position in the diff: its size stays.
  const header = (stats = '', position = ''): Segment[] =>
    fitSegments<Segment['style']>(
      [
        { text: `Diff of ${candidateName(candidate)}`, style: theme.text.heading },
        { text: `against base ${base}`, style: theme.text.secondary, sep: ' ', drop: 2 },
        { text: stats, style: theme.text.secondary, sep: ' · ' },
        { text: position, style: theme.text.secondary, sep: ' · ', drop: 1 },
      ],
      width,
      theme.text.secondary,
    );
  const message = (text: string, style?: Segment['style']) => (
    <Box flexDirection="column">
      <Line segments={header()} width={width} />
      <Line segments={[{ text, style: style ?? theme.text.secondary }]} width={width} />
    </Box>
  );
  if (!candidate.commit) return message('no commit: this candidate made no changes');
  if (view === undefined || view.status === 'loading') return message('loading the diff…');
  if (view.status === 'error')
    return message(`could not read the diff: ${view.message} (try \`git diff ${base} ${candidate.commit.slice(0, 10)}\`)`, theme.status.error);
  const diff = view.diff;
  if (diff.lines.length === 0) return message('the commit changes nothing against the base');
  const current = fileAt(diff, state.diffScroll);
  const files: Segment[] = [{ text: 'files: ', style: theme.text.secondary }];
  diff.files.forEach((file, i) => {
    files.push({ text: `${i > 0 ? '  ' : ''}${file.path}`, style: file === current ? theme.selection : theme.text.primary });
    files.push({ text: ` +${file.insertions} -${file.deletions}`, style: theme.text.secondary });
  });
  const shown = diff.lines.slice(state.diffScroll, state.diffScroll + Math.max(1, lines));
  const position = `${state.diffScroll + 1}-${state.diffScroll + shown.length} of ${diff.lines.length}${diff.truncated ? ' (cut)' : ''}`;
  return (
    <Box flexDirection="column">
      <Line segments={header(`${plural(diff.files.length, 'file')} +${diff.insertions} -${diff.deletions}`, `lines ${position}`)} width={width} />
      <Line segments={files} width={width} />
      {shown.map((line, i) => (
        <Line key={i} segments={[{ text: line === '' ? ' ' : line, style: diffLineStyle(line, theme) }]} width={width} />
      ))}
    </Box>
  );
}
