/**
 * report.html's renderer (src/report/html/run-html.ts) from scripted runs: the verdict's rule
 * for each way a run is decided, the redaction of everything shown, the size caps, and hostile
 * text (a diff or a check's output that tries to close the script element) kept as text.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents, type RunState } from '../../src/engine/record/run-state.js';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { ok, err } from '../../src/result.js';
import { renderRunHtml, type CandidateDiff } from '../../src/report/html/run-html.js';
import { runVerdict } from '../../src/report/html/verdict.js';
import { DIFFS_BUDGET } from '../../src/report/html/diff-cap.js';
import { loadDiffAssets } from '../../src/report/html/assets.js';
import { inlineScript } from '../../src/report/html/escape.js';
import { candidate, check, finished, finishedRun, runStarted, stamp, winnerChosen } from '../ui/scripted-runs.js';

const DIFF = (path: string, line: string): string =>
  `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old\n+${line}\n`;

function diffsOf(state: RunState, text: (id: string) => string = (id) => DIFF(`src/${id}.js`, `// ${id}`)): Map<string, CandidateDiff> {
  return new Map(state.order.map((id) => [id, ok(text(id))]));
}

/** A finished run with the ranking replaced: the rule that decided follows from it. */
function ranked(
  entries: readonly {
    candidate: string;
    score: number;
    costUsd?: number;
    costKnown?: false;
    diffSize?: number;
    eligible?: boolean;
    reason?: string;
    vote?: number;
    combined?: number;
  }[],
  winner: string | undefined,
): RunState {
  const events = finishedRun().map((e): RunEvent => {
    if (e.type === 'selection.finished') {
      return {
        ...e,
        winner,
        ranking: entries.map((r, i) => ({ rank: i + 1, maxScore: 100, costUsd: 0.01, diffSize: 10, durationMs: 4200, iterations: 1, eligible: true, ...r })),
      };
    }
    if (e.type === 'run.finished')
      return winner ? { ...e, winner } : { ...e, status: 'no_winner', exitCode: 1, winner: undefined, message: 'no candidate can win' };
    return e;
  });
  return foldEvents(events);
}

/** The <script> elements of a page, diff2html's bundle taken out (its highlighter for HTML holds `<script` in regular expressions). */
function scriptTags(html: string): number {
  const bundle = loadDiffAssets();
  const page = bundle ? html.replace(inlineScript(bundle.js), '') : html;
  return page.match(/<script\b/gi)?.length ?? 0;
}

