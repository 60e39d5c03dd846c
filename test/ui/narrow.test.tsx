/**
 * Every screen at 60 and 80 columns (ink-testing-library): nothing that matters is cut. The
 * footer keeps its quit and help keys and drops the others first; the merge command at the end
 * of a run wraps whole; headers keep the winner and the cost; the keys' help and the details
 * wrap instead of losing their ends.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { KEY, renderRun, type Rendered } from './render-helpers.js';
import { candidate, check, DIFF_C2, finishedRun, mixedRun, runStarted, stamp } from './scripted-runs.js';

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

/** A run id as `bestof run` makes them (the scripted runs' "r1" fits anywhere). */
const RUN_ID = '20261203-081137-8e36';

/** The events with the real-length run id in the run, its folder and every branch and ref. */
function withRealRunId(events: readonly RunEvent[]): RunEvent[] {
  return JSON.parse(
    JSON.stringify(events)
      .replaceAll('bestof/r1/', `bestof/${RUN_ID}/`)
      .replaceAll('"runId":"r1"', `"runId":"${RUN_ID}"`)
      .replaceAll('/runs/r1', `/runs/${RUN_ID}`),
  ) as RunEvent[];
}

const loadDiff = vi.fn(async ({ to }: { to: string }) => (to.startsWith('c2') ? DIFF_C2 : ''));

const lines = (frame: string): string[] => frame.split('\n');
const footerKeys = (frame: string): string => lines(frame).at(-1) ?? '';
/** The frame's words, whatever lines they were wrapped on. */
const words = (text: string): string => text.replace(/\s+/g, ' ');

function expectFits(frame: string, columns: number): void {
  for (const line of lines(frame)) expect([...line].length, line).toBeLessThanOrEqual(columns);
}

