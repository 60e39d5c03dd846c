/**
 * The bench as JUnit XML, the format every CI reads natively (GitHub test reporters, GitLab's
 * `artifacts:reports:junit`, Jenkins). One `<testcase>` per task x agent: classname = task,
 * name = agent, so CI groups an agent's results under each task.
 *
 * - `<failure>` when the resolved rate is under the task's bar; the message says both, the body
 *   lists every trial.
 * - `<skipped>` when the pair has no valid trial (every trial an infra failure, or none
 *   recorded): an infra failure says nothing about the agent, so it neither passes nor fails.
 * - `time` is the sum of the pair's trial durations, in seconds.
 * - One `<testsuite>` named after the bench inside `<testsuites>`, counts computed from the
 *   cases; the harness and spec hash as `<properties>`.
 *
 * Text is escaped for XML 1.0: the five special characters, and characters XML 1.0 cannot hold
 * at all (control characters from a CLI's error, ANSI colour codes), which are dropped (ANSI
 * sequences whole) rather than making the file unreadable to the CI.
 */
import { duration, percent, percentInterval, tamperedWords, usd } from './format.js';
import { plural } from '../engine/words.js';
import type { SelectionSummary } from './pick-summary.js';
import type { BenchSummary, CellSummary } from './summary.js';
import type { TrialRecord } from './types.js';

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
// Everything XML 1.0 allows is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text for an XML attribute or element. */
export function escapeXml(text: string): string {
  return text
    .replace(ANSI, '')
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function trialLine(r: TrialRecord): string {
  if (r.infra) return `trial ${r.trial}: infra failure: ${r.infraReason ?? 'no reason recorded'} (run ${r.runId})`;
  // With best_of above 1 a trial can be resolved by one candidate while another tampered: both are said.
  const verdict = `${r.resolved ? 'resolved' : 'not resolved'}${r.tampered && r.tampered.length > 0 ? `, ${tamperedWords(r.tampered)}` : ''}`;
  return `trial ${r.trial}: ${verdict}, score ${r.score}/${r.maxScore}, ${r.outcome.status}: ${r.outcome.reason}, ${r.costKnown === false ? 'cost unknown' : usd(r.costUsd)}, ${duration(r.durationMs)} (run ${r.runId})`;
}

function testcase(c: CellSummary): string {
  const time = c.records.reduce((s, r) => s + r.durationMs, 0);
  const open = `    <testcase${attrs({ classname: c.task, name: c.agent, time: seconds(time) })}>`;
  const body = escapeXml(c.records.map(trialLine).join('\n'));
  // A cheat is news of its own: the failure's message names it, not only the body's trial lines.
  const cheat = c.records.find((r) => r.tampered && r.tampered.length > 0);
  const tampered = cheat?.tampered ? `; ${c.tampered} of ${plural(c.records.length, 'trial')} ${tamperedWords(cheat.tampered)} (trial ${cheat.trial})` : '';
  const rate = `resolved ${percent(c.rate)} (${c.resolved}/${c.valid})`;
  switch (c.verdict) {
    case 'passed':
      return `${open}\n      <system-out>${body}</system-out>\n    </testcase>`;
    case 'failed':
      return `${open}\n      <failure${attrs({ message: `${rate}, under the bar of ${percent(c.bar)}${tampered}`, type: 'below_bar' })}>${body}</failure>\n    </testcase>`;
    case 'skipped': {
      const message =
        c.records.length === 0 ? 'no trial of this task and agent was recorded' : `every trial (${c.infra}) was an infra failure: nothing measured the agent`;
      return `${open}\n      <skipped${attrs({ message })}/>\n      <system-out>${body}</system-out>\n    </testcase>`;
    }
    default: {
      const unreachable: never = c.verdict;
      return unreachable;
    }
  }
}

/**
 * The pick against the oracle: a case per agent x selection (class = `pick.<selection>`, name =
 * agent) whose message says its random, pick and oracle rates. It passes: there is no bar for a
 * pick, and the rates are the news; skipped when no trial of the agent was judged.
 */
function pickCase(r: SelectionSummary): { xml: string; skipped: boolean } {
  const open = `    <testcase${attrs({ classname: `pick.${r.selection}`, name: r.agent, time: '0.000' })}>`;
  const rates = `${r.selection} (${r.policy}): pick ${percent(r.pick)} (${r.picked}/${r.trials}) ${percentInterval(r.pickInterval)}, random ${percent(r.random)} ${percentInterval(r.randomInterval)}, oracle ${percent(r.oracle)} (${r.solvable}/${r.trials}) ${percentInterval(r.oracleInterval)}, fell back ${r.fellBack}`;
  if (r.trials === 0)
    return { xml: `${open}\n      <skipped${attrs({ message: 'no trial of this agent was judged by the oracle' })}/>\n    </testcase>`, skipped: true };
  return { xml: `${open}\n      <system-out>${escapeXml(rates)}</system-out>\n    </testcase>`, skipped: false };
}

/** The JUnit XML of a bench summary, ending with a newline. */
export function renderJUnit(summary: BenchSummary): string {
  const count = (v: CellSummary['verdict']): number => summary.cells.filter((c) => c.verdict === v).length;
  const time = seconds(summary.cells.reduce((s, c) => s + c.records.reduce((t, r) => t + r.durationMs, 0), 0));
  const picks = (summary.picks?.selections ?? []).map(pickCase);
  const counts = {
    tests: summary.cells.length + picks.length,
    failures: count('failed'),
    errors: 0,
    skipped: count('skipped') + picks.filter((p) => p.skipped).length,
    time,
  };
  const properties = [
    ['bestof.version', summary.harness.bestofVersion],
    ['bestof.commit', summary.harness.gitCommit ?? 'unknown'],
    ['bench.specHash', summary.specHash],
    ['bench.trials', String(summary.matrix.trials)],
  ].map(([name, value]) => `      <property${attrs({ name: name as string, value: value as string })}/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: `bestof bench ${summary.bench}`, ...counts })}>`,
    `  <testsuite${attrs({ name: summary.bench, ...counts, timestamp: summary.startedAt })}>`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...summary.cells.map(testcase),
    ...picks.map((p) => p.xml),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
