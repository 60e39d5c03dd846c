/**
 * report.html: one self-contained page for the people who review what a run chose. The
 * verdict first (the winner and the rule that decided, in one sentence), then the ranking, the
 * check matrix (a failing cell opens the tail of its output), the tests of the checks with a
 * report (./tests-html.ts), the distinguishing tests (./distinguish-html.ts), the findings (frozen paths changed, candidates that cannot be
 * trusted, the run's warnings: an unsandboxed run, a ref that moved), the reviews, the vote
 * (ballots de-anonymised, the tally), and each candidate's iterations and diff (diff2html with
 * highlight.js, bundled in; plain text without it).
 *
 * Built from the folded run state like report.md and report.json, plus the diffs from git.
 * Everything shown goes through the run's redaction first, then through escapeHtml: a diff or
 * a check's output is text, whatever it holds.
 */
import type { CheckOutcome } from '../../checks/run-checks.js';
import { failingOutput, failingTestLines } from '../../engine/record/failing-part.js';
import { costIsKnown, type CandidateState, type IterationState, type RunState } from '../../engine/record/run-state.js';
import { SHAPES_ONLY, type SecretSet } from '../../engine/sandbox/secrets.js';
import { madeBinaryWords, plural } from '../../engine/words.js';
import { othersStopped, othersStoppedWords } from '../../engine/record/others-stopped.js';
import type { Result } from '../../result.js';
import type { TieBreak } from '../../spec/schema.js';
import { formatDuration } from '../../spec/duration.js';
import { loadDiffAssets, type DiffAssets } from './assets.js';
import { capDiff, diffLimitFor, headOf, tailOf } from './diff-cap.js';
import { distinguishHtml } from './distinguish-html.js';
import { escapeHtml as h } from './escape.js';
import { renderPage } from './page.js';
import { timelineSvg, type TimelinePoint } from './svg.js';
import { testsHtml } from './tests-html.js';
import { voteHtml } from './vote-html.js';
import { DEFAULT_TIE_BREAK, runVerdict } from './verdict.js';

/** A candidate's diff against the run's base, or why it could not be read. */
export type CandidateDiff = Result<string>;

export interface RunHtmlOptions {
  /** The run's redaction, applied to everything shown (the state, the diffs, the check outputs). @default shapes only */
  readonly secrets?: SecretSet;
  /** The spec's `select.tie_break`, to name the tie-break that decided. @default the spec's default */
  readonly tieBreak?: readonly TieBreak[];
  /** diff2html's bundle; null renders plain diffs. @default read from node_modules (loadDiffAssets) */
  readonly assets?: DiffAssets | null;
  /** The limit of each diff. @default diffLimitFor(the number of candidates) */
  readonly diffLimit?: number;
}

const num = (n: number): string => String(Math.round(n * 1000) / 1000);
const domId = (prefix: string, i: number): string => `${prefix}-${i}`;

function cost(usd: number, known: boolean): string {
  if (known) return `$${usd.toFixed(4)}`;
  return usd === 0 ? '–' : `$${usd.toFixed(4)}+`;
}

function statusBadge(status: string): string {
  const tone = status === 'winner' || status === 'done' ? 'ok' : status === 'failed' || status === 'no_winner' ? 'bad' : status === 'running' ? '' : 'warn';
  return `<span class="badge ${tone}">${h(status)}</span>`;
}

