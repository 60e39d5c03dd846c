/**
 * The report's charts, as inline SVG made here (no chart library, nothing fetched): a
 * candidate's iterations as a small timeline, and the bench's resolved rates with their
 * intervals and its cost against resolved rate. Every label goes through escapeHtml.
 */
import { escapeHtml } from './escape.js';

const fmt = (n: number): string => String(Math.round(n * 10) / 10);

export interface TimelinePoint {
  readonly iteration: number;
  /** undefined: not scored (the agent failed before its checks, or the run stopped). */
  readonly score: number | undefined;
  readonly costUsd: number | undefined;
  readonly outcome: string | undefined;
  /** The point is good (green), bad (red) or neither (grey). */
  readonly tone: 'ok' | 'bad' | 'neutral';
}

const TONE: Readonly<Record<TimelinePoint['tone'], string>> = { ok: '#1a7f37', bad: '#cf222e', neutral: '#8c959f' };

/** Score per iteration (a line over 0..maxScore), each point's colour its outcome, its cost below it. */
export function timelineSvg(points: readonly TimelinePoint[], maxScore: number): string {
  const step = 64;
  const left = 36;
  const top = 10;
  const plot = 70;
  const width = left + Math.max(1, points.length) * step + 10;
  const height = top + plot + 40;
  const x = (i: number): number => left + step / 2 + i * step;
  const y = (score: number): number => top + plot - (maxScore > 0 ? (score / maxScore) * plot : 0);
  const scored = points.map((p, i) => ({ p, i })).filter(({ p }) => p.score !== undefined);
  const line =
    scored.length > 1
      ? `<polyline fill="none" stroke="#0969da" stroke-width="1.5" points="${scored.map(({ p, i }) => `${fmt(x(i))},${fmt(y(p.score ?? 0))}`).join(' ')}"/>`
      : '';
  const marks = points
    .map((p, i) => {
      const cy = p.score === undefined ? top + plot : y(p.score);
      const title = `iteration ${p.iteration}: ${p.score === undefined ? 'not scored' : `score ${p.score} of ${maxScore}`}, ${p.outcome ?? 'no outcome'}${p.costUsd === undefined ? '' : `, $${p.costUsd.toFixed(4)}`}`;
      const shape =
        p.score === undefined
          ? `<rect x="${fmt(x(i) - 4)}" y="${fmt(cy - 4)}" width="8" height="8" fill="none" stroke="${TONE[p.tone]}" stroke-width="1.5"/>`
          : `<circle cx="${fmt(x(i))}" cy="${fmt(cy)}" r="5" fill="${TONE[p.tone]}"/>`;
      return `<g><title>${escapeHtml(title)}</title>${shape}<text x="${fmt(x(i))}" y="${top + plot + 16}" text-anchor="middle">#${p.iteration}</text><text x="${fmt(x(i))}" y="${top + plot + 30}" text-anchor="middle" fill="#59636e">${escapeHtml(p.costUsd === undefined ? '–' : `$${p.costUsd.toFixed(3)}`)}</text></g>`;
    })
    .join('');
  const axis = `<line class="axis" x1="${left}" y1="${top}" x2="${left}" y2="${top + plot}"/><line class="axis" x1="${left}" y1="${top + plot}" x2="${width - 6}" y2="${top + plot}"/><text x="${left - 4}" y="${top + 4}" text-anchor="end">${fmt(maxScore)}</text><text x="${left - 4}" y="${top + plot}" text-anchor="end">0</text>`;
  return `<svg class="timeline-svg" role="img" aria-label="score per iteration" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${axis}${line}${marks}</svg>`;
}

export interface RateBar {
  readonly label: string;
  /** In [0, 1]; null without a valid trial. */
  readonly rate: number | null;
  readonly low: number | null;
  readonly high: number | null;
  readonly note: string;
}

