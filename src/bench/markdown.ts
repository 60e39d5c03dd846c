/**
 * The bench report in Markdown: what a CI job summary (GitHub's `$GITHUB_STEP_SUMMARY`) and a
 * pull-request comment show. GitHub-flavoured tables, one section per question a reader has:
 * which agent does best (agents), where (tasks), is the gap real (paired differences), did
 * anything get worse (baseline), what did not measure the agents (infra failures), and what
 * produced these numbers (the harness line, last).
 *
 * Every table cell goes through `cell()`: a `|` or a newline in an agent id or a reason would
 * otherwise break the table.
 */
import type { BaselineComparison } from './baseline.js';
import { plural } from '../engine/words.js';
import { printableLines } from '../printable.js';
import { duration, NONE, percent, percentInterval, points, pointsInterval, pointsSize, tamperedWords, usd } from './format.js';
import { formatShard } from './shard.js';
import type { AgentSummary, BenchSummary, CellSummary } from './summary.js';

function cell(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/\|/g, '\\|');
}

function row(values: readonly string[]): string {
  return `| ${values.map(cell).join(' | ')} |`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [row(head), row(head.map(() => '---')), ...rows.map(row)];
}

function agentModel(a: AgentSummary): string {
  return a.model === null ? a.kind : `${a.kind} · ${a.model}`;
}

function agentsSection(s: BenchSummary): string[] {
  const ks = s.agents[0]?.passAtK.map((p) => p.k) ?? [];
  const head = [
    'Agent',
    'Kind · model',
    'Resolved',
    '95% interval',
    'pass@1',
    ...ks.map((k) => `pass@${k}`),
    'Mean score',
    'Cost mean',
    'Cost p50',
    'Cost p90',
    'Time p50',
    'Time p90',
    'Infra',
  ];
  const rows = s.agents.map((a) => [
    a.agent,
    agentModel(a),
    a.rate === null ? NONE : `${percent(a.rate)} (${a.resolved}/${a.valid})`,
    percentInterval(a.interval),
    percent(a.passAt1),
    ...a.passAtK.map((p) => percent(p.value)),
    percent(a.meanScore),
    usd(a.costUsd.mean),
    usd(a.costUsd.p50),
    usd(a.costUsd.p90),
    duration(a.durationMs.p50),
    duration(a.durationMs.p90),
    String(a.infra),
  ]);
  return [
    '## Agents',
    '',
    ...table(head, rows),
    '',
    'Resolved: resolved trials of the valid ones (infra failures are left out of every column but Infra), with its 95% Wilson interval. ' +
      'pass@k: the unbiased estimate, averaged over tasks. Mean score: score as a fraction of the maximum. Percentiles are nearest-rank.',
  ];
}

function verdictText(c: CellSummary): string {
  if (c.verdict === 'skipped') return c.records.length === 0 ? 'not run' : `skipped (${plural(c.infra, 'infra failure')})`;
  const tampered = c.tampered > 0 ? `, ${c.tampered} tampered` : '';
  return `${percent(c.rate)} (${c.resolved}/${c.valid}) ${c.verdict === 'passed' ? 'pass' : 'FAIL'}${tampered}`;
}

function tasksSection(s: BenchSummary): string[] {
  const rows = s.matrix.tasks.map((t) => [
    t.id,
    percent(t.bar),
    ...s.matrix.agents.map((a) => {
      const c = s.cells.find((x) => x.task === t.id && x.agent === a.id);
      return c === undefined ? NONE : verdictText(c);
    }),
  ]);
  return [
    '## Tasks',
    '',
    ...table(['Task', 'Bar', ...s.matrix.agents.map((a) => a.id)], rows),
    '',
    "A task and agent pass when the resolved rate reaches the task's bar (the JUnit test case).",
  ];
}

function pairsSection(s: BenchSummary): string[] {
  if (s.pairs.length === 0) return [];
  const rows = s.pairs.map((p) => {
    const e = p.estimate;
    const interval = e === null ? NONE : e.interval === null ? 'none (1 task)' : `${pointsInterval(e.interval)}${e.clamped ? ' (clamped)' : ''}`;
    return [`${p.a} − ${p.b}`, String(p.perTask.length), points(e?.mean ?? null), interval];
  });
  return [
    '## Paired differences',
    '',
    ...table(['Agents', 'Tasks', 'Difference', '95% interval'], rows),
    '',
    "Per task, the first agent's resolved rate minus the second's; the mean over the tasks both have valid trials of, " +
      'with a 95% interval from the standard error of the per-task differences (Student t, tasks − 1 degrees of freedom), clamped to ±100 pp. ' +
      'An interval that contains 0 does not separate the two agents.',
  ];
}