export function renderRunHtml(rawState: RunState, rawDiffs: ReadonlyMap<string, CandidateDiff>, options: RunHtmlOptions = {}): string {
  const secrets = options.secrets ?? SHAPES_ONLY;
  // The record is redacted when written; a report is redacted again with the secrets known now.
  const state = secrets.redactDeep(rawState);
  const assets = options.assets === undefined ? loadDiffAssets() : options.assets;
  const limit = options.diffLimit ?? diffLimitFor(state.order.length);
  const body = [
    headerHtml(state),
    verdictHtml(state, options.tieBreak ?? DEFAULT_TIE_BREAK),
    rankingHtml(state),
    checkMatrixHtml(state, secrets),
    testsHtml(state),
    distinguishHtml(state),
    findingsHtml(state),
    reviewsHtml(state),
    voteHtml(state),
    candidatesHtml(state, rawDiffs, secrets, limit, assets !== null),
    `<footer>Written by bestof from the run's record (${h(state.runDir)}); report.json and report.md beside it hold the same data.</footer>`,
  ].join('\n');
  return renderPage({
    title: `bestof ${state.runId} — ${state.name}`,
    body,
    ...(assets ? { styles: [assets.css], scripts: [assets.js] } : {}),
    script: PAGE_SCRIPT,
  });
}

function headerHtml(state: RunState): string {
  const base = `base <code>${h(state.base)}</code> (${h(state.baseCommit.slice(0, 10))}) in ${h(state.repo)}`;
  const spent = `${formatDuration(state.durationMs)}, ${cost(state.costUsd, costIsKnown(state))}${state.voteCostUsd > 0 ? ` (the vote: $${state.voteCostUsd.toFixed(4)})` : ''}${(state.distinguishCostUsd ?? 0) > 0 ? ` (the tester: $${(state.distinguishCostUsd ?? 0).toFixed(4)})` : ''}`;
  return `<h1>bestof run ${h(state.runId)} — ${h(state.name)}</h1>
<p class="meta">${statusBadge(state.status)} ${plural(state.order.length, 'candidate')} · ${base} · ${h(spent)}${state.finishedAt ? ` · finished ${h(state.finishedAt)}` : ''}</p>`;
}

function verdictHtml(state: RunState, tieBreak: readonly TieBreak[]): string {
  const verdict = runVerdict(state, tieBreak);
  const winner = verdict.winner ? state.candidates[verdict.winner] : undefined;
  const who = winner ? `Winner: ${h(winner.id)} <span class="note">(${h(winner.label)})</span>` : verdict.rule === 'running' ? 'No verdict yet' : 'No winner';
  const lines: string[] = [];
  if (state.merge) lines.push(`merge (${h(state.merge.mode)}): ${state.merge.ok ? 'done' : '<strong>not done</strong>'} — ${h(state.merge.message)}`);
  const chosen = state.chosen;
  if (chosen && !chosen.ok)
    lines.push(`chosen in the compare view: ${h(chosen.candidate)}, but its merge (${h(chosen.mode)}) was not done — ${h(chosen.message)}`);
  if (state.message && state.status !== 'winner') lines.push(h(state.message));
  const stoppedEarly = othersStopped(state);
  if (stoppedEarly) lines.push(`stopped early: ${h(othersStoppedWords(stoppedEarly))}`);
  return `<section id="verdict" class="verdict ${winner ? 'win' : 'none'}" data-rule="${verdict.rule}">
<div class="who">${who}</div>
<div class="why">${h(verdict.sentence)}</div>
${lines.map((l) => `<div class="note">${l}</div>`).join('\n')}
</section>`;
}

function rankedIds(state: RunState): string[] {
  const ranked = state.ranking.map((r) => r.candidate);
  return [...ranked, ...state.order.filter((id) => !ranked.includes(id))];
}

/** Files the candidate's commit made binary, as a warning badge beside its diff size; empty when none. */
function madeBinaryHtml(c: CandidateState): string {
  const words = madeBinaryWords(c.diff);
  return words ? ` <span class="badge bad">${h(words)}</span>` : '';
}