describe('the verdict names the rule that decided, in one sentence', () => {
  it('score: "c1 won on score 100 vs 40 for c2", and the candidate that changed a frozen path is flagged', () => {
    const state = foldEvents(finishedRun());
    const verdict = runVerdict(state);
    expect(verdict.rule).toBe('score');
    expect(verdict.sentence).toBe('c1 won on score 100 vs 40 for c2; c3 flagged for editing configs/demo/test/basic.test.mjs.');
    const html = renderRunHtml(state, diffsOf(state), { assets: null });
    expect(html).toContain('data-rule="score"');
    expect(html).toContain('c1 won on score 100 vs 40 for c2; c3 flagged for editing configs/demo/test/basic.test.mjs.');
    // The verdict comes before the ranking.
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="ranking"'));
  });

  it("a tie-break: the first key of the spec's order that separates the two", () => {
    const state = ranked(
      [
        { candidate: 'c2', score: 100, costUsd: 0.01 },
        { candidate: 'c1', score: 100, costUsd: 0.03 },
      ],
      'c2',
    );
    expect(runVerdict(state)).toMatchObject({
      rule: 'tie-break',
      sentence: expect.stringContaining('c2 won on a tie at score 100 with c1, broken by cost $0.0100 vs $0.0300'),
    });
    // With diff_size first in the spec's order, diff size decided (cost is not looked at).
    const bySize = ranked(
      [
        { candidate: 'c2', score: 100, diffSize: 4, costUsd: 0.05 },
        { candidate: 'c1', score: 100, diffSize: 10 },
      ],
      'c2',
    );
    expect(runVerdict(bySize, ['score', 'diff_size', 'cost']).sentence).toContain('broken by diff size 4 vs 10 lines');
    // An unknown cost (shown as 0 in the ranking's number) loses the cost tie-break and is said to be unknown.
    const unknown = ranked(
      [
        { candidate: 'c1', score: 100, costUsd: 0.03 },
        { candidate: 'c2', score: 100, costUsd: 0, costKnown: false },
      ],
      'c1',
    );
    expect(runVerdict(unknown).sentence).toContain('broken by cost $0.0300 vs unknown');
  });

  it("a tie nothing separates: the spec's order of candidates", () => {
    const state = ranked(
      [
        { candidate: 'c1', score: 100 },
        { candidate: 'c2', score: 100 },
      ],
      'c1',
    );
    expect(runVerdict(state)).toMatchObject({ rule: 'order', sentence: expect.stringContaining('c1 won on a tie with c2 that no tie-break separates') });
  });

  it('the only eligible candidate, with why each other one could not win', () => {
    const state = ranked(
      [
        { candidate: 'c1', score: 100 },
        { candidate: 'c2', score: 40, eligible: false, reason: 'score 40 is below min_score 50' },
        { candidate: 'c3', score: 0, eligible: false, reason: 'passed no check' },
      ],
      'c1',
    );
    // c3 changed a frozen path: it is named once, flagged, after the sentence.
    expect(runVerdict(state)).toMatchObject({
      rule: 'only-eligible',
      sentence:
        'c1 won as the only candidate that could win (score 100 of 100; c2: score 40 is below min_score 50); c3 flagged for editing configs/demo/test/basic.test.mjs.',
    });
  });

  it("the vote's combined ranking, with the check and vote scores behind it", () => {
    const state = ranked(
      [
        { candidate: 'c2', score: 40, vote: 1, combined: 0.7 },
        { candidate: 'c1', score: 100, vote: 0, combined: 0.5 },
      ],
      'c2',
    );
    expect(runVerdict(state)).toMatchObject({
      rule: 'vote',
      sentence: expect.stringContaining("c2 won on the vote's combined ranking: 0.7 vs 0.5 for c1 (checks 40 vs 100, votes 1 vs 0)"),
    });
  });

  it('a winner chosen later in the compare view', () => {
    const state = foldEvents([...finishedRun(), winnerChosen()]);
    expect(runVerdict(state)).toMatchObject({
      rule: 'chosen',
      winner: 'c2',
      sentence: expect.stringContaining('c2 won: chosen by you in the compare view, instead of c1'),
    });
    // A choice whose merge failed changed nothing: the run's own rule stands, and the page says what failed.
    const failed = foldEvents([...finishedRun(), winnerChosen({ ok: false, commit: undefined, message: 'the checkout has uncommitted changes' })]);
    expect(runVerdict(failed).rule).toBe('score');
    expect(renderRunHtml(failed, diffsOf(failed), { assets: null })).toContain(
      'chosen in the compare view: c2, but its merge (squash) was not done — the checkout has uncommitted changes',
    );
  });

  it('no winner: why each candidate could not win', () => {
    const state = ranked(
      [
        { candidate: 'c1', score: 0, eligible: false, reason: 'passed no check' },
        { candidate: 'c2', score: 0, eligible: false, reason: 'made no changes' },
      ],
      undefined,
    );
    expect(runVerdict(state)).toMatchObject({
      rule: 'no-winner',
      sentence: expect.stringContaining('No winner: no candidate could win (c1: passed no check, c2: made no changes)'),
    });
    expect(renderRunHtml(state, diffsOf(state), { assets: null })).toContain('<div class="who">No winner</div>');
  });
});