/** One row per agent: its resolved rate as a bar, its 95% interval as a whisker over it. */
export function rateChartSvg(rows: readonly RateBar[]): string {
  const left = 130;
  const plot = 300;
  const rowH = 28;
  const top = 24;
  const width = left + plot + 150;
  const height = top + rows.length * rowH + 24;
  const x = (rate: number): number => left + rate * plot;
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (t) =>
        `<line class="axis" x1="${fmt(x(t))}" y1="${top - 4}" x2="${fmt(x(t))}" y2="${height - 20}"/><text x="${fmt(x(t))}" y="${top - 8}" text-anchor="middle">${t * 100}%</text>`,
    )
    .join('');
  const bars = rows
    .map((r, i) => {
      const cy = top + i * rowH + rowH / 2;
      const label = `<text x="${left - 8}" y="${cy + 4}" text-anchor="end">${escapeHtml(r.label)}</text>`;
      if (r.rate === null) return `${label}<text x="${left + 4}" y="${cy + 4}" fill="#59636e">no valid trial</text>`;
      const bar = `<rect x="${left}" y="${cy - 8}" width="${fmt(r.rate * plot)}" height="16" fill="#54aeff" opacity="0.8"/>`;
      const whisker =
        r.low !== null && r.high !== null
          ? `<line x1="${fmt(x(r.low))}" y1="${cy}" x2="${fmt(x(r.high))}" y2="${cy}" stroke="#1f2328" stroke-width="1.5"/><line x1="${fmt(x(r.low))}" y1="${cy - 6}" x2="${fmt(x(r.low))}" y2="${cy + 6}" stroke="#1f2328"/><line x1="${fmt(x(r.high))}" y1="${cy - 6}" x2="${fmt(x(r.high))}" y2="${cy + 6}" stroke="#1f2328"/>`
          : '';
      return `<g><title>${escapeHtml(`${r.label}: ${r.note}`)}</title>${label}${bar}${whisker}<text x="${left + plot + 8}" y="${cy + 4}">${escapeHtml(r.note)}</text></g>`;
    })
    .join('');
  return `<svg class="rate-chart" role="img" aria-label="resolved rate per agent with its 95% interval" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${grid}${bars}</svg>`;
}

export interface ScatterPoint {
  readonly label: string;
  readonly costUsd: number;
  readonly rate: number;
}

/** Mean cost per trial (x) against resolved rate (y), one labelled point per agent. */
export function costScatterSvg(points: readonly ScatterPoint[]): string {
  const left = 56;
  const top = 16;
  const plotW = 420;
  const plotH = 240;
  const width = left + plotW + 120;
  const height = top + plotH + 44;
  const maxCost = Math.max(0, ...points.map((p) => p.costUsd));
  const xMax = maxCost > 0 ? maxCost * 1.1 : 1;
  const x = (cost: number): number => left + (cost / xMax) * plotW;
  const y = (rate: number): number => top + plotH - rate * plotH;
  const yTicks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (t) =>
        `<line class="axis" x1="${left}" y1="${fmt(y(t))}" x2="${left + plotW}" y2="${fmt(y(t))}"/><text x="${left - 6}" y="${fmt(y(t) + 4)}" text-anchor="end">${t * 100}%</text>`,
    )
    .join('');
  const xTicks = [0, 0.5, 1]
    .map((t) => `<text x="${fmt(left + t * plotW)}" y="${top + plotH + 16}" text-anchor="middle">$${(t * xMax).toFixed(xMax < 0.1 ? 4 : 2)}</text>`)
    .join('');
  const marks = points
    .map(
      (p) =>
        `<g><title>${escapeHtml(`${p.label}: ${Math.round(p.rate * 1000) / 10}% resolved at $${p.costUsd.toFixed(4)} per trial`)}</title><circle cx="${fmt(x(p.costUsd))}" cy="${fmt(y(p.rate))}" r="6" fill="#8250df" opacity="0.85"/><text x="${fmt(x(p.costUsd) + 9)}" y="${fmt(y(p.rate) + 4)}">${escapeHtml(p.label)}</text></g>`,
    )
    .join('');
  const axes = `<line class="axis" x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#8c959f"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#8c959f"/><text x="${left + plotW / 2}" y="${top + plotH + 34}" text-anchor="middle">mean cost per trial</text><text x="14" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${top + plotH / 2})">resolved rate</text>`;
  return `<svg class="cost-scatter" role="img" aria-label="cost against resolved rate" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${yTicks}${axes}${xTicks}${marks}</svg>`;
}

/** The heat map's colour of a rate: red (0) through yellow to green (1); grey without one. */
export function heatColour(rate: number | null): string {
  if (rate === null) return '#eaeef2';
  return `hsl(${Math.round(rate * 120)}, 70%, ${Math.round(82 - rate * 10)}%)`;
}