function rankingHtml(state: RunState): string {
  const withVote = state.ranking.some((r) => r.combined !== undefined);
  const rows = rankedIds(state).map((id, i) => {
    const c = state.candidates[id];
    if (!c) return '';
    const r = state.ranking.find((x) => x.candidate === id);
    const frozen = c.tampered.filter((p) => (p.rule ?? 'frozen') === 'frozen');
    // The ranking's reason names the frozen paths when they are why the candidate cannot win.
    const frozenNote =
      frozen.length > 0 && !r?.reason?.startsWith('changed frozen paths') ? `changed frozen ${frozen.map((p) => p.path).join(', ')}` : undefined;
    const autorunNote = r?.autorun && r.eligible ? `runs code in your checkout: ${r.autorun.join(', ')}` : undefined;
    const distinguishNote = r?.distinguish ? `passed ${r.distinguish.passed} of ${r.distinguish.of} distinguishing tests` : undefined;
    const note = [r?.reason, distinguishNote, frozenNote, autorunNote, c.message].filter(Boolean).join('; ');
    const vote = withVote
      ? `<td class="num">${r?.vote === undefined ? '–' : num(r.vote)}</td><td class="num">${r?.combined === undefined ? '–' : num(r.combined)}</td>`
      : '';
    return `<tr data-candidate="${h(id)}"${id === state.winner ? ' class="pass"' : ''}><td class="num">${r?.rank ?? i + 1}</td><td><strong>${h(id)}</strong> ${h(c.label)}</td><td class="num nowrap">${c.score ?? '–'} / ${c.maxScore}</td>${vote}<td class="num nowrap">${cost(c.costUsd, costIsKnown(c))}</td><td class="num">+${c.diff.insertions} −${c.diff.deletions} (${plural(c.diff.files, 'file')})${madeBinaryHtml(c)}</td><td class="num">${h(formatDuration(c.durationMs))}</td><td class="num">${c.iteration}</td><td>${statusBadge(c.status)}${c.reason ? ` <span class="note">${h(c.reason)}</span>` : ''}</td><td>${h(note)}</td></tr>`;
  });
  const head = `<tr><th class="num">rank</th><th>candidate</th><th class="num">score</th>${withVote ? '<th class="num">vote</th><th class="num">combined</th>' : ''}<th class="num">cost</th><th class="num">diff</th><th class="num">time</th><th class="num">iterations</th><th>status</th><th>note</th></tr>`;
  return `<h2>Ranking</h2>\n<table id="ranking">${head}\n${rows.join('\n')}</table>`;
}

/** A candidate's last iteration that ran checks: what its score is made of. */
function lastChecked(c: CandidateState): IterationState | undefined {
  return c.iterations.filter((it) => it.checks.length > 0).at(-1);
}

/**
 * A failed check's failing part (src/engine/record/failing-part.ts), as the dashboard and report.md
 * show it: its tests by name with their messages when its report names them, else the excerpt of
 * its output; then the end of its output, folded, for what comes after.
 */
function failingPartHtml(r: CheckOutcome, secrets: SecretSet): string {
  const tests = failingTestLines(r.report, 10);
  const part = tests.length > 0 ? tests.join('\n') : failingOutput(r);
  const tail = tailOf(secrets.redact(r.outputTail));
  const end = tail !== '' && tail !== part ? `<details class="output-end"><summary>the end of its output</summary><pre>${h(tail)}</pre></details>` : '';
  return `<pre class="failing-part">${h(secrets.redact(part)) || '(no output)'}</pre>${end}`;
}

