/**
 * report.json and report.md, both built from the folded run state (never from the
 * engine's memory), so `bestof show` on a past run prints exactly what the run printed.
 * Both are printed to terminals (`bestof show`, `--json`, `cat report.md`) and hold what agents
 * wrote, so both come out printable (src/printable.ts): a control sequence is shown escaped.
 */
import { relative } from 'node:path';
import { checkLogName } from '../checks/check-log-name.js';
import { chosenByUser, costIsKnown, type RunState } from '../engine/record/run-state.js';
import { CHECK_LOGS_DIR, FINAL_CHECKS_DIR, iterationDir } from '../engine/record/run-folder.js';
import { processEndWords } from '../engine/record/test-report-words.js';
import { madeBinaryWords, plural } from '../engine/words.js';
import { othersStopped, othersStoppedWords } from '../engine/record/others-stopped.js';
import { printable, printableJson, printableLines } from '../printable.js';
import { formatDuration } from '../spec/duration.js';
import { finalChecksJson, testsMarkdown } from './check-tests.js';
import { distinguishJson, distinguishMarkdown } from './distinguish-report.js';
import { cell, fenced } from './markdown-text.js';
import { failingOutput, failingTestLines } from '../engine/record/failing-part.js';
import { voteJson, voteMarkdown } from './vote-report.js';

export const REPORT_VERSION = 1;

export function buildJsonReport(state: RunState): Record<string, unknown> {
  return {
    version: REPORT_VERSION,
    runId: state.runId,
    name: state.name,
    status: state.status,
    exitCode: state.exitCode,
    message: state.message,
    repo: state.repo,
    base: state.base,
    baseCommit: state.baseCommit,
    specPath: state.specPath,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt,
    durationMs: state.durationMs,
    costUsd: state.costUsd,
    /** false: some agent reported no cost (a command agent, or a model without a price); costUsd leaves it out. */
    costKnown: costIsKnown(state),
    maxScore: state.maxScore,
    scoreThreshold: state.scoreThreshold,
    winner: state.winner ?? null,
    /** Who chose the winner: "chosen by you in the compare view, instead of c1", or null for the run's own selection. */
    winnerNote: winnerChosenByUser(state) ? chosenByUser(state.chosen) : null,
    /** The latest choice made in the compare view after the run, merged or not. */
    chosen: state.chosen ?? null,
    selection: state.selectionMessage,
    merge: state.merge ?? null,
    ranking: state.ranking,
    vote: voteJson(state),
    /** The distinguishing tests (`[select.distinguish]`): the matrix of every generated test on every finalist and on base. */
    distinguish: distinguishJson(state),
    /** What each selection policy would have picked from the same candidates (tie_break, vote, distinguish). */
    picks: state.picks ?? null,
    /** `[select] stop_others`: who reached the threshold first, whom that stopped, and up to how many agent calls it saved. */
    stoppedOthers: othersStopped(state) ?? null,
    warnings: state.warnings,
    candidates: state.order.map((id) => {
      const c = state.candidates[id];
      if (!c) return { id };
      return {
        id: c.id,
        label: c.label,
        provider: c.provider,
        model: c.model ?? null,
        status: c.status,
        reason: c.reason ?? null,
        message: c.message ?? null,
        score: c.score ?? null,
        maxScore: c.maxScore,
        iterations: c.iteration,
        costUsd: c.costUsd,
        costKnown: costIsKnown(c),
        usage: c.usage,
        durationMs: c.durationMs,
        cli: c.cli ?? null,
        branch: c.branch,
        ref: c.ref,
        commit: c.commit ?? null,
        diff: c.diff,
        tampered: c.tampered.length > 0,
        tamperedPaths: c.tampered,
        /** The checks its score comes from (its last checked iteration), each test of a check with a report. */
        finalChecks: finalChecksJson(c),
        history: c.iterations,
      };
    }),
  };
}

