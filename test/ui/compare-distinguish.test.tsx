/**
 * The compare view of a run with distinguishing tests (`[select.distinguish]`): each finalist's
 * kept tests passed in the table, the sentence that says which rule decided under it, why a
 * skipped step did not decide, and a frame that still fits the terminal. The runs are event
 * streams folded by the engine's reducer, with the step's result from its own ranking.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRun, type Rendered } from './render-helpers.js';
import { distinguishRun, skippedDistinguishRun } from './distinguish-runs.js';
import { DIFF_C2 } from './scripted-runs.js';

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

const loadDiff = vi.fn(async ({ to }: { to: string }) => (to.startsWith('c2') ? DIFF_C2 : ''));
const lines = (frame: string): string[] => frame.split('\n');

describe('the compare view of a run with distinguishing tests', () => {
  it('shows each finalist\'s "passed k of n" in the table and the decided sentence under it', async () => {
    ui = await renderRun(distinguishRun(), { loadDiff, mode: 'review' });
    const frame = ui.frame();
    expect(frame).toMatch(/#\s+candidate\s+points tests\s+cost/);
    expect(frame).toMatch(/› 1\.\s+c2 hasty\s+100\/100\s+2\/2\s+\$0\.010 .*winner/);
    expect(frame).toMatch(/ {2}2\.\s+c1 thorough 100\/100\s+1\/2\s+\$0\.010/);
    expect(frame).toMatch(/ {2}3\.\s+c3 gamer\s+100\/100\s+1\/2\s+\$0\.010/);
    expect(frame).toContain('Distinguishing tests: c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1');
    // The line comes between the table and the reviews line, which stays.
    const at = (text: string) => lines(frame).findIndex((l) => l.includes(text));
    expect(at('Distinguishing tests:')).toBe(at('3.  c3') + 1);
    expect(at('Reviews and votes: none in this run')).toBe(at('Distinguishing tests:') + 1);
  });

  it('says why a skipped step did not decide, without the column', async () => {
    ui = await renderRun(skippedDistinguishRun(), { loadDiff, mode: 'review', columns: 140 });
    const frame = ui.frame();
    expect(frame).toContain('Distinguishing tests: skipped: the tester wrote no test file (its call failed: rate limited): the tie-break decides');
    expect(frame).not.toMatch(/points tests/);
  });

  it('fits 80x24 with the line taken from the diff, and nothing of it in a run without the step', async () => {
    ui = await renderRun(distinguishRun(), { loadDiff, mode: 'review', columns: 80, rows: 24 });
    const frame = ui.frame();
    for (const l of lines(frame)) expect([...l].length).toBeLessThanOrEqual(80);
    expect(frame).toContain('Distinguishing tests: c2 won: passed 2 of 2 distinguishing tests');
    expect(frame).toContain('Diff of c2 hasty against base');
    await ui.unmount();
    // The same run without the step's events: the frame is as tall, its diff one line longer.
    const without = distinguishRun().filter((e) => !e.type.startsWith('distinguish.'));
    ui = await renderRun(without, { loadDiff, mode: 'review', columns: 80, rows: 24 });
    const plain = ui.frame();
    expect(plain).not.toContain('Distinguishing');
    expect(lines(frame).length).toBe(lines(plain).length);
    expect(lines(frame).length).toBeLessThanOrEqual(24);
    const diffLines = (f: string) => lines(f).length - lines(f).findIndex((l) => l.startsWith('Diff of'));
    expect(diffLines(plain)).toBe(diffLines(frame) + 1);
  });
});