function checkMatrixHtml(state: RunState, secrets: SecretSet): string {
  if (state.checks.length === 0) return '<h2>Checks</h2>\n<p class="note">The spec has no checks.</p>';
  const outputs: string[] = [];
  const rows = state.order.map((id) => {
    const c = state.candidates[id];
    const last = c ? lastChecked(c) : undefined;
    const cells = state.checks.map((k) => {
      const r = last?.checks.find((x) => x.name === k.name);
      if (!r) return '<td class="skip">–</td>';
      if (r.passed) return `<td class="pass" title="${h(`${r.points} of ${r.maxPoints} points, ${formatDuration(r.durationMs)}`)}">pass</td>`;
      const target = domId('out', outputs.length);
      const label = r.timedOut ? 'timeout' : 'FAIL';
      const end = r.timedOut ? 'timed out' : `exit ${r.exitCode ?? 'none (killed)'}`;
      // A check with a report says what its tests came to first ("3 of 50 tests failed").
      const exit = r.report?.failure ? `${r.report.failure} · ${end}` : end;
      outputs.push(
        `<div id="${target}" class="check-output" hidden><h4>${h(id)} · ${h(k.name)} · ${h(exit)} · iteration ${last?.iteration ?? '?'}</h4>${failingPartHtml(r, secrets)}</div>`,
      );
      return `<td class="fail"><button type="button" class="cell" data-output="${target}" aria-expanded="false" title="show the failing part of its output">${label}</button></td>`;
    });
    return `<tr data-candidate="${h(id)}"><th>${h(id)}</th>${cells.join('')}</tr>`;
  });
  const head = `<tr><th>candidate</th>${state.checks.map((k) => `<th>${h(k.name)} <span class="note">(${k.score})</span></th>`).join('')}</tr>`;
  return `<h2>Checks <span class="note">(each candidate's last checked iteration; click a failing cell for the failing part of its output)</span></h2>
<table id="check-matrix">${head}\n${rows.join('\n')}</table>
<div id="check-outputs">${outputs.join('\n')}</div>`;
}

function findingsHtml(state: RunState): string {
  const items: string[] = [];
  for (const id of state.order) {
    const c = state.candidates[id];
    if (!c) continue;
    for (const p of c.tampered) {
      const rule = (p.rule ?? 'frozen') === 'frozen' ? 'a frozen path' : 'a path outside [checks] editable (reverted before a merge)';
      items.push(
        `<li><span class="badge ${(p.rule ?? 'frozen') === 'frozen' ? 'bad' : 'warn'}">tampering</span> ${h(id)} ${h(p.change)} <code>${h(p.path)}</code>: ${rule}</li>`,
      );
    }
  }
  for (const r of state.ranking) {
    if (r.reason && /moved|gone|missing/.test(r.reason)) items.push(`<li><span class="badge bad">untrusted</span> ${h(r.candidate)}: ${h(r.reason)}</li>`);
  }
  for (const w of state.warnings) items.push(`<li><span class="badge warn">${/sandbox/i.test(w) ? 'sandbox' : 'warning'}</span> ${h(w)}</li>`);
  return `<h2>Findings</h2>\n${items.length > 0 ? `<ul id="findings" class="findings">${items.join('\n')}</ul>` : '<p id="findings" class="note">No tampering, no untrusted candidate, no warning.</p>'}`;
}

function reviewsHtml(state: RunState): string {
  const rows = state.order.flatMap((id) =>
    (state.candidates[id]?.iterations ?? []).flatMap((it) =>
      it.review
        ? [
            `<tr><td>${h(id)}</td><td class="num">${it.iteration}</td><td>${statusBadge(it.review.verdict)}</td><td class="num">${it.review.points}</td><td>${h(headOf(it.review.reason ?? ''))}</td></tr>`,
          ]
        : [],
    ),
  );
  if (rows.length === 0) return '';
  return `<h2>Reviews</h2>\n<table id="reviews"><tr><th>candidate</th><th class="num">iteration</th><th>verdict</th><th class="num">points</th><th>reason</th></tr>\n${rows.join('\n')}</table>`;
}

function timelineOf(c: CandidateState): TimelinePoint[] {
  return c.iterations.map((it) => ({
    iteration: it.iteration,
    score: it.score,
    // An agent that reported no cost (a command agent) cost "–", not $0.
    costUsd: it.costUsd === 0 && !costIsKnown(it) ? undefined : it.costUsd,
    outcome: it.outcome,
    tone: it.score !== undefined && it.score >= c.maxScore && c.maxScore > 0 ? 'ok' : it.outcome !== undefined && it.outcome !== 'success' ? 'bad' : 'neutral',
  }));
}