/** report.json's text, as written to the run folder and to stdout with `--json`. */
export function renderJsonReport(state: RunState): string {
  return printableJson(`${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
}

/** The winner is the one the user chose in the compare view (and its merge was done). */
function winnerChosenByUser(state: RunState): state is RunState & { readonly chosen: NonNullable<RunState['chosen']> } {
  return state.chosen?.ok === true && state.chosen.candidate === state.winner;
}

/** "$0.0123"; "–" when nothing was reported; "$0.0123+" when some calls reported no cost. */
function reportCost(usd: number, known: boolean): string {
  if (known) return `$${usd.toFixed(4)}`;
  return usd === 0 ? '–' : `$${usd.toFixed(4)}+`;
}

/** The lines about the winner: who it is, who chose it, and a choice whose merge failed. */
function winnerLines(state: RunState): string[] {
  const lines: string[] = [];
  const label = (id: string): string => state.candidates[id]?.label ?? '';
  if (state.winner) lines.push(`- winner: **${state.winner}** (${label(state.winner)})${winnerChosenByUser(state) ? ` — ${chosenByUser(state.chosen)}` : ''}`);
  const chosen = state.chosen;
  if (chosen && !chosen.ok) {
    const still = state.winner ? `; the winner is still ${state.winner}` : '';
    lines.push(
      `- chosen by you in the compare view: **${chosen.candidate}** (${label(chosen.candidate)}), but its merge (${chosen.mode}) was not done — ${chosen.message}${still}`,
    );
  }
  return lines;
}

/** Tests of a failed check's report named under it; report.json has every one. */
const FAILED_CHECK_TESTS = 10;

/**
 * Why each candidate's checks failed in its last checked iteration: how (exit code, time-out), the
 * failing part (src/engine/record/failing-part.ts), and the folder that holds the whole log. What a user reads first when
 * no candidate can win ("`bestof show <run>` says why each one failed").
 */
function failedCheckLines(state: RunState): string[] {
  const lines: string[] = [];
  for (const id of state.order) {
    const c = state.candidates[id];
    const last = c?.iterations.filter((it) => it.checks.length > 0).at(-1);
    if (!last) continue;
    for (const check of last.checks.filter((k) => !k.passed)) {
      // A check with a report says what its tests came to ("3 of 50 tests failed"), its exit code after.
      const how = check.report?.failure ? `${check.report.failure}, ${processEndWords(check)}` : processEndWords(check);
      // The tests by name with their messages when its report names them, else the failing part of its output.
      const tests = failingTestLines(check.report, FAILED_CHECK_TESTS);
      const part =
        tests.length > 0
          ? tests
          : failingOutput(check)
              .split('\n')
              .filter((line) => line.trim() !== '');
      const iterationFolder = iterationDir(state.runDir, id, last.iteration);
      const folder = relative(state.repo, iterationFolder);
      lines.push('', `### ${id} · ${check.name}: ${how} (iteration ${last.iteration})`, '');
      lines.push(...(part.length > 0 ? fenced(part) : ['(no output)']));
      const log = checkLogName(check.name);
      lines.push(
        '',
        `The whole output: \`${folder.startsWith('..') ? iterationFolder : folder}/${CHECK_LOGS_DIR}/${log}\` (\`${FINAL_CHECKS_DIR}/${log}\` when the run scored it again at its end).`,
      );
    }
  }
  return lines.length > 0 ? ['', '## Failed checks (last iteration)', ...lines] : [];
}