function picksSection(s: BenchSummary): string[] {
  const p = s.picks;
  if (p === null) return [];
  const rows = p.selections.map((r) => [
    r.agent,
    r.selection === r.policy ? r.policy : `${r.selection} (${r.policy})`,
    String(r.trials),
    `${percent(r.random)} (${r.passingCandidates}/${r.candidates} candidates)`,
    percentInterval(r.randomInterval),
    `${percent(r.pick)} (${r.picked}/${r.trials})`,
    percentInterval(r.pickInterval),
    `${percent(r.oracle)} (${r.solvable}/${r.trials})`,
    percentInterval(r.oracleInterval),
    String(r.fellBack),
  ]);
  const pairRows = p.pairs.map((x) => {
    const d = x.difference;
    return [
      x.agent,
      `${x.a} − ${x.b}`,
      String(d?.trials ?? 0),
      d === null ? NONE : `${d.aOnly} / ${d.bOnly}`,
      points(d?.mean ?? null),
      d === null ? NONE : `${pointsInterval(d.interval)}${d.clamped ? ' (clamped)' : ''}`,
    ];
  });
  return [
    '## The pick against the oracle',
    '',
    ...table(['Agent', 'Selection', 'Trials', 'Random', '95% interval', 'Pick', '95% interval', 'Oracle', '95% interval', 'Fell back'], rows),
    '',
    "Every candidate of every trial was run on the task's oracle checks, which the run never saw. " +
      "Random: the mean share of a trial's candidates that pass the oracle (a pick at random; its interval is Wilson's on the pooled candidates). " +
      'Pick: the trials whose pick by this selection passes the oracle (no pick counts as wrong). Oracle: the trials where at least one candidate passes, the best any pick could do. ' +
      "Fell back: trials the policy did not decide (no vote, no tie to tell apart), where its pick is the tie-break's. Intervals are Wilson's at 95%.",
    ...(pairRows.length === 0
      ? []
      : [
          '',
          '### Paired differences between selections',
          '',
          ...table(['Agent', 'Selections', 'Trials', 'Only first / only second right', 'Difference', '95% interval'], pairRows),
          '',
          "Per trial, whether the first selection's pick passes the oracle minus whether the second's does, on the same candidates; the mean, " +
            'with a 95% interval by the normal approximation (Wald, paired proportions), clamped to ±100 pp. Only the discordant trials (the counts shown) ' +
            'tell two selections apart: with few of them the interval is rough, and an exact McNemar test of those counts is the sharper check. ' +
            'An interval that contains 0 does not separate the two.',
        ]),
  ];
}

function baselineSection(c: BaselineComparison | undefined): string[] {
  if (c === undefined) return [];
  const rows = c.changes.map((x) => [
    x.agent,
    `${percent(x.baselineRate)} → ${percent(x.currentRate)}`,
    `${usd(x.baselineCostUsd)} → ${usd(x.currentCostUsd)}`,
    x.regressed ? 'REGRESSION' : 'ok',
  ]);
  const verdict =
    c.regressions.length === 0
      ? ['No regression against the baseline.']
      : [`${plural(c.regressions.length, 'regression')} against the baseline:`, '', ...c.regressions.map((r) => `- ${r.message}`)];
  return [
    '## Compared with the baseline',
    '',
    ...verdict,
    '',
    ...table(['Agent', 'Resolved', 'Cost mean', 'Verdict'], rows),
    '',
    `Tolerance: a resolved rate may drop by ${pointsSize(c.tolerance.resolvedRateDrop)} (a larger drop counts only when the baseline's rate is also above the current 95% interval), the mean cost may rise by ${(c.tolerance.costUsdRise * 100).toFixed(0)}%.`,
    ...(c.notes.length === 0 ? [] : ['', ...c.notes.map((n) => `- ${n}`)]),
  ];
}

function infraSection(s: BenchSummary): string[] {
  if (s.infraFailures.length === 0) return [];
  return [
    '## Infra failures',
    '',
    "Not the agents' doing (a setup that failed, a CLI that could not start): left out of the rates.",
    '',
    ...s.infraFailures.map((f) => `- ${cell(`${f.task}/${f.agent}#${f.trial}: ${f.reason} (run ${f.runId})`)}`),
  ];
}

function tamperingSection(s: BenchSummary): string[] {
  if (s.tampering.length === 0) return [];
  return [
    '## Tampering',
    '',
    'Trials in which a candidate changed a frozen path (a test or a check it was not to touch). Such a candidate is never resolved, ' +
      'whatever its checks said; with best_of above 1, another candidate of the trial may be.',
    '',
    ...s.tampering.map((t) => `- ${cell(`${t.task}/${t.agent}#${t.trial}: ${tamperedWords(t.paths)} (run ${t.runId})`)}`),
  ];
}

function notesSection(s: BenchSummary): string[] {
  return s.notes.length === 0 ? [] : ['## Notes', '', ...s.notes.map((n) => `- ${n}`)];
}

function headline(s: BenchSummary): string {
  const m = s.matrix;
  const shape = `${plural(m.tasks.length, 'task')} × ${plural(m.agents.length, 'agent')} × ${plural(m.trials, 'trial')}`;
  const scope = s.shard === null ? '' : `, shard ${formatShard(s.shard)}`;
  const recorded = s.recorded === s.expected ? `${plural(s.recorded, 'trial')}` : `${s.recorded} of ${plural(s.expected, 'trial')} recorded (incomplete)`;
  return `${shape}${scope}: ${recorded}, ${plural(s.infraFailures.length, 'infra failure')}.`;
}

function harnessLine(s: BenchSummary): string {
  const commit = s.harness.gitCommit === null ? '' : ` (commit ${s.harness.gitCommit.slice(0, 12)})`;
  return `Harness: bestof ${s.harness.bestofVersion}${commit}, spec hash ${s.specHash}, started ${s.startedAt}, finished ${s.finishedAt}.`;
}

/** The whole report; with a comparison, its section says what changed. Ends with a newline. */
export function renderBenchMarkdown(summary: BenchSummary, comparison?: BaselineComparison): string {
  const sections = [
    [`# Bench: ${summary.bench}`, '', headline(summary)],
    agentsSection(summary),
    tasksSection(summary),
    pairsSection(summary),
    picksSection(summary),
    baselineSection(comparison),
    tamperingSection(summary),
    infraSection(summary),
    notesSection(summary),
    [harnessLine(summary)],
  ].filter((lines) => lines.length > 0);
  // Printable as a whole (src/printable.ts): a reason can hold what an agent or a setup command printed.
  return printableLines(`${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`);
}