function iterationsTable(c: CandidateState): string {
  const rows = c.iterations.map((it) => {
    const checks = it.checks.map((k) => `${k.name} ${k.passed ? 'pass' : k.timedOut ? 'timeout' : 'FAIL'}`).join(', ');
    const flags = it.tampered.length > 0 ? `tampered: ${it.tampered.map((p) => p.path).join(', ')}` : '';
    return `<tr><td class="num">${it.iteration}</td><td>${h(it.outcome ?? '–')}${it.providerMessage ? ` <span class="note">${h(headOf(it.providerMessage, 400))}</span>` : ''}</td><td class="num">${it.score ?? '–'}</td><td class="num nowrap">${it.costUsd === undefined ? '–' : cost(it.costUsd, costIsKnown(it))}</td><td class="mono">${h(it.commit?.slice(0, 10) ?? '–')}</td><td>${h(checks)}</td><td>${h(flags)}${it.review ? ` review: ${h(it.review.verdict)}` : ''}</td></tr>`;
  });
  return `<table class="iterations"><tr><th class="num">#</th><th>outcome</th><th class="num">score</th><th class="num">cost</th><th>commit</th><th>checks</th><th>flags</th></tr>${rows.join('')}</table>`;
}

/** The diff as escaped text, each line marked for the plain view's colours; its text is the diff itself. */
function plainDiff(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const cls = line.startsWith('diff --git ')
        ? 'file'
        : line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+') && !line.startsWith('+++')
            ? 'add'
            : line.startsWith('-') && !line.startsWith('---')
              ? 'del'
              : '';
      return cls ? `<span class="${cls}">${h(line)}</span>` : h(line);
    })
    .join('\n');
}

function diffHtml(c: CandidateState, diff: CandidateDiff | undefined, secrets: SecretSet, limit: number, rich: boolean, baseCommit: string): string {
  if (diff === undefined) return '<p class="note diff-missing">No diff was collected for this candidate.</p>';
  if (!diff.ok) return `<p class="warning diff-missing">Its diff could not be read: ${h(diff.error)}</p>`;
  if (diff.value.trim() === '') return '<p class="note diff-empty">No changes against the base.</p>';
  // Redacted before it is cut, so that a cut never leaves half a secret.
  const capped = capDiff(secrets.redact(diff.value), limit);
  const t = capped.truncated;
  const note = t
    ? `<p class="warning diff-truncated">Diff truncated: ${t.shownFiles} of ${plural(t.totalFiles, 'file')} shown (${Math.round(t.shownChars / 1024)} of ${Math.round(t.totalChars / 1024)} KB); the whole diff: <code>git diff ${h(baseCommit.slice(0, 10))} ${h(c.ref)}</code></p>`
    : '';
  return `${note}<pre class="plain-diff">${plainDiff(capped.text)}</pre>${rich ? '<div class="d2h-target"></div>' : ''}`;
}

