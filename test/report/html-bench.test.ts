/**
 * bench.html's renderer (src/report/html/bench-html.ts) on the hand-worked bench, whose numbers
 * test/bench/summary.test.ts checks by hand: the heat map, the rate chart with its intervals,
 * the cost scatter, and hostile agent ids kept as text.
 */
import { describe, expect, it } from 'vitest';
import { duration, percent, percentInterval, usd } from '../../src/bench/format.js';
import { summarizeBench } from '../../src/bench/summary.js';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { renderBenchHtml } from '../../src/report/html/bench-html.js';
import { handWorkedBench, handWorkedRecords } from '../bench/hand-worked-bench.js';

describe('bench.html', () => {
  const summary = summarizeBench(handWorkedBench());

  it('a heat map of task x agent, each cell its resolved rate, resolved/valid, verdict and colour', () => {
    const html = renderBenchHtml(summary);
    expect(html).toContain('<table id="heat-map" class="heat">');
    for (const c of summary.cells) {
      const row = html.slice(html.indexOf(`<tr data-task="${c.task}">`));
      const cell = row.slice(row.indexOf(`data-agent="${c.agent}"`), row.indexOf('</td>', row.indexOf(`data-agent="${c.agent}"`)));
      expect(cell).toContain(`data-verdict="${c.verdict}"`);
      if (c.rate === null) expect(cell).toContain('background:#eaeef2');
      else expect(cell).toContain(`background:hsl(${Math.round(c.rate * 120)}, 70%`);
      if (c.rate !== null) expect(cell).toContain(`${(c.rate * 100).toFixed(1)}% <span class="note">(${c.resolved}/${c.valid})</span>`);
    }
  });

  it("each agent's resolved rate with its 95% interval, and its cost against its rate, as inline SVG", () => {
    const html = renderBenchHtml(summary);
    expect(html).toContain('<svg class="rate-chart"');
    expect(html).toContain('<svg class="cost-scatter"');
    for (const a of summary.agents) {
      expect(html).toContain(`>${a.agent}</text>`);
      if (a.interval) expect(html).toContain(`[${(a.interval.low * 100).toFixed(1)}%, ${(a.interval.high * 100).toFixed(1)}%]`);
    }
    expect(html).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)=/i);
  });

  it('an agent that reported no cost is left out of the cost scatter, by name, and shows "–" for its cost; none with a cost: nothing to plot', () => {
    const file = handWorkedBench();
    const unknown = (agents: readonly string[]) =>
      summarizeBench({ ...file, records: file.records.map((r) => (agents.includes(r.agent) ? { ...r, costUsd: 0, costKnown: false as const } : r)) });
    const some = renderBenchHtml(unknown(['codex-mini']));
    const scatter = some.slice(some.indexOf('<svg class="cost-scatter"'), some.indexOf('</svg>', some.indexOf('<svg class="cost-scatter"')));
    expect(scatter).not.toContain('>codex-mini</text>');
    expect(scatter).toContain('>claude-sonnet</text>');
    expect(some).toContain('<p class="note">Left out, their cost unknown (command agents report none): codex-mini.</p>');
    const row = some.slice(some.indexOf('<tr data-agent="codex-mini">'), some.indexOf('</tr>', some.indexOf('<tr data-agent="codex-mini">')));
    expect(row.match(/<td class="num">–<\/td>/g)).toHaveLength(2); // mean cost and total
    const none = renderBenchHtml(unknown(['claude-sonnet', 'codex-mini', 'gemini-flash']));
    expect(none).not.toContain('<svg class="cost-scatter"');
    expect(none).toContain('No agent reported a cost (command agents report none): nothing to plot.');
  });

  it('writes every number as bench.md does (src/bench/format.ts)', () => {
    const html = renderBenchHtml(summary);
    for (const a of summary.agents) {
      const row = html.slice(html.indexOf(`<tr data-agent="${a.agent}">`), html.indexOf('</tr>', html.indexOf(`<tr data-agent="${a.agent}">`)));
      for (const text of [
        percent(a.rate),
        percentInterval(a.interval),
        percent(a.passAt1),
        percent(a.meanScore),
        usd(a.costUsd.mean),
        usd(a.totalCostUsd),
        duration(a.durationMs.p50),
      ])
        expect(row).toContain(`>${text}`);
    }
  });

  it('the infra failures apart, with their reasons', () => {
    const html = renderBenchHtml(summary);
    expect(summary.infraFailures.length).toBeGreaterThan(0);
    for (const f of summary.infraFailures) expect(html).toContain(`${f.task} x ${f.agent} trial ${f.trial} (run ${f.runId}): ${f.reason}`);
  });

  it('hostile ids and reasons stay text, and secrets in a reason are redacted', () => {
    const SECRET = 'npm-token-0123456789abcdef';
    const records = handWorkedRecords().map((r) =>
      r.infra ? { ...r, infraReason: `npm ci: 401 with ${SECRET} </script><script>window.pwned=1</script>` } : r,
    );
    const bench = handWorkedBench(records);
    const hostile = { ...bench, bench: '<img src=x onerror=alert(1)>' };
    const html = renderBenchHtml(summarizeBench(hostile), { secrets: createSecretSet([['NPM_TOKEN', SECRET]]) });
    expect(html).not.toContain(SECRET);
    expect(html).toContain('&lt;redacted:NPM_TOKEN&gt;');
    expect(html).not.toContain('<img');
    expect(html.match(/<script\b/g)).toBeNull();
  });
});