describe.each([60, 80])('at %i columns', (columns) => {
  it('the footer of every screen keeps its quit and help keys', async () => {
    ui = await renderRun(mixedRun(), {
      columns,
      rows: 24,
      commands: { cancelRun: () => undefined, stopCandidate: async () => undefined, sendMessage: async () => undefined },
    });
    expect(footerKeys(ui.frame())).toMatch(/q cancel run {2}\? keys$/);
    expectFits(ui.frame(), columns);
    await ui.press(KEY.down, KEY.enter);
    expect(footerKeys(ui.frame())).toMatch(/^esc back .*q cancel run {2}\? keys$/);
    expectFits(ui.frame(), columns);
    await ui.unmount();

    ui = await renderRun(withRealRunId(finishedRun()), {
      columns,
      rows: 24,
      loadDiff,
      commands: { chooseWinner: async () => ({ ok: true, message: 'merged' }) },
    });
    const compare = footerKeys(ui.frame());
    expect(compare).toMatch(/^↑↓ candidate .*w choose winner {2}q quit {2}\? keys$/);
    // What is left out first: the file keys, then the details key.
    expect(compare).not.toContain('n/p file');
    expectFits(ui.frame(), columns);
    await ui.press(KEY.enter);
    expect(footerKeys(ui.frame())).toMatch(/q quit {2}\? keys$/);
  });

  it('the compare view keeps the winner and the cost in its title and wraps the merge command whole', async () => {
    ui = await renderRun(withRealRunId(finishedRun()), { columns, rows: 24, loadDiff });
    const frame = ui.frame();
    expectFits(frame, columns);
    const [title = '', ...rest] = lines(frame);
    expect(title).toMatch(/^bestof demo · winner c1 thorough · 6\.1s · \$0\.030/);
    expect(title).not.toContain('…');
    // The merge mode goes first, then the run id.
    if (columns === 60) expect(title).not.toContain('merge =');
    // The outcome over the lines it needs (two at 80 columns, three at 60), the command on one of them, whole.
    const outcome = rest.slice(
      0,
      rest.findIndex((line) => line.startsWith('  #')),
    );
    expect(outcome).toHaveLength(columns === 60 ? 3 : 2);
    expect(outcome.join(' ')).toBe(`the winner's work is on branch bestof/${RUN_ID}/c1 (merge it with \`git merge bestof/${RUN_ID}/c1\`)`);
    expect(outcome.some((line) => line.includes(`\`git merge bestof/${RUN_ID}/c1\``))).toBe(true);
    // The table and the diff still fit in 24 rows (23 and a spare line): nothing scrolled off.
    expect(frame).toMatch(/› 1\.\s+c1 thorough\s+100\/100/);
    expect(frame).toContain('Diff of c1 thorough');
    expect(lines(frame).length).toBeLessThanOrEqual(23);
  });

  it('a winner chosen in the compare view: the confirmation keeps its answers, and the result names the merge command whole', async () => {
    const message = `the winner's work is on branch bestof/${RUN_ID}/c2 (merge it with \`git merge bestof/${RUN_ID}/c2\`)`;
    ui = await renderRun(withRealRunId(finishedRun()), { columns, rows: 24, loadDiff, commands: { chooseWinner: async () => ({ ok: true, message }) } });
    await ui.press(KEY.down, 'w');
    let frame = ui.frame();
    expectFits(frame, columns);
    expect(words(frame)).toContain('Make c2 hasty the winner with merge = "branch"?');
    expect(footerKeys(frame)).toMatch(/^y \/ enter: do it {4}←\/→: merge mode.* {4}n \/ esc: back$/);
    await ui.press('y');
    frame = ui.frame();
    expectFits(frame, columns);
    expect(frame).toContain(`\`git merge bestof/${RUN_ID}/c2\``);
    expect(words(frame)).toContain(message);
    expect(footerKeys(frame)).toMatch(/q quit {2}\? keys$/);
  });

  it("a candidate's details: the title keeps its score, cost and time, and every check's name is whole", async () => {
    const checks = [
      { name: 'unit-tests-of-the-parser', score: 40 },
      { name: 'integration-against-postgres', score: 30 },
      { name: 'typecheck-strict', score: 30 },
    ];
    ui = await renderRun(
      stamp([
        runStarted([candidate(1, 'thorough', 'command', 'sonnet')], { checks }),
        { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
        {
          type: 'provider.finished',
          candidate: 'c1',
          iteration: 1,
          outcome: 'success',
          costUsd: 0.021,
          usage: { input: 5200, output: 410, cacheRead: 0, cacheWrite: 0 },
          turns: 3,
          durationMs: 2000,
        },
        { type: 'candidate.committed', candidate: 'c1', iteration: 1, commit: 'c1'.padEnd(40, 'a'), changedFiles: 1 },
        ...checks.map((k, i) => ({ type: 'check.finished' as const, candidate: 'c1', iteration: 1, check: check(k.name, i === 0) })),
        { type: 'candidate.scored', candidate: 'c1', iteration: 1, score: 40, maxScore: 100, failedChecks: checks.slice(1).map((k) => k.name) },
        { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 2 },
      ]),
      { columns, rows: 24 },
    );
    await ui.press(KEY.enter);
    const frame = ui.frame();
    expectFits(frame, columns);
    expect(words(frame)).toMatch(/c1 thorough · command\/sonnet · \S+ running · iteration 2\/3 · 40\/100 · \$0\.021 · 5\.6k tokens · \d+s/);
    for (const k of checks) expect(frame).toMatch(new RegExp(`[✓✗]${k.name}(?: |$)`, 'm'));
  });
});

// At 80 columns these lines fit whole already; 60 is where they were cut.
describe('at 60 columns', () => {
  it('the keys of the compare view: every line whole, ↑↓ select and j k scroll', async () => {
    ui = await renderRun(finishedRun(), { columns: 60, rows: 24, loadDiff, commands: { chooseWinner: async () => ({ ok: true, message: '' }) } });
    await ui.press('?');
    const frame = ui.frame();
    expectFits(frame, 60);
    expect(frame).not.toContain('…');
    expect(words(frame)).toContain("enter the selected candidate's details: iterations, checks, activity");
    expect(words(frame)).toContain('w merge the selected candidate as the winner (asks first)');
    expect(frame).toMatch(/^ {2}↑ ↓ +select a candidate$/m);
    expect(frame).toMatch(/^ {2}j k +scroll the diff \(or the vote\) by a line$/m);
    expect(frame).not.toMatch(/j.*select/);
  });

  it("the diff's header keeps its size and the lines on screen, and drops the base", async () => {
    ui = await renderRun(finishedRun(), { columns: 60, rows: 24, loadDiff });
    await ui.press(KEY.down);
    const header = lines(ui.frame()).find((line) => line.startsWith('Diff of')) ?? '';
    expect(header).toMatch(/^Diff of c2 hasty · 2 files \+4 -1 · lines 1-\d+ of 15$/);
  });

  it("the dashboard's header keeps the spend and drops the run id, then the limits", async () => {
    ui = await renderRun(withRealRunId(mixedRun()), { columns: 60, rows: 24, budgetUsd: 5 });
    const [first = '', second = ''] = lines(ui.frame());
    expect(first).toMatch(/^bestof demo · 30s · \$0\.026\+ of \$5\.00/);
    expect(first).not.toContain('…');
    expect(second).toMatch(/^1 running · 1 waiting · 2 done · threshold 100\/100/);
    expect(second).not.toContain('…');
    expect(first).not.toContain(RUN_ID);
  });
});

describe('the keys on a short screen', () => {
  it('end with how many keys are left out rather than running off the bottom', async () => {
    ui = await renderRun(finishedRun(), { columns: 60, rows: 12, loadDiff, commands: { chooseWinner: async () => ({ ok: true, message: '' }) } });
    await ui.press('?');
    const frame = ui.frame();
    // 12 rows: the footer's two lines and a spare one leave 9 for the list, its last line says what is left out.
    expect(lines(frame).length).toBeLessThanOrEqual(11);
    expect(lines(frame).at(-3)).toMatch(/^ {2}… \d+ more keys: a taller terminal shows them$/);
    expect(frame).not.toContain('? ');
    expect(frame).toContain('esc or any key: close this list');
  });
});

describe('the dialogs at 60 columns', () => {
  it('a question is whole over two lines with its answers under it, and a long message shows its end, where the typing is', async () => {
    ui = await renderRun(mixedRun(), {
      columns: 60,
      rows: 16,
      commands: { cancelRun: () => undefined, stopCandidate: async () => undefined, sendMessage: async () => undefined },
    });
    await ui.press('q');
    let frame = ui.frame();
    expectFits(frame, 60);
    expect(lines(frame).slice(-3)).toEqual([
      "Cancel the run? Every agent is stopped; each candidate's",
      'work is committed and kept.',
      'y / enter: cancel the run    n / esc: keep running',
    ]);
    // The question's extra line comes out of the list above, not off the bottom of the screen.
    expect(lines(frame).length).toBeLessThanOrEqual(15);
    await ui.press('n', KEY.down, 'm', 'please also handle the emoji and the right-to-left scripts, and keep ASCII titles as they are');
    frame = ui.frame();
    expectFits(frame, 60);
    expect(footerKeys(frame)).toMatch(/^> ….*and keep ASCII titles as they are▌$/);
  });
});

describe('at 40 columns', () => {
  it('the footer still shows its quit and help keys, and no line is wider than the terminal', async () => {
    ui = await renderRun(finishedRun(), { columns: 40, rows: 20, loadDiff, commands: { chooseWinner: async () => ({ ok: true, message: '' }) } });
    expect(footerKeys(ui.frame())).toMatch(/q quit {2}\? keys$/);
    expectFits(ui.frame(), 40);
  });
});
