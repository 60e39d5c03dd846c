/**
 * bench.html: the bench's summary as one self-contained page. The matrix as a heat map (task x
 * agent, the resolved rate), each agent's resolved rate with its 95% Wilson interval, and its
 * mean cost per trial against its resolved rate; then the numbers of bench.md (agents, the pick
 * against an oracle, trials that tampered, infra failures, notes). Computed from the same summary as bench.md and junit.xml, so all three agree.
 * Numbers are written by src/bench/format.ts, as in bench.md: "66.7%", "$0.012", "–".
 */
import type { BenchSummary, CellSummary } from '../../bench/summary.js';
import { duration, NONE, percent, percentInterval, tamperedWords, usd } from '../../bench/format.js';
import { SHAPES_ONLY, type SecretSet } from '../../engine/sandbox/secrets.js';
import { plural } from '../../engine/words.js';
import { escapeHtml as h } from './escape.js';
import { picksSection } from './bench-picks-html.js';
import { renderPage } from './page.js';
import { costScatterSvg, heatColour, rateChartSvg } from './svg.js';

export interface BenchHtmlOptions {
  /** Redaction of every text shown (an infra failure's reason may quote a command's output). @default shapes only */
  readonly secrets?: SecretSet;
}

function cellText(c: CellSummary | undefined): string {
  if (c === undefined || c.records.length === 0) return 'not run';
  if (c.rate === null) return `skipped (${plural(c.infra, 'infra failure')})`;
  const tampered = c.tampered > 0 ? ` <span class="badge bad">${c.tampered} tampered</span>` : '';
  return `${percent(c.rate)} <span class="note">(${c.resolved}/${c.valid})</span>${tampered}`;
}

function heatMap(s: BenchSummary): string {
  const head = `<tr><th>task</th><th class="num">bar</th>${s.matrix.agents.map((a) => `<th>${h(a.id)}</th>`).join('')}</tr>`;
  const rows = s.matrix.tasks.map((t) => {
    const cells = s.matrix.agents.map((a) => {
      const c = s.cells.find((x) => x.task === t.id && x.agent === a.id);
      const verdict = c?.verdict ?? 'skipped';
      return `<td class="rate" data-agent="${h(a.id)}" data-verdict="${verdict}" style="background:${heatColour(c?.rate ?? null)}" title="${h(`${t.id} x ${a.id}: ${verdict}`)}">${cellText(c)}</td>`;
    });
    return `<tr data-task="${h(t.id)}"><th>${h(t.id)}</th><td class="num">${percent(t.bar)}</td>${cells.join('')}</tr>`;
  });
  return `<h2>Matrix <span class="note">(resolved rate of each task and agent; red 0%, green 100%)</span></h2>\n<table id="heat-map" class="heat">${head}\n${rows.join('\n')}</table>`;
}

function agentsTable(s: BenchSummary): string {
  const rows = s.agents.map(
    (a) =>
      `<tr data-agent="${h(a.agent)}"><td><strong>${h(a.agent)}</strong></td><td>${h(a.model === null ? a.kind : `${a.kind} · ${a.model}`)}</td><td class="num">${a.rate === null ? NONE : `${percent(a.rate)} (${a.resolved}/${a.valid})`}</td><td class="num">${percentInterval(a.interval)}</td><td class="num">${percent(a.passAt1)}</td><td class="num">${percent(a.meanScore)}</td><td class="num">${usd(a.costUsd.mean)}</td><td class="num">${usd(a.totalCostUsd)}</td><td class="num">${duration(a.durationMs.p50)}</td><td class="num">${a.infra}</td></tr>`,
  );
  return `<h2>Agents</h2>\n<table id="agents"><tr><th>agent</th><th>kind · model</th><th class="num">resolved</th><th class="num">95% interval</th><th class="num">pass@1</th><th class="num">mean score</th><th class="num">cost mean</th><th class="num">cost total</th><th class="num">time p50</th><th class="num">infra</th></tr>\n${rows.join('\n')}</table>`;
}