function candidatesHtml(state: RunState, diffs: ReadonlyMap<string, CandidateDiff>, secrets: SecretSet, limit: number, rich: boolean): string {
  const sections = rankedIds(state).map((id) => {
    const c = state.candidates[id];
    if (!c) return '';
    const frozen = c.tampered.filter((p) => (p.rule ?? 'frozen') === 'frozen').length;
    const summary = `<strong>${h(id)}</strong> ${h(c.label)} · <span class="nowrap">${c.score ?? '–'} / ${c.maxScore}</span> · ${plural(c.iteration, 'iteration')} · +${c.diff.insertions} −${c.diff.deletions}${madeBinaryHtml(c)}${id === state.winner ? ' <span class="badge ok">winner</span>' : ''}${frozen > 0 ? ' <span class="badge bad">tampered</span>' : ''}`;
    const meta = `<p class="meta">${h(c.provider)}${c.model ? ` · ${h(c.model)}` : ''} · branch <code>${h(c.branch)}</code> · kept at <code>${h(c.ref)}</code>${c.commit ? ` (${h(c.commit.slice(0, 10))})` : ''}${c.cli ? ` · ${h(c.cli.binary)} ${h(c.cli.version ?? '')}` : ''}</p>`;
    const timeline =
      c.iterations.length > 0
        ? `<div class="timeline">${timelineSvg(timelineOf(c), c.maxScore)}${iterationsTable(c)}</div>`
        : '<p class="note">No iteration ran.</p>';
    return `<details class="candidate" id="candidate-${h(id)}" data-candidate="${h(id)}"${id === state.winner ? ' open' : ''}>
<summary>${summary}</summary>
<div class="body">${meta}
<h3>Iterations</h3>${timeline}
<h3>Diff</h3>${diffHtml(c, diffs.get(id), secrets, limit, rich, state.baseCommit)}</div>
</details>`;
  });
  const toolbar = rich
    ? '<div class="toolbar" role="group" aria-label="diff layout"><button type="button" data-format="line-by-line" aria-pressed="true">unified</button><button type="button" data-format="side-by-side" aria-pressed="false">side by side</button></div>'
    : '<p class="note">The diff viewer (diff2html) was not found when this report was written: the diffs are plain text.</p>';
  return `<h2>Candidates</h2>\n${toolbar}\n${sections.join('\n')}`;
}

/**
 * The page's own behaviour: a failing check cell opens its output; a candidate's diff is drawn
 * by diff2html when its section opens (64 highlighted diffs at once would make the page slow to
 * open), in the layout chosen. Without diff2html the plain diff stays.
 */
const PAGE_SCRIPT = `
(function () {
  'use strict';
  var format = 'line-by-line';
  function draw(section) {
    var pre = section.querySelector('pre.plain-diff');
    var target = section.querySelector('.d2h-target');
    if (!pre || !target || typeof Diff2HtmlUI === 'undefined') return;
    if (section.getAttribute('data-drawn') === format) return;
    try {
      // Markdown as plain text: highlight.js drops the text of HTML tags inside Markdown when
      // diff2html merges its spans back (a note that quotes a tag would lose those words).
      var ui = new Diff2HtmlUI(target, pre.textContent, { outputFormat: format, drawFileList: true, fileListToggle: false, matching: 'lines', highlight: true, synchronisedScroll: true, highlightLanguages: { md: 'plaintext', markdown: 'plaintext' } });
      ui.draw();
      ui.highlightCode();
      pre.hidden = true;
      section.setAttribute('data-drawn', format);
    } catch (e) {
      pre.hidden = false;
    }
  }
  var sections = document.querySelectorAll('details.candidate');
  Array.prototype.forEach.call(sections, function (s) {
    s.addEventListener('toggle', function () { if (s.open) draw(s); });
    if (s.open) draw(s);
  });
  Array.prototype.forEach.call(document.querySelectorAll('.toolbar button[data-format]'), function (b) {
    b.addEventListener('click', function () {
      format = b.getAttribute('data-format');
      Array.prototype.forEach.call(document.querySelectorAll('.toolbar button[data-format]'), function (o) { o.setAttribute('aria-pressed', String(o === b)); });
      Array.prototype.forEach.call(sections, function (s) { if (s.open) draw(s); else s.removeAttribute('data-drawn'); });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('button.cell[data-output]'), function (b) {
    b.addEventListener('click', function () {
      var panel = document.getElementById(b.getAttribute('data-output'));
      if (!panel) return;
      var show = panel.hidden;
      Array.prototype.forEach.call(document.querySelectorAll('.check-output'), function (p) { p.hidden = true; });
      Array.prototype.forEach.call(document.querySelectorAll('button.cell'), function (o) { o.setAttribute('aria-expanded', 'false'); });
      panel.hidden = !show;
      b.setAttribute('aria-expanded', String(show));
    });
  });
})();
`;