describe('what the page shows', () => {
  it('the ranking, the check matrix with each failing output behind its cell, the timeline and every diff', () => {
    const events = finishedRun().map(
      (e): RunEvent =>
        e.type === 'check.finished' && e.candidate === 'c2' && e.check.name === 'unicode'
          ? { ...e, check: check('unicode', false, 'not ok 1 - strips accents') }
          : e,
    );
    const state = foldEvents(events);
    const html = renderRunHtml(state, diffsOf(state), { assets: null });
    expect(html).toMatch(/<table id="ranking">[\s\S]*data-candidate="c1"[\s\S]*data-candidate="c2"[\s\S]*data-candidate="c3"/);
    expect(html).toMatch(/<button type="button" class="cell" data-output="out-\d+"/);
    expect(html).toContain('c2 · unicode · exit 1 · iteration 1</h4><pre class="failing-part">not ok 1 - strips accents</pre>');
    expect(html).toContain('class="timeline-svg"');
    for (const id of ['c1', 'c2', 'c3']) expect(html).toContain(`// ${id}`);
    expect(html).toContain('tampering</span> c3 modified <code>configs/demo/test/basic.test.mjs</code>');
  });

  it("a diff that could not be read says why, in the candidate's place", () => {
    const state = foldEvents(finishedRun());
    const diffs = diffsOf(state);
    diffs.set('c2', err('neither refs/bestof/r1/c2/kept nor its commit c2aaaaaaaa is in /tmp/repo any more'));
    expect(renderRunHtml(state, diffs, { assets: null })).toContain(
      'Its diff could not be read: neither refs/bestof/r1/c2/kept nor its commit c2aaaaaaaa is in /tmp/repo any more',
    );
  });

  it('with diff2html, its bundle and stylesheet are inside the page, and nothing is loaded from elsewhere', () => {
    const state = foldEvents(finishedRun());
    const html = renderRunHtml(state, diffsOf(state));
    expect(html).toContain('Diff2HtmlUI');
    expect(html).toContain('class="d2h-target"');
    expect(html).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)=/i);
    expect(html).toContain("default-src 'none'");
  });

  it('without it (a broken install), every diff is still there as text, and the page says why', () => {
    const state = foldEvents(finishedRun());
    const html = renderRunHtml(state, diffsOf(state), { assets: null });
    expect(html).not.toContain('defaultDiff2HtmlUIConfig');
    expect(html).not.toContain('class="d2h-target"');
    expect(html).toContain('The diff viewer (diff2html) was not found when this report was written');
    expect(html).toContain('<span class="add">+// c2</span>');
  });
});

