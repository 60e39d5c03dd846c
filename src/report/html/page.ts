/**
 * The frame every report page shares: one HTML document that carries its own styles and
 * scripts (no network, no external asset; it opens from disk and from a CI artifact alike)
 * and a Content-Security-Policy that says so to the browser: nothing is fetched, whatever a
 * recorded text might try.
 */
import { createHash } from 'node:crypto';
import { escapeHtml, inlineScript, inlineStyle } from './escape.js';

export interface PageParts {
  readonly title: string;
  readonly body: string;
  /** Styles beside the page's own (a bundled library's). */
  readonly styles?: readonly string[];
  /** Scripts in order, before the page's own. */
  readonly scripts?: readonly string[];
  /** The page's own script, last. */
  readonly script?: string;
}

/**
 * Nothing from anywhere: the page's own inline styles, data: images and fonts, and the page's own
 * scripts, each allowed by the SHA-256 of its exact text, never `'unsafe-inline'`: a script element
 * that a recorded text might smuggle in past the escaping (which is the first defence) does not run.
 * Styles stay `'unsafe-inline'` (style attributes; a style runs no code). Base64 has no `"`, `<` or
 * `&`, so the policy goes into the attribute as it is.
 */
export function contentSecurityPolicy(inlineScripts: readonly string[]): string {
  const hashes = inlineScripts.map((text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
  return `default-src 'none'; style-src 'unsafe-inline'; script-src ${hashes.length > 0 ? hashes.join(' ') : "'none'"}; img-src data:; font-src data:`;
}

export const PAGE_CSS = `
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#fff; --soft:#f6f8fa; --ok:#1a7f37; --okbg:#dafbe1; --bad:#cf222e; --badbg:#ffebe9; --warn:#9a6700; --warnbg:#fff8c5; --accent:#0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 6px; }
.meta { color: var(--muted); margin: 0 0 12px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow: auto; max-height: 480px; white-space: pre; }
table { border-collapse: collapse; margin: 4px 0 8px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
/* diff2html lays its line numbers over their rows (position: absolute) and counts on a table cell's own padding and borders: the page's cells above would push every code row below its number. */
:where(.d2h-diff-table) :is(td, th) { padding: revert; border: revert; vertical-align: revert; text-align: revert; }
/* A score ("100 / 100") or a cost is one figure: it does not break over two lines. */
.nowrap { white-space: nowrap; }
.verdict { border: 1px solid var(--line); border-left: 6px solid var(--accent); border-radius: 6px; padding: 12px 16px; margin: 12px 0; background: var(--soft); }
.verdict.win { border-left-color: var(--ok); }
.verdict.none { border-left-color: var(--bad); }
.verdict .who { font-size: 20px; font-weight: 600; }
.verdict .why { font-size: 15px; margin-top: 4px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: var(--soft); border: 1px solid var(--line); }
.badge.ok { color: var(--ok); background: var(--okbg); border-color: #aceebb; }
.badge.bad { color: var(--bad); background: var(--badbg); border-color: #ffcecb; }
.badge.warn { color: var(--warn); background: var(--warnbg); border-color: #f5e0a0; }
.pass { color: var(--ok); background: var(--okbg); }
.fail { color: var(--bad); background: var(--badbg); }
.skip { color: var(--muted); }
button.cell { font: inherit; font-weight: 600; color: var(--bad); background: none; border: 0; padding: 0; cursor: pointer; text-decoration: underline dotted; }
button.cell[aria-expanded="true"] { text-decoration: underline; }
.check-output h4 { margin: 8px 0 4px; font-size: 13px; }
table.tests td.mark, table.tests th.mark { text-align: center; min-width: 48px; }
details.tests-passed > summary { cursor: pointer; color: var(--muted); }
.timeout { color: var(--warn); background: var(--warnbg); }
.timeout button.cell { color: var(--warn); }
table.distinguish td.mark, table.distinguish th.mark { text-align: center; min-width: 56px; }
table.distinguish .dropped { opacity: 0.45; }
table.distinguish tr.winner > th { box-shadow: inset 4px 0 0 var(--ok); }
table.distinguish tr.base > * { border-top: 2px solid var(--muted); }
p.decided { font-size: 15px; margin: 4px 0 8px; }
.note { color: var(--muted); font-size: 13px; }
.warning { color: var(--warn); }
ul.findings li { margin: 2px 0; }
details.candidate { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
details.candidate > summary { padding: 8px 12px; cursor: pointer; background: var(--soft); border-radius: 6px; }
details.candidate[open] > summary { border-bottom: 1px solid var(--line); border-radius: 6px 6px 0 0; }
details.candidate > .body { padding: 8px 12px; }
.toolbar { margin: 8px 0; }
.toolbar button { font: inherit; padding: 2px 10px; border: 1px solid var(--line); background: var(--bg); cursor: pointer; }
.toolbar button[aria-pressed="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.toolbar button:first-of-type { border-radius: 6px 0 0 6px; } .toolbar button:last-of-type { border-radius: 0 6px 6px 0; }
pre.plain-diff .add { color: var(--ok); } pre.plain-diff .del { color: var(--bad); } pre.plain-diff .hunk { color: var(--accent); } pre.plain-diff .file { font-weight: 700; }
.timeline { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
svg text { font: 11px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: var(--fg); }
svg .axis { stroke: var(--line); }
.heat td.rate { text-align: center; font-variant-numeric: tabular-nums; min-width: 72px; }
.charts { display: flex; gap: 24px; flex-wrap: wrap; align-items: flex-start; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;

export function renderPage(parts: PageParts): string {
  const styles = [PAGE_CSS, ...(parts.styles ?? [])].map((css) => `<style>${inlineStyle(css)}</style>`).join('\n');
  const scriptTexts = [...(parts.scripts ?? []), ...(parts.script ? [parts.script] : [])].map(inlineScript);
  const scripts = scriptTexts.map((text) => `<script>${text}</script>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(scriptTexts)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)}</title>
${styles}
</head>
<body>
<main>
${parts.body}
</main>
${scripts}
</body>
</html>
`;
}
