/** The compare view of a finished run: ranking, check matrix, diff, choosing another winner. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventOf, RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { KEY, renderRun, type Rendered } from './render-helpers.js';
import { DIFF_C2, finishedRun, T0 } from './scripted-runs.js';

/**
 * The finished demo run with agents that report no cost: c2 a command agent, c3 a Codex whose
 * model has no price (tokens, and a cost of 0).
 */
function unpricedRun(): RunEvent[] {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return finishedRun().map((e): RunEvent => {
    if (e.type === 'run.started')
      return { ...e, candidates: e.candidates.map((c) => (c.id === 'c2' ? { ...c, provider: 'command' } : c.id === 'c3' ? { ...c, provider: 'codex' } : c)) };
    if (e.type === 'provider.finished' && e.candidate !== 'c1') return { ...e, costUsd: 0, usage: e.candidate === 'c2' ? zero : e.usage };
    if (e.type === 'selection.finished') return { ...e, ranking: e.ranking.map((r) => (r.candidate === 'c1' ? r : { ...r, costUsd: 0 })) };
    return e;
  });
}

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

const loadDiff = vi.fn(async ({ to }: { to: string }) => (to.startsWith('c2') ? DIFF_C2 : ''));

describe('the compare view', () => {
  it("ranks the candidates with a check matrix and shows the winner's diff", async () => {
    ui = await renderRun(finishedRun(), { loadDiff });
    const frame = ui.frame();
    expect(frame).toContain('bestof demo · winner c1 thorough · 6.1s');
    expect(frame).toMatch(/#\s+candidate\s+points\s+cost\s+time diff\s+basic unicode edges/);
    expect(frame).toMatch(/› 1\.\s+c1 thorough 100\/100\s+\$0\.010\s+4\.2s \+9 -1\s+✓\s+✓\s+✓\s+winner/);
    expect(frame).toMatch(/ {2}2\.\s+c2 hasty\s+40\/100 .*✓\s+✗\s+✗/);
    expect(frame).toMatch(/ {2}3\.\s+c3 gamer\s+0\/100 .*✗\s+✗\s+✗\s+TAMPERED · passed no check/);
    expect(frame).toContain('Reviews and votes: none in this run');
    expect(frame).toContain('Diff of c1 thorough against base bbbbbbbbbb');
    expect(frame).toContain('the commit changes nothing against the base');
  });

  it("shows the selected candidate's diff with its files, scrolls it and jumps between files", async () => {
    ui = await renderRun(finishedRun(), { loadDiff, rows: 24 });
    await ui.press(KEY.down);
    let frame = ui.frame();
    expect(loadDiff).toHaveBeenCalledWith({ repo: '/tmp/repo', from: 'b'.repeat(40), to: 'c2'.padEnd(40, 'a') });
    expect(frame).toContain('Diff of c2 hasty against base bbbbbbbbbb · 2 files +4 -1');
    expect(frame).toContain('files: configs/demo/slugify.mjs +3 -1  notes.md +1 -0');
    expect(frame).toContain('+  return title.toLowerCase()');
    const firstDiffLine = (text: string) =>
      text.split('\n').find((line) => line.startsWith('diff --git') || line.startsWith('index') || line.startsWith('---'));
    expect(firstDiffLine(frame)).toContain('diff --git a/configs/demo/slugify.mjs');
    await ui.press('j');
    frame = ui.frame();
    expect(firstDiffLine(frame)).toMatch(/^index 1111111/);
    await ui.press('n');
    frame = ui.frame();
    expect(frame).toContain('diff --git a/notes.md b/notes.md');
    expect(frame).not.toContain('diff --git a/configs/demo/slugify.mjs');
  });

  it('chooses another winner after a confirmation, through chooseWinner', async () => {
    const chooseWinner = vi.fn(async () => ({ ok: true, message: 'merged bestof/r1/c2 into main (squash) as 1234567890' }));
    ui = await renderRun(finishedRun(), { loadDiff, commands: { chooseWinner } });
    await ui.press(KEY.down, 'w');
    expect(ui.frame()).toContain('Make c2 hasty the winner with merge = "branch"?');
    await ui.press(KEY.right, KEY.right, 'y');
    expect(chooseWinner).toHaveBeenCalledWith('c2', 'merge');
    const frame = ui.frame();
    expect(frame).toMatch(/2\.\s+c2 hasty .*chosen by you: merged/);
    expect(frame).toContain('merged bestof/r1/c2 into main (squash) as 1234567890');
  });

  it('asks about a tampered candidate with its score and its tampering named, and a clean one with its score', async () => {
    ui = await renderRun(finishedRun(), { loadDiff, commands: { chooseWinner: vi.fn() } });
    await ui.press(KEY.down, 'w');
    expect(ui.frame()).toContain('Make c2 hasty the winner with merge = "branch"? It scored 40/100.');
    expect(ui.frame()).not.toContain('TAMPERED:');
    await ui.press('n', KEY.down, 'w');
    const question = ui.frame().replace(/\s+/g, ' ');
    expect(question).toContain(
      'Make c3 gamer the winner with merge = "branch"? It scored 0/100 and TAMPERED: it changed 1 frozen path (configs/demo/test/basic.test.mjs)',
    );
  });

  it('names the chosen winner in its title once the choice is recorded (winner.chosen), in `bestof show` too', async () => {
    const recorded: EventOf<'winner.chosen'> = {
      t: new Date(T0 + 60_000).toISOString(),
      type: 'winner.chosen',
      candidate: 'c2',
      previous: 'c1',
      mode: 'squash',
      ok: true,
      commit: '1234567890'.padEnd(40, '0'),
      branch: 'bestof/r1/c2',
      message: 'merged bestof/r1/c2 into main (squash) as 1234567890',
      by: 'user',
    };
    const chooseWinner = vi.fn(async () => ({ ok: true, message: recorded.message, recorded }));
    ui = await renderRun([], { mode: 'review', run: foldEvents(finishedRun()), loadDiff, commands: { chooseWinner } });
    expect(ui.frame()).toContain('bestof demo · winner c1 thorough');
    await ui.press(KEY.down, 'w', 'y');
    const frame = ui.frame();
    expect(frame).toContain('bestof demo · winner c2 hasty');
    // The run's own winner is no longer marked as the winner.
    expect(frame).toMatch(/^ {2}1\.\s+c1 thorough 100\/100 .*✓$/m);
    expect(frame).toMatch(/› 2\.\s+c2 hasty .*chosen by you: merged/);
    expect(ui.store.getSnapshot().run.chosen).toMatchObject({ candidate: 'c2', previous: 'c1', ok: true });
  });

  it('shows "–" for a cost no agent reported, in the rows and the title, never "$0"', async () => {
    ui = await renderRun(unpricedRun(), { loadDiff });
    const frame = ui.frame();
    expect(frame).toContain('bestof demo · winner c1 thorough · 6.1s · $0.010+ · merge');
    expect(frame).toMatch(/1\.\s+c1 thorough 100\/100\s+\$0\.010\s+4\.2s/);
    expect(frame).toMatch(/2\.\s+c2 hasty\s+40\/100\s+–\s+4\.2s/);
    expect(frame).toMatch(/3\.\s+c3 gamer\s+0\/100\s+–\s+4\.2s/);
    expect(frame).not.toMatch(/\$0 /);
  });

  it('says so when the merge of a chosen winner fails', async () => {
    const chooseWinner = vi.fn(async () => ({ ok: false, message: 'the checkout has uncommitted changes; nothing was merged' }));
    ui = await renderRun(finishedRun(), { loadDiff, commands: { chooseWinner } });
    await ui.press(KEY.down, 'w', 'y');
    expect(ui.frame()).toMatch(/c2 hasty .*merge failed: the checkout/);
    expect(ui.frame()).toContain('the checkout has uncommitted changes; nothing was merged');
  });

  it('fits a 60-column terminal: check names give way to one glyph per check', async () => {
    ui = await renderRun(finishedRun(), { loadDiff, columns: 60 });
    const lines = ui.frame().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(ui.frame()).toMatch(/› 1\.\s+c1 thorough 100\/100\s+\$0\.010\s+4\.2s ✓✓✓\s+winner/);
    expect(ui.frame()).toMatch(/3\.\s+c3 gamer\s+0\/100 .* ✗✗✗\s+TAMPERED/);
    expect(ui.frame()).not.toContain('unicode');
  });

  it('shows a finished run for `bestof show` (folded from its event log), and q quits', async () => {
    ui = await renderRun([], { mode: 'review', run: foldEvents(finishedRun()), loadDiff });
    expect(ui.frame()).toContain('winner c1 thorough');
    expect(ui.frame()).toMatch(/› 1\.\s+c1 thorough/);
    expect(ui.frame()).toContain('q quit');
    await ui.press('q');
    expect(ui.store.getSnapshot().exitRequested).toBe(true);
  });

  it('lists its own keys on ?: the arrows select, j and k scroll the diff (each said once)', async () => {
    ui = await renderRun(finishedRun(), { loadDiff, commands: { chooseWinner: vi.fn() } });
    await ui.press('?');
    const help = ui.frame();
    expect(help).toContain('Keys of the compare view');
    expect(help).toMatch(/^ {2}↑ ↓ {13}select a candidate$/m);
    expect(help).toMatch(/^ {2}j k {13}scroll the diff \(or the vote\) by a line$/m);
    expect(help.match(/select a candidate/g)).toHaveLength(1);
    expect(help).not.toContain('(k j)');
    expect(help).toMatch(/^ {2}w {15}merge the selected candidate as the winner \(asks first\)$/m);
    expect(help).toMatch(/^ {2}q \/ Ctrl-C {6}quit$/m);
    expect(help).not.toContain('cancel the run');
  });

  it("lists the keys of a candidate's details after the run on ?: there k and j select, and nothing scrolls", async () => {
    ui = await renderRun(finishedRun(), { loadDiff, commands: { chooseWinner: vi.fn() } });
    await ui.press(KEY.down, KEY.enter, '?');
    const help = ui.frame();
    expect(help).toContain("Keys of a candidate's details");
    expect(help).toMatch(/^ {2}↑ ↓ {2}\(k j\) {6}select a candidate$/m);
    expect(help).toMatch(/^ {2}esc \/ backspace back to the ranking$/m);
    expect(help).toMatch(/^ {2}w {15}merge the selected candidate as the winner \(asks first\)$/m);
    expect(help).not.toContain('scroll');
    expect(help).not.toContain('next / previous file');
    // And they do select: k goes back up from c2 to c1.
    await ui.press(KEY.escape, 'k');
    expect(ui.frame()).toMatch(/^c1 thorough · /m);
  });

  it("opens a candidate's iteration history from the ranking and comes back", async () => {
    ui = await renderRun(finishedRun(), { loadDiff });
    await ui.press(KEY.down, KEY.down, KEY.enter);
    expect(ui.frame()).toContain('TAMPERED (ignored for scoring): configs/demo/test/basic.test.mjs (modified)');
    await ui.press(KEY.escape);
    expect(ui.frame()).toContain('Reviews and votes');
  });
});