export function renderMarkdownReport(state: RunState): string {
  const lines: string[] = [];
  lines.push(`# bestof run ${state.runId} — ${state.name}`, '');
  lines.push(`- status: **${state.status}**${state.message ? ` — ${state.message}` : ''}`);
  lines.push(`- base: \`${state.base}\` (${state.baseCommit.slice(0, 10)}) in ${state.repo}`);
  lines.push(`- duration: ${formatDuration(state.durationMs)}, cost: ${reportCost(state.costUsd, costIsKnown(state))}`);
  lines.push(...winnerLines(state));
  if (state.merge) lines.push(`- merge (${state.merge.mode}): ${state.merge.ok ? 'done' : 'not done'} — ${state.merge.message}`);
  const stopped = othersStopped(state);
  if (stopped) lines.push(`- stopped early: ${othersStoppedWords(stopped)}`);
  lines.push('');
  lines.push('## Ranking', '');
  lines.push('| rank | candidate | score | cost | diff | time | status | note |', '|---|---|---|---|---|---|---|---|');
  const ranked = state.ranking.length > 0 ? state.ranking.map((r) => r.candidate) : state.order;
  ranked.forEach((id, i) => {
    const c = state.candidates[id];
    if (!c) return;
    const rank = state.ranking.find((r) => r.candidate === id);
    const note = [
      rank?.reason,
      rank?.distinguish ? `passed ${rank.distinguish.passed} of ${rank.distinguish.of} distinguishing tests` : undefined,
      c.tampered.length > 0 ? `tampered with ${c.tampered.map((t) => printable(t.path)).join(', ')}` : undefined,
      rank?.autorun && rank.eligible ? `runs code in your checkout: ${rank.autorun.map((path) => printable(path)).join(', ')}` : undefined,
      c.message,
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(
      `| ${rank?.rank ?? i + 1} | ${id} ${cell(c.label)} | ${c.score ?? '-'}/${c.maxScore} | ${reportCost(c.costUsd, costIsKnown(c))} | +${c.diff.insertions} -${c.diff.deletions} (${plural(c.diff.files, 'file')})${madeBinaryWords(c.diff) ? `, ${cell(madeBinaryWords(c.diff))}` : ''} | ${formatDuration(c.durationMs)} | ${c.status}${c.reason ? ` (${c.reason})` : ''} | ${cell(note)} |`,
    );
  });
  if (ranked.some((id) => !costIsKnown(state.candidates[id] ?? {}))) {
    lines.push(
      '',
      'cost "–": the agent reported no cost (a command agent, or tokens of a model without a price in configs/prices.toml); "+": some of its calls did not.',
    );
  }
  if (state.checks.length > 0) {
    lines.push('', '## Checks (last iteration)', '');
    lines.push(`| candidate | ${state.checks.map((k) => cell(`${k.name} (${k.score})`)).join(' | ')} |`);
    lines.push(`|---|${state.checks.map(() => '---').join('|')}|`);
    for (const id of state.order) {
      const c = state.candidates[id];
      const last = c?.iterations.filter((it) => it.checks.length > 0).at(-1);
      lines.push(
        `| ${id} | ${state.checks
          .map((k) => {
            const result = last?.checks.find((r) => r.name === k.name);
            return result ? (result.passed ? 'pass' : result.timedOut ? 'timeout' : 'FAIL') : '-';
          })
          .join(' | ')} |`,
      );
    }
  }
  lines.push(...testsMarkdown(state));
  lines.push(...failedCheckLines(state));
  lines.push(...distinguishMarkdown(state));
  lines.push(...voteMarkdown(state));
  if (state.warnings.length > 0) {
    lines.push('', '## Warnings', '', ...state.warnings.map((w) => `- ${w}`));
  }
  const clis = state.order.map((id) => [id, state.candidates[id]?.cli] as const).filter(([, cli]) => cli !== undefined);
  if (clis.length > 0) {
    lines.push('', '## Agents', '');
    for (const [id, cli] of clis)
      lines.push(`- ${id}: ${cli?.binary} ${cli?.version ?? '(version unknown)'}${cli?.model ? `, model ${cli.model}` : ''}: \`${cli?.argv.join(' ')}\``);
  }
  lines.push('', '## Branches', '');
  for (const id of state.order) {
    const c = state.candidates[id];
    if (c) lines.push(`- ${id}: branch \`${c.branch}\`, kept at \`${c.ref}\`${c.commit ? ` (${c.commit.slice(0, 10)})` : ' (no commit)'}`);
  }
  // Last, over the whole text: every field, the check outputs' tails included, is printable.
  return printableLines(`${lines.join('\n')}\n`);
}