describe('secrets are redacted everywhere', () => {
  const SECRET = 'hunter2-very-secret-value-0001';
  const secrets = createSecretSet([['DEPLOY_TOKEN', SECRET]]);

  it('in a diff, a check output, a provider message and a warning', () => {
    const events = finishedRun().flatMap((e): RunEvent[] => {
      if (e.type === 'check.finished' && e.candidate === 'c2' && e.check.name === 'edges')
        return [{ ...e, check: check('edges', false, `curl -H "x: ${SECRET}" failed`) }];
      if (e.type === 'provider.finished' && e.candidate === 'c3') return [{ ...e, message: `used ${SECRET}` }];
      if (e.type === 'run.finished') return [{ t: e.t, type: 'run.warning', message: `leftover ${SECRET}` }, e];
      return [e];
    });
    const state = foldEvents(events);
    const html = renderRunHtml(
      state,
      diffsOf(state, (id) => DIFF('.env', `TOKEN=${SECRET} # ${id}`)),
      { secrets, assets: null },
    );
    expect(html).not.toContain(SECRET);
    expect(html.match(/&lt;redacted:DEPLOY_TOKEN&gt;/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it('by shape too, with no secret set given (a GitHub token in a diff)', () => {
    const state = foldEvents(finishedRun());
    const token = `ghp_${'A1b2C3d4E5'.repeat(4).slice(0, 36)}`;
    const html = renderRunHtml(
      state,
      diffsOf(state, () => DIFF('ci.yml', `token: ${token}`)),
      { assets: null },
    );
    expect(html).not.toContain(token);
  });
});

describe('hostile text stays text', () => {
  const HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror=alert(1)>';

  it('in a diff, a check output, a label and a reason: no element is opened by any of them', () => {
    const events = finishedRun().map((e): RunEvent => {
      if (e.type === 'run.started') return { ...e, name: HOSTILE, candidates: e.candidates.map((c) => (c.id === 'c2' ? { ...c, label: HOSTILE } : c)) };
      if (e.type === 'check.finished' && e.candidate === 'c2' && e.check.name === 'edges') return { ...e, check: check('edges', false, HOSTILE) };
      if (e.type === 'candidate.tampered') return { ...e, paths: [{ path: `test/${HOSTILE}`, change: 'added' }] };
      return e;
    });
    const state = foldEvents(events);
    for (const assets of [undefined, null] as const) {
      const html = renderRunHtml(
        state,
        diffsOf(state, () => DIFF('a.js', HOSTILE)),
        { assets },
      );
      // The page's own scripts only: diff2html's bundle and the page's script, or the page's script alone.
      expect(scriptTags(html)).toBe(assets === null ? 1 : 2);
      expect(html).not.toContain('<img');
      expect(html).not.toContain('window.pwned = 1</script>');
      expect(html).toContain('&lt;/script&gt;&lt;script&gt;window.pwned = 1&lt;/script&gt;');
    }
  });
});

describe('size caps', () => {
  it('a diff over the limit is cut at a file boundary, with a note that says what was left out and how to see it', () => {
    const state = foldEvents(finishedRun());
    const big = Array.from({ length: 40 }, (_, i) => DIFF(`src/file-${i}.js`, 'x'.repeat(1000))).join('');
    const html = renderRunHtml(
      state,
      diffsOf(state, (id) => (id === 'c1' ? big : DIFF('a.js', 'small'))),
      { assets: null, diffLimit: 10_000 },
    );
    // 40 files of 1,135 characters: 8 whole files fit in 10,000.
    expect(html).toContain('Diff truncated: 8 of 40 files shown (9 of 44 KB); the whole diff: <code>git diff bbbbbbbbbb refs/bestof/r1/c1/kept</code>');
    expect(html).toContain('src/file-7.js');
    expect(html).not.toContain('src/file-8.js');
    expect(html).toContain('src/file-0.js');
    expect(html.match(/Diff truncated/g)).toHaveLength(1);
  });

  it('64 candidates with 1 MB diffs each: a page of a few MB, every candidate in it', () => {
    const cs = Array.from({ length: 64 }, (_, i) => candidate(i + 1, `agent ${i + 1}`));
    type Scripted = Parameters<typeof stamp>[0][number];
    const perCandidate = cs.flatMap((c, i): Scripted[] => [
      { type: 'candidate.status', candidate: c.id, status: 'running', iteration: 1 },
      {
        type: 'provider.finished',
        candidate: c.id,
        iteration: 1,
        outcome: 'success',
        costUsd: 0.01,
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        turns: 1,
        durationMs: 10,
      },
      { type: 'check.finished', candidate: c.id, iteration: 1, check: check('basic', i % 2 === 0, 'x'.repeat(50_000)) },
      { type: 'candidate.scored', candidate: c.id, iteration: 1, score: i % 2 === 0 ? 40 : 0, maxScore: 100, failedChecks: [] },
      finished(c.id, 'done', 'max_iterations', i % 2 === 0 ? 40 : 0),
    ]);
    const all = [
      runStarted(cs),
      ...perCandidate,
      { type: 'run.finished', status: 'no_winner', exitCode: 1, durationMs: 1000, message: 'no winner' },
    ] as Scripted[];
    const events = stamp(all);
    const state = foldEvents(events);
    const huge = Array.from({ length: 200 }, (_, i) => DIFF(`src/f${i}.js`, 'y'.repeat(5000))).join('');
    const html = renderRunHtml(
      state,
      diffsOf(state, () => huge),
    );
    const bytes = Buffer.byteLength(html);
    expect(bytes).toBeLessThan(DIFFS_BUDGET + 2 * 1024 * 1024);
    expect(html.match(/<details class="candidate"/g)).toHaveLength(64);
    expect(html.match(/Diff truncated/g)).toHaveLength(64);
  });
});