export function renderBenchHtml(rawSummary: BenchSummary, options: BenchHtmlOptions = {}): string {
  const s = (options.secrets ?? SHAPES_ONLY).redactDeep(rawSummary);
  const rates = rateChartSvg(
    s.agents.map((a) => ({
      label: a.agent,
      rate: a.rate,
      low: a.interval?.low ?? null,
      high: a.interval?.high ?? null,
      note: a.rate === null ? 'no valid trial' : `${percent(a.rate)} ${percentInterval(a.interval)}`,
    })),
  );
  const rated = s.agents.filter((a) => a.rate !== null);
  const scattered = rated.flatMap((a) => (a.rate !== null && a.costUsd.mean !== null ? [{ label: a.agent, costUsd: a.costUsd.mean, rate: a.rate }] : []));
  const allZero = scattered.every((p) => p.costUsd === 0)
    ? '<p class="note">Every agent plotted cost $0 (script agents spend nothing): every point is at $0.</p>'
    : '';
  const unknown = rated.filter((a) => a.costUsd.mean === null).map((a) => a.agent);
  const leftOut = unknown.length > 0 ? `<p class="note">Left out, their cost unknown (command agents report none): ${h(unknown.join(', '))}.</p>` : '';
  const scatter =
    rated.length === 0
      ? '<p class="note">No agent has a valid trial.</p>'
      : scattered.length === 0
        ? `<p class="note">No agent reported a cost (command agents report none): nothing to plot.</p>`
        : `${costScatterSvg(scattered)}${allZero}${leftOut}`;
  const shard = s.shard === null ? '' : ` · shard ${s.shard.index}/${s.shard.count}`;
  const missing = s.recorded < s.expected ? ` <span class="badge warn">${s.expected - s.recorded} of ${s.expected} trials not recorded</span>` : '';
  const infra =
    s.infraFailures.length > 0
      ? `<h2>Infra failures <span class="note">(left out of every rate)</span></h2>\n<ul id="infra">${s.infraFailures.map((f) => `<li>${h(f.task)} x ${h(f.agent)} trial ${f.trial} (run ${h(f.runId)}): ${h(f.reason)}</li>`).join('')}</ul>`
      : '';
  const tampering =
    s.tampering.length > 0
      ? `<h2>Tampering <span class="note">(a candidate changed a frozen path: that candidate is never resolved)</span></h2>\n<ul id="tampering">${s.tampering.map((t) => `<li data-agent="${h(t.agent)}">${h(t.task)} x ${h(t.agent)} trial ${t.trial} (run ${h(t.runId)}): ${h(tamperedWords(t.paths))}</li>`).join('')}</ul>`
      : '';
  const notes = s.notes.length > 0 ? `<h2>Notes</h2>\n<ul>${s.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>` : '';
  const body = [
    `<h1>bestof bench — ${h(s.bench)}</h1>`,
    `<p class="meta">${plural(s.matrix.tasks.length, 'task')} x ${plural(s.matrix.agents.length, 'agent')} x ${plural(s.matrix.trials, 'trial')} · ${s.recorded} recorded${shard} · ${h(s.startedAt)} – ${h(s.finishedAt)}${missing}</p>`,
    heatMap(s),
    `<div class="charts"><section><h2>Resolved rate per agent <span class="note">(95% Wilson interval)</span></h2>${rates}</section><section><h2>Cost against resolved rate</h2>${scatter}</section></div>`,
    agentsTable(s),
    picksSection(s),
    tampering,
    infra,
    notes,
    `<footer>bestof ${h(s.harness.bestofVersion)}${s.harness.gitCommit ? ` (${h(s.harness.gitCommit.slice(0, 10))})` : ''} · spec ${h(s.specHash.slice(0, 12))} · bench.json, bench.md and junit.xml beside this file hold the same data.</footer>`,
  ].join('\n');
  return renderPage({ title: `bestof bench ${s.bench}`, body });
}
