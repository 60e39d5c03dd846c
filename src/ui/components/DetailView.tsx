import { Box } from 'ink';
import { relative } from 'node:path';
import { iterationDir } from '../../engine/record/run-folder.js';
import { isAttachable } from '../../engine/record/provider-traits.js';
import { costIsKnown, type CandidateState, type IterationState } from '../../engine/record/run-state.js';
import {
  activitySummary,
  candidateElapsed,
  excerptHead,
  reviewText,
  CHECK_GLYPH,
  checkStyle,
  formatScore,
  latestChecks,
  scoreStyle,
  statusGlyph,
  statusStyle,
} from '../format/candidate.js';
import { formatElapsed, formatKnownCost, formatTokens } from '../format/numbers.js';
import { checkReportLines } from '../format/check-report.js';
import { wrapText } from '../format/text.js';
import { useTheme } from '../hooks/useTheme.js';
import { agentName, candidateName } from '../layout/columns.js';
import { wrapSegments } from '../layout/fit-parts.js';
import { isBusy, type UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';
import { plural } from '../../engine/words.js';
import { checkFailureWords } from '../../engine/record/test-report-words.js';
import { failingOutput } from '../../engine/record/failing-part.js';

type Lines = Segment[][];

/** Lines of the newest iterations (at most `max`), the one in progress included. */
function iterationLines(state: UiState, c: CandidateState, theme: Theme, max: number, width: number): Lines {
  const lines: Lines = [];
  const inProgress =
    isBusy(c.status) && !c.iterations.some((it) => it.iteration === c.iteration)
      ? [{ iteration: c.iteration, checks: [], tampered: [] } as IterationState]
      : [];
  for (const it of [...c.iterations, ...inProgress].slice(-max)) {
    const line: Segment[] = [{ text: `  #${it.iteration}  `, style: theme.text.secondary }];
    if (it.outcome === undefined) line.push({ text: `${c.status}…`, style: theme.status.busy });
    else line.push({ text: it.outcome, style: it.outcome === 'success' ? theme.status.ok : theme.status.error });
    if (it.score !== undefined) line.push({ text: '  ' }, { text: `${it.score}/${c.maxScore}`, style: scoreStyle(it.score, state.run.scoreThreshold, theme) });
    for (const check of it.checks)
      line.push(
        { text: ' ' },
        { text: `${CHECK_GLYPH[check.passed ? 'passed' : 'failed']}${check.name}`, style: checkStyle(check.passed ? 'passed' : 'failed', theme) },
      );
    if (it.commit) line.push({ text: `  ${it.commit.slice(0, 10)}`, style: theme.text.secondary });
    if (it.phase) line.push({ text: `  [${it.phase}]`, style: theme.text.secondary });
    if (it.review)
      line.push({
        text: `  review ${reviewText(it.review)}`,
        style: it.review.verdict === 'lgtm' ? theme.status.ok : it.review.verdict === 'refuse' ? theme.status.error : theme.text.secondary,
      });
    if (it.tampered.length > 0) line.push({ text: '  TAMPERED', style: theme.status.warning });
    if (it.providerMessage && it.outcome !== 'success' && it.providerMessage !== it.outcome)
      line.push({ text: `  ${it.providerMessage}`, style: theme.status.error });
    // Over more lines on a narrow terminal, under the outcome: every check's name stays whole.
    lines.push(...wrapSegments(line, width, ' '.repeat(6)));
  }
  return lines;
}

/** Where the whole output of an iteration's checks is: the check's lines on screen are the end of it. */
function checkLogsDir(state: UiState, c: CandidateState): string | undefined {
  const run = state.run;
  const iteration = [...c.iterations].reverse().find((it) => it.checks.length > 0)?.iteration;
  if (iteration === undefined || run.runDir === '') return undefined;
  const dir = iterationDir(run.runDir, c.id, iteration);
  return `${run.repo === '' ? dir : relative(run.repo, dir)}/checks/`;
}

/**
 * The failed checks of the latest iteration that ran checks, each with what tells why: for a
 * check with a test report, its counts and the tests that did not pass by name with their
 * messages; else (or when its report names none) the failing part of its output, with a line that
 * says how much of it is left out.
 */
function failedCheckLines(state: UiState, c: CandidateState, theme: Theme, max: number, width: number): Lines {
  const failed = latestChecks(c).filter((k) => !k.passed);
  if (failed.length === 0 || max <= 1) return [];
  const lines: Lines = [[{ text: 'Failed checks', style: theme.text.heading }]];
  const perCheck = Math.max(1, Math.floor((max - 1) / failed.length) - 1);
  const logs = checkLogsDir(state, c);
  for (const check of failed) {
    // A report's words ("3 of 50 tests failed", "no test report") say more than its exit code.
    lines.push([
      { text: `  ✗ ${check.name}${check.hidden ? ' (hidden)' : ''}`, style: theme.status.error },
      { text: ` (${checkFailureWords(check)}, ${formatElapsed(check.durationMs)})`, style: theme.text.secondary },
    ]);
    const report = check.report ? checkReportLines(check.report, perCheck) : [];
    for (const line of report) lines.push([{ text: `    ${line.text}`, style: line.tone === 'test' ? theme.status.error : theme.text.secondary }]);
    if (report.length <= 1) lines.push(...failingOutputLines(failingOutput(check), perCheck - report.length, logs, width, theme));
  }
  return lines.slice(0, max);
}

/**
 * The failing part of a check's output in `max` lines: its first lines (from the line the test
 * runner marked as the failure), and a last line saying how many lines of it are not shown and
 * where the whole output is, when some are not.
 */
function failingOutputLines(excerpt: string, max: number, logs: string | undefined, width: number, theme: Theme): Lines {
  if (max <= 0) return [];
  const lines: Lines = [];
  let head = excerptHead(excerpt, max);
  let notes: string[] = [];
  if (head.hidden > 0 && max > 1) {
    // The count first; the folder of the whole output wraps under it (between words, or after a
    // "/") if the check's lines leave room for it, else the line is cut at its end.
    const note = (hidden: number): string => `… ${plural(hidden, 'more line')}${logs ? ` (whole output in ${logs})` : ''}`;
    const wrapped = wrapText(note(head.hidden + 1), Math.max(8, width - 4));
    const noteLines = max > wrapped.length ? wrapped.length : 1;
    head = excerptHead(excerpt, max - noteLines);
    notes = noteLines > 1 ? wrapText(note(head.hidden), Math.max(8, width - 4)).slice(0, noteLines) : [note(head.hidden)];
  }
  for (const line of head.lines) lines.push([{ text: `    ${line}`, style: theme.text.secondary }]);
  for (const text of notes) lines.push([{ text: `    ${text}`, style: theme.text.secondary }]);
  return lines;
}

/**
 * One candidate in full: its iterations, why its last checks failed, frozen paths it
 * changed, and its live activity log in whatever height is left.
 */
export function DetailView({ state, width, height }: { readonly state: UiState; readonly width: number; readonly height: number }) {
  const theme = useTheme();
  const c = state.selected === undefined ? undefined : state.run.candidates[state.selected];
  if (!c) return <Line segments={[{ text: 'no candidate selected' }]} width={width} />;
  const elapsed = candidateElapsed(c, state.now, state.activeSince[c.id]);
  // Each part with the separator before it, so that a narrow terminal wraps the title between parts.
  const sep = (text: string, style?: Segment['style']): Segment => (style === undefined ? { text: ` · ${text}` } : { text: ` · ${text}`, style });
  const title: Segment[] = [
    { text: candidateName(c), style: theme.selection },
    sep(agentName(c), theme.text.secondary),
    { text: ' · ' },
    { text: `${statusGlyph(c.status, state.now)} ${c.status}${c.reason ? ` (${c.reason})` : ''}`, style: statusStyle(c.status, theme) },
    sep(`iteration ${c.iteration}/${state.run.maxIterations}${c.phase ? ` (${c.phase})` : ''}`),
    { text: ' · ' },
    { text: formatScore(c), style: scoreStyle(c.score, state.run.scoreThreshold, theme) },
    sep(formatKnownCost(c.costUsd, costIsKnown(c)), theme.text.secondary),
    sep(`${formatTokens(c.usage)} tokens`, theme.text.secondary),
    ...(elapsed === undefined ? [] : [sep(formatElapsed(elapsed), theme.text.secondary)]),
  ];
  const head: Lines = [
    ...wrapSegments(title, width, '  '),
    ...wrapSegments(
      [
        { text: `branch ${c.branch}`, style: theme.text.secondary },
        { text: ` · kept at ${c.ref}`, style: theme.text.secondary },
      ],
      width,
      '  ',
    ),
  ];
  // An attachable agent (shannon's Claude Code in tmux) runs in a session a person can watch or take over.
  if (isAttachable(c.provider) && isBusy(c.status))
    head.push([{ text: `watch it: bestof attach ${state.run.runId} ${c.id} (--write to take over)`, style: theme.text.secondary }]);
  const summary = activitySummary(c);
  if (c.message) head.push([{ text: c.message, style: summary.tone === 'error' ? theme.status.error : theme.status.warning }]);
  if (c.tampered.length > 0) {
    head.push([{ text: `TAMPERED (ignored for scoring): ${c.tampered.map((p) => `${p.path} (${p.change})`).join(', ')}`, style: theme.status.warning }]);
  }
  if (c.messages.length > 0) {
    head.push([
      {
        text: `messages sent: ${c.messages
          .slice(-3)
          .map((m) => `"${m}"`)
          .join(', ')}`,
        style: theme.text.secondary,
      },
    ]);
  }
  const budget = Math.max(4, height);
  const iterations =
    c.iterations.length > 0 || isBusy(c.status) ? [[{ text: 'Iterations', style: theme.text.heading }], ...iterationLines(state, c, theme, 5, width)] : [];
  const room = budget - head.length - iterations.length;
  const checks = failedCheckLines(state, c, theme, Math.floor(room / 2), width);
  const logRoom = room - checks.length - 1;
  const log = state.activity[c.id] ?? [];
  const activity: Lines =
    logRoom > 0
      ? [
          [{ text: 'Activity', style: theme.text.heading }],
          ...(log.length === 0 ? [[{ text: '  (nothing yet)', style: theme.text.secondary }]] : log.slice(-logRoom).map((line) => [{ text: `  ${line}` }])),
        ]
      : [];
  const lines = [...head, ...iterations, ...checks, ...activity].slice(0, budget);
  return (
    <Box flexDirection="column">
      {lines.map((segments, i) => (
        <Line key={i} segments={segments} width={width} />
      ))}
    </Box>
  );
}
