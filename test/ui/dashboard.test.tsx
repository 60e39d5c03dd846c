/** The live dashboard, rendered from scripted events, read as ANSI-stripped text. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stripAnsi } from '../../src/ui/format/text.js';
import { monochromeTheme } from '../../src/ui/theme.js';
import { KEY, renderRun, type Rendered } from './render-helpers.js';
import { candidate, check, finished, mixedRun, runStarted, stamp } from './scripted-runs.js';

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

const rowOf = (frame: string, id: string): string => frame.split('\n').find((line) => line.includes(` ${id} `)) ?? '';

describe('the dashboard', () => {
  it('shows four candidates in mixed states, one row each, in start order', async () => {
    ui = await renderRun(mixedRun(), { budgetUsd: 5, columns: 120 });
    const frame = ui.frame();
    // c3 is a command agent: it reports no cost, so the run's $0.026 leaves it out ("+").
    expect(frame).toContain('bestof demo · 30s · $0.026+ of $5.00 · run r1');
    expect(frame).toContain('1 running · 1 waiting · 2 done');
    const rows = ['c1', 'c2', 'c3', 'c4'].map((id) => rowOf(frame, id));
    expect(rows[0]).toMatch(/› c1 thorough\s+script\s+✓ done\s+1\/3\s+█{10}\s+100\/100 ✓✓✓\s+\$0\.021\s+5\.6k\s+4\.2s Reading configs\/demo\/test/);
    expect(rows[1]).toMatch(/c2 hasty\s+command\/sonnet [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running\s+2\/3\s+█{4}░{6}\s+40\/100 ✓✗✗\s+\$0\.005\s+1\.3k\s+28s Fixing the accents/);
    expect(rows[2]).toMatch(/c3 broken\s+command\/gpt-5\s+✗ failed\s+1\/3\s+░{10}\s+0\/100 ···\s+–\s+—/);
    expect(rows[3]).toMatch(/c4 late\s+script\s+· queued\s+—.*waiting for a free slot/);
    expect(frame.indexOf(' c1 ')).toBeLessThan(frame.indexOf(' c2 '));
    expect(frame.indexOf(' c3 ')).toBeLessThan(frame.indexOf(' c4 '));
    expect(frame).toContain('warning: the checkout has uncommitted changes');
  });

  it('says the cost was not reported, not "$0", when no agent reported one', async () => {
    ui = await renderRun(
      stamp([
        runStarted([candidate(1, 'cmd', 'command')]),
        { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
        {
          type: 'provider.finished',
          candidate: 'c1',
          iteration: 1,
          outcome: 'success',
          costUsd: 0,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          turns: 1,
          durationMs: 900,
        },
        { type: 'candidate.status', candidate: 'c1', status: 'checking', iteration: 1 },
      ]),
      { columns: 120 },
    );
    const frame = ui.frame();
    expect(frame).toContain('bestof demo · 30s · cost not reported · run r1');
    expect(rowOf(frame, 'c1')).toMatch(/c1 cmd\s+command\s+[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] checking\s+1\/3 .*\s–\s+—\s/);
    expect(frame).not.toContain('$0');
  });

  it('shows why a candidate failed, in its row and in its details', async () => {
    ui = await renderRun(mixedRun(), { columns: 120 });
    expect(rowOf(ui.frame(), 'c3')).toMatch(/c3 broken\s+command\/gpt-5\s+✗ failed .* auth_error: OPENAI_API/);
    await ui.press(KEY.down, KEY.down, KEY.enter);
    expect(ui.frame()).toContain('✗ failed (auth_error)');
    expect(ui.frame()).toMatch(/#1\s+auth_error\s+OPENAI_API_KEY is not set/);
  });

  it('drops columns on a 60-column terminal and never wraps a row', async () => {
    ui = await renderRun(mixedRun(), { columns: 60 });
    const lines = ui.frame().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lines.filter((line) => /^[ ›] c\d /.test(line))).toHaveLength(4);
    const c2 = rowOf(ui.frame(), 'c2');
    expect(c2).toMatch(/c2 hasty\s+[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running\s+2\/3\s+40\/100 ✓✗✗\s+\$0\.005\s+28s/);
    expect(c2).not.toContain('command/sonnet');
    expect(c2).not.toContain('█');
  });

  it('keeps every row where it was as candidates finish', async () => {
    const events = mixedRun();
    ui = await renderRun(events.slice(0, 8));
    const before = ui
      .frame()
      .split('\n')
      .findIndex((line) => line.includes(' c3 '));
    await ui.send(events.slice(8));
    expect(
      ui
        .frame()
        .split('\n')
        .findIndex((line) => line.includes(' c3 ')),
    ).toBe(before);
  });

  it("opens a candidate's details with enter and comes back with esc", async () => {
    ui = await renderRun(mixedRun());
    await ui.press(KEY.down, KEY.enter);
    const detail = ui.frame();
    expect(detail).toContain('c2 hasty · command/sonnet');
    expect(detail).toContain('iteration 2/3');
    expect(detail).toMatch(/#1\s+success\s+40\/100 ✓basic ✗unicode ✗edges\s+c2aaaaaaaa/);
    expect(detail).toContain('✗ unicode (exit 1, 0.3s)');
    expect(detail).toContain('not ok 1 - strips accents');
    expect(detail).toContain('Fixing the accents: normalize NFKD then drop combining marks');
    await ui.press(KEY.escape);
    expect(ui.frame()).toContain('1 running · 1 waiting · 2 done');
  });

  it("shows the failing part of a failed check's output, not its end, and says how much of it is left out", async () => {
    // tape under nyc: every assertion printed, the one failure far above the end, nyc's coverage table last.
    const output = [
      'TAP version 13',
      ...Array.from({ length: 400 }, (_, i) => `ok ${i + 1} round trip`),
      'not ok 401 decodes + as a space',
      '  ---',
      '    operator: equal',
      "    expected: 'a b'",
      "    actual:   'a+b'",
      '    at: Test.<anonymous> (test/index.js:20:5)',
      '    stack: |-',
      ...Array.from({ length: 12 }, (_, i) => `      at frame ${i}`),
      '  ...',
      ...Array.from({ length: 400 }, (_, i) => `ok ${i + 402} parse`),
      '# fail  1',
      'All files  |   96.15 |    83.33 |     100 |   96.15 |',
    ].join('\n');
    ui = await renderRun(
      stamp([
        runStarted([candidate(1, 'long'), candidate(2, 'other')]),
        { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
        { type: 'check.finished', candidate: 'c1', iteration: 1, check: check('unicode', false, output) },
        { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 2 },
      ]),
      { columns: 120 },
    );
    await ui.press(KEY.enter);
    const detail = ui.frame();
    expect(detail).toContain('✗ unicode (exit 1, 0.3s)');
    expect(detail).toMatch(/^ {4}… \(401 lines above\)$/m);
    expect(detail).toMatch(/^ {4}not ok 401 decodes \+ as a space$/m);
    expect(detail).toContain("expected: 'a b'");
    expect(detail).toContain("actual:   'a+b'");
    expect(detail).toMatch(/^ {4}… \d+ more lines \(whole output in \.bestof\/runs\/r1\/candidates\/c1\/iteration-1\/checks\/\)$/m);
    expect(detail).not.toContain('All files');
  });

  it("a running shannon candidate's details say how to watch its tmux session; a finished one's do not", async () => {
    const running = stamp([
      runStarted([candidate(1, 'interactive', 'shannon')]),
      { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
    ]);
    ui = await renderRun(running);
    await ui.press(KEY.enter);
    expect(ui.frame()).toContain('watch it: bestof attach r1 c1 (--write to take over)');
    await ui.unmount();
    ui = await renderRun([...running, ...stamp([finished('c1', 'done', 'completed', 0)])]);
    await ui.press(KEY.enter);
    expect(ui.frame()).toContain('c1 interactive');
    expect(ui.frame()).not.toContain('bestof attach');
  });

  it('asks before cancelling on q, then calls cancelRun', async () => {
    const cancelRun = vi.fn();
    ui = await renderRun(mixedRun(), { commands: { cancelRun } });
    await ui.press('q');
    expect(ui.frame()).toContain('Cancel the run?');
    expect(cancelRun).not.toHaveBeenCalled();
    await ui.press('y');
    expect(cancelRun).toHaveBeenCalledTimes(1);
    expect(ui.frame()).toContain('cancelling');
  });

  it('Ctrl-C is a key here (raw mode): it asks first as well', async () => {
    const cancelRun = vi.fn();
    ui = await renderRun(mixedRun(), { commands: { cancelRun } });
    await ui.press(KEY.ctrlC);
    expect(ui.frame()).toContain('Cancel the run?');
    await ui.press(KEY.ctrlC);
    expect(cancelRun).toHaveBeenCalledTimes(1);
  });

  it("stops the selected candidate and sends it a message through the run's commands", async () => {
    const stopCandidate = vi.fn();
    const sendMessage = vi.fn();
    ui = await renderRun(mixedRun(), { commands: { cancelRun: vi.fn(), stopCandidate, sendMessage } });
    await ui.press(KEY.down, 'm', 'try NFKD', KEY.enter);
    expect(sendMessage).toHaveBeenCalledWith('c2', 'try NFKD');
    expect(ui.frame()).toContain('message for c2 queued');
    await ui.press('s');
    expect(ui.frame()).toContain('Stop c2 hasty');
    await ui.press('y');
    expect(stopCandidate).toHaveBeenCalledWith('c2');
  });

  it('lists the keys on ?, leaving out commands it was not given', async () => {
    ui = await renderRun(mixedRun(), { commands: { cancelRun: vi.fn() } });
    await ui.press('?');
    const help = ui.frame();
    expect(help).toContain('Keys while the run goes');
    expect(help).toMatch(/^ {2}↑ ↓ {2}\(k j\) {6}select a candidate$/m);
    // j and k select here; what they do in the compare view is for its own list.
    expect(help).not.toContain('scroll');
    expect(help).not.toContain('stop the selected candidate');
    await ui.press('s');
    expect(ui.frame()).toContain('↑↓ select');
    await ui.press('s');
    expect(ui.frame()).toContain('stopping one candidate is not available');
  });

  it('scrolls a long list of candidates with the selection', async () => {
    const many = Array.from({ length: 30 }, (_, i) => candidate(i + 1, `agent-${i + 1}`));
    ui = await renderRun(stamp([runStarted(many)]), { rows: 16 });
    expect(ui.frame()).toContain('↓ 21 more');
    expect(ui.frame().split('\n').length).toBeLessThan(16);
    await ui.press(...Array.from({ length: 20 }, () => KEY.down));
    expect(ui.frame()).toContain('› c21 agent-21');
    expect(ui.frame()).toMatch(/↑ \d+ more/);
  });

  it('uses no colour with NO_COLOR', async () => {
    ui = await renderRun(mixedRun(), { theme: monochromeTheme });
    const raw = ui.rawFrame();
    expect(raw).not.toMatch(/\u001b\[(3\d|9\d)m/);
    expect(stripAnsi(raw)).toContain('c2 hasty');
  });
});
