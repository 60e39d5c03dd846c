/**
 * The Ink view of a running bench: the reducer on event sequences worked out by hand (counts,
 * rates, the ETA), the view rendered with ink-testing-library from folded events (the glyph of
 * every cell, the rates, the ETA, a resumed bench, 80x24), its keys, and the real `bestof bench`
 * on a real terminal (tmux): the matrix filling in, q cancelling, and --no-tui staying plain.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { render } from 'ink-testing-library';
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchEvent } from '../../src/bench/events.js';
import type { BenchMatrix, Cell, TrialRecord } from '../../src/bench/types.js';
import { BenchApp } from '../../src/ui/bench/BenchApp.js';
import { benchViewLines } from '../../src/ui/bench/BenchView.js';
import { estimateEtaMs, foldBenchEvents, etaLeftMs } from '../../src/ui/bench/bench-state.js';
import { createBenchStore, type BenchStore } from '../../src/ui/bench/bench-store.js';
import { stripAnsi } from '../../src/ui/format/text.js';
import { ThemeContext } from '../../src/ui/hooks/useTheme.js';
import { colourTheme, monochromeTheme, type Theme } from '../../src/ui/theme.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const SEC = 1000;

function benchMatrix(tasks: readonly string[], agents: readonly string[], trials: number): BenchMatrix {
  return { tasks: tasks.map((id) => ({ id, bar: 0.5 })), agents: agents.map((id) => ({ id, kind: 'script', model: null })), trials };
}

function cellsOf(m: BenchMatrix): Cell[] {
  return m.tasks.flatMap((t) => m.agents.flatMap((a) => Array.from({ length: m.trials }, (_, i) => ({ task: t.id, agent: a.id, trial: i + 1 }))));
}

function started(
  m: BenchMatrix,
  options: { concurrency: number; done?: readonly TrialRecord[]; cells?: readonly Cell[]; shard?: { index: number; count: number } },
): BenchEvent {
  return {
    type: 'bench.started',
    bench: 'nightly',
    matrix: m,
    shard: options.shard ?? null,
    cells: options.cells ?? cellsOf(m),
    done: options.done ?? [],
    concurrency: options.concurrency,
    outDir: '/tmp/out',
    at: T0,
  };
}

/** R resolved, U not resolved, I an infra failure, N not run (the bench never started it). */
function rec(label: string, kind: 'R' | 'U' | 'I' | 'N', seconds: number, costUsd = 0): TrialRecord {
  const [, task = '', agent = '', trial = '1'] = /^(.+)\/(.+)#(\d+)$/.exec(label) ?? [];
  return {
    task,
    agent,
    kind: 'script',
    model: null,
    cliVersion: kind === 'N' ? null : '1.0.0',
    trial: Number(trial),
    outcome:
      kind === 'N'
        ? { status: 'cancelled', reason: 'not_run' }
        : kind === 'I'
          ? { status: 'failed', reason: 'setup_failed' }
          : { status: kind === 'R' ? 'winner' : 'no_winner', reason: 'success' },
    resolved: kind === 'R',
    score: kind === 'R' ? 10 : kind === 'U' ? 4 : 0,
    maxScore: kind === 'N' ? 0 : 10,
    iterations: kind === 'R' || kind === 'U' ? 1 : 0,
    costUsd,
    tokens: { input: 0, output: 0 },
    durationMs: seconds * SEC,
    infra: kind === 'I' || kind === 'N',
    infraReason: kind === 'I' ? 'setup_failed: npm ci exited with 1' : kind === 'N' ? 'not run: the bench was cancelled' : null,
    runId: kind === 'N' ? '' : `r-${task}-${agent}-${trial}`,
  };
}

const start = (label: string, atSeconds: number): BenchEvent => {
  const [, task = '', agent = '', trial = '1'] = /^(.+)\/(.+)#(\d+)$/.exec(label) ?? [];
  return { type: 'trial.started', cell: { task, agent, trial: Number(trial) }, at: T0 + atSeconds * SEC };
};
const finish = (record: TrialRecord, atSeconds: number): BenchEvent => ({ type: 'trial.finished', record, at: T0 + atSeconds * SEC });

describe('the bench view state', () => {
  it('counts, rates and the ETA of a bench of 1 task x 2 agents x 3 trials at 2 at a time, worked by hand', () => {
    const m = benchMatrix(['t1'], ['a', 'b'], 3);
    const events: BenchEvent[] = [started(m, { concurrency: 2 }), start('t1/a#1', 0), start('t1/a#2', 0)];
    let s = foldBenchEvents(events);
    expect([s.total, s.done, s.running, s.eta]).toEqual([6, 0, 2, null]);
    expect(s.marks.get('t1/a#1')).toBe('running');
    expect(s.marks.get('t1/b#3')).toBe('waiting');

    // a#1 resolved in 60s: mean 60s, 5 left on 2 slots: 60 x 5 / 2 = 150s.
    s = foldBenchEvents([finish(rec('t1/a#1', 'R', 60, 0.5), 60), start('t1/a#3', 60)], s);
    expect([s.done, s.running, s.eta]).toEqual([1, 2, { ms: 150 * SEC, at: T0 + 60 * SEC }]);
    // a#2 not resolved in 90s: mean 75s, 4 left: 75 x 4 / 2 = 150s.
    s = foldBenchEvents([finish(rec('t1/a#2', 'U', 90, 0.25), 90), start('t1/b#1', 90)], s);
    expect(s.eta).toEqual({ ms: 150 * SEC, at: T0 + 90 * SEC });
    // a#3 an infra failure after 1s: out of the mean (still 75s), 3 left: 75 x 3 / 2 = 112.5s.
    s = foldBenchEvents([finish(rec('t1/a#3', 'I', 1), 91), start('t1/b#2', 91)], s);
    expect(s.eta).toEqual({ ms: 112_500, at: T0 + 91 * SEC });
    expect(s.agents.get('a')).toEqual({ resolved: 1, valid: 2 });
    // b#1 resolved in 120s: mean (60 + 90 + 120) / 3 = 90s, 2 left: 90 x 2 / 2 = 90s.
    s = foldBenchEvents([finish(rec('t1/b#1', 'R', 120, 1), 200), start('t1/b#3', 200)], s);
    expect(s.eta).toEqual({ ms: 90 * SEC, at: T0 + 200 * SEC });
    // b#2 resolved in 30s: mean 75s, 1 left, which one slot runs: 75 x 1 / 1 = 75s (not 37.5s).
    s = foldBenchEvents([finish(rec('t1/b#2', 'R', 30), 210)], s);
    expect(s.eta).toEqual({ ms: 75 * SEC, at: T0 + 210 * SEC });
    // Counted down by the clock, never below zero.
    expect(etaLeftMs(s, T0 + 250 * SEC)).toBe(35 * SEC);
    expect(etaLeftMs(s, T0 + 900 * SEC)).toBe(0);
    expect([s.done, s.running, s.costUsd]).toEqual([5, 1, 1.75]);
    expect(s.agents.get('b')).toEqual({ resolved: 2, valid: 2 });
    expect(s.recent.map((r) => `${r.agent}#${r.trial}`)).toEqual(['a#1', 'a#2', 'a#3', 'b#1', 'b#2']);

    s = foldBenchEvents([finish(rec('t1/b#3', 'U', 45), 250), { type: 'bench.finished', cancelled: false, at: T0 + 251 * SEC }], s);
    expect([s.done, s.running, s.eta?.ms, s.finishedAt, s.cancelled]).toEqual([6, 0, 0, T0 + 251 * SEC, false]);
  });

  it('has no ETA while only infra failures and trials that were not run have finished', () => {
    const m = benchMatrix(['t1'], ['a'], 3);
    const s = foldBenchEvents([started(m, { concurrency: 1 }), start('t1/a#1', 0), finish(rec('t1/a#1', 'I', 5), 5), finish(rec('t1/a#2', 'N', 0), 6)]);
    expect([s.done, s.eta]).toEqual([2, null]);
    expect(s.marks.get('t1/a#1')).toBe('infra');
    expect(s.marks.get('t1/a#2')).toBe('not-run');
    expect(s.agents.get('a')).toEqual({ resolved: 0, valid: 0 });
    expect(estimateEtaMs({ timed: { count: 0, totalMs: 0 }, total: 3, done: 2, concurrency: 1 })).toBeNull();
  });

  it('a resumed bench starts with the kept records finished, counted, and in the ETA', () => {
    const m = benchMatrix(['t1'], ['a'], 4);
    const kept = [rec('t1/a#1', 'R', 100, 0.5), rec('t1/a#2', 'U', 200, 0.5)];
    const s = foldBenchEvents([started(m, { concurrency: 2, done: kept })]);
    expect([s.total, s.done, s.resumed, s.running, s.costUsd]).toEqual([4, 2, 2, 0, 1]);
    expect(s.marks.get('t1/a#1')).toBe('resolved');
    expect(s.marks.get('t1/a#2')).toBe('unresolved');
    expect(s.marks.get('t1/a#3')).toBe('waiting');
    // Mean 150s, 2 left on 2 slots: 150s.
    expect(s.eta).toEqual({ ms: 150 * SEC, at: T0 });
    // The kept records are not news: the last lines are this run's.
    expect(s.recent).toEqual([]);
  });

  it("a shard leaves the other shards' cells out, and ignores a record of a cell it does not run", () => {
    const m = benchMatrix(['t1'], ['a'], 4);
    const s = foldBenchEvents([
      started(m, {
        concurrency: 1,
        cells: [
          { task: 't1', agent: 'a', trial: 1 },
          { task: 't1', agent: 'a', trial: 3 },
        ],
        shard: { index: 1, count: 2 },
      }),
      finish(rec('t1/a#2', 'R', 10), 10),
    ]);
    expect([s.total, s.done, s.marks.has('t1/a#2'), s.agents.get('a')]).toEqual([2, 0, false, { resolved: 0, valid: 0 }]);
  });
});

interface Shown {
  readonly store: BenchStore;
  frame(): string;
  rawFrame(): string;
  press(key: string): Promise<void>;
  send(events: readonly BenchEvent[]): Promise<void>;
  unmount(): Promise<void>;
}

let shown: Shown | undefined;
afterEach(async () => {
  await shown?.unmount();
  shown = undefined;
});

async function show(
  events: readonly BenchEvent[],
  options: { columns?: number; rows?: number; now: number; theme?: Theme; cancel?: () => void },
): Promise<Shown> {
  const store = createBenchStore();
  for (const event of events) store.dispatch(event);
  let instance!: ReturnType<typeof render>;
  await act(async () => {
    instance = render(
      <ThemeContext.Provider value={options.theme ?? colourTheme}>
        <BenchApp
          store={store}
          cancel={options.cancel ?? (() => undefined)}
          size={{ columns: options.columns ?? 80, rows: options.rows ?? 24 }}
          now={options.now}
        />
      </ThemeContext.Provider>,
    );
  });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) await act(async () => new Promise<void>((resolve) => setImmediate(resolve)));
  };
  await settle();
  return {
    store,
    frame: () =>
      stripAnsi(instance.lastFrame() ?? '')
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n'),
    rawFrame: () => instance.lastFrame() ?? '',
    async press(key) {
      await act(async () => {
        instance.stdin.write(key);
      });
      await settle();
    },
    async send(more) {
      await act(async () => {
        for (const event of more) store.dispatch(event);
      });
      await settle();
    },
    async unmount() {
      await act(async () => instance.unmount());
    },
  };
}

const TASKS = ['fix-login', 'add-search', 'port-cli'];
const AGENTS = ['claude-sonnet', 'codex-mini', 'gemini-flash', 'aider-gpt'];

/**
 * 3 tasks x 4 agents x 5 trials at 4 at a time: five trials recorded (one infra failure, one
 * not run), four running. Timed: 60s, 90s, 120s (the infra failure and the trial not run are
 * not), so the mean is 90s; 55 trials left on 4 slots: 90 x 55 / 4 = 1237.5s from the last
 * record at T0 + 300s; 37s later, 1200.5s are left: "20m00s".
 */
function midBench(): BenchEvent[] {
  const m = benchMatrix(TASKS, AGENTS, 5);
  return [
    started(m, { concurrency: 4 }),
    start('fix-login/claude-sonnet#1', 0),
    start('fix-login/claude-sonnet#2', 0),
    start('fix-login/codex-mini#1', 0),
    start('fix-login/codex-mini#2', 0),
    finish(rec('fix-login/codex-mini#1', 'I', 2), 2),
    start('fix-login/claude-sonnet#3', 2),
    finish(rec('fix-login/claude-sonnet#1', 'R', 60, 0.5), 60),
    start('fix-login/codex-mini#3', 60),
    finish(rec('fix-login/claude-sonnet#2', 'U', 90, 0.7), 90),
    start('fix-login/gemini-flash#1', 90),
    finish(rec('fix-login/codex-mini#2', 'R', 120, 0.3), 120),
    start('fix-login/aider-gpt#1', 120),
    finish(rec('port-cli/aider-gpt#5', 'N', 0), 300),
  ];
}
const MID_NOW = T0 + 337 * SEC;

describe('the bench view', () => {
  it('shows the matrix of 3 tasks x 4 agents x 5 trials in 80x24: a glyph per cell, the rates, the ETA, the last trials', async () => {
    shown = await show(midBench(), { now: MID_NOW });
    const frame = shown.frame();
    const lines = frame.split('\n');
    expect(lines[0]).toBe('bestof bench nightly · 5m37s · $1.50 spent');
    expect(lines[1]).toBe('5/60 done · 4 running · 51 waiting · ETA 20m00s · 4 at a time');
    expect(frame).toMatch(/^task\s+claude-sonnet\s+codex-mini\s+gemini-flash\s+aider-gpt$/m);
    expect(frame).toMatch(/^fix-login\s+✓✗◐··\s+!✓◐··\s+◐····\s+◐····$/m);
    expect(frame).toMatch(/^add-search\s+·····\s+·····\s+·····\s+·····$/m);
    expect(frame).toMatch(/^port-cli\s+·····\s+·····\s+·····\s+····–$/m);
    // claude-sonnet 1 of 2, codex-mini 1 of 1 (its infra failure left out), the others none yet.
    expect(frame).toMatch(/^resolved\s+1\/2 50%\s+1\/1 100%\s+–\s+–$/m);
    expect(frame).toContain('✓ resolved  ✗ not resolved  ! infra failure  ◐ running  · waiting  – not run');
    // The last finished trials, oldest first, as the plain lines say them (cut at the width).
    const recent = lines.filter((l) => /^[✓✗!–] \S+\/\S+#\d/.test(l));
    expect(recent.map((l) => l.split(':')[0])).toEqual([
      '! fix-login/codex-mini#1',
      '✓ fix-login/claude-sonnet#1',
      '✗ fix-login/claude-sonnet#2',
      '✓ fix-login/codex-mini#2',
      '– port-cli/aider-gpt#5',
    ]);
    expect(lines).toContain('✓ fix-login/claude-sonnet#1: resolved (score 10/10, 1 iteration(s), $0.50, 60s,…');
    expect(lines[lines.length - 1]).toBe('q or Ctrl-C: cancel the bench');
    // 80x24: one line is left free, none is wider than the terminal.
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('colours a cell by its outcome with the theme, and uses no colour with NO_COLOR', async () => {
    // The segments, not the frame: ink-testing-library's terminal has no colour at all.
    const state = foldBenchEvents(midBench());
    const styled = (theme: Theme) =>
      benchViewLines(state, theme, 80, 23, MID_NOW)
        .find((segments) => segments[0]?.text.startsWith('fix-login'))
        ?.filter((segment) => segment.text.trim() !== '')
        .map((segment) => [segment.text, segment.style?.color ?? (segment.style?.dimColor ? 'dim' : segment.style?.bold ? 'bold' : '-')]);
    expect(styled(colourTheme)).toEqual([
      ['fix-login ', '-'],
      ['✓', 'green'],
      ['✗', 'red'],
      ['◐', 'cyan'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['!', 'yellow'],
      ['✓', 'green'],
      ['◐', 'cyan'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['◐', 'cyan'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['◐', 'cyan'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['·', 'dim'],
      ['·', 'dim'],
    ]);
    // NO_COLOR: no colour; "not resolved" stays apart in bold.
    expect(styled(monochromeTheme)?.filter(([, style]) => style !== '-')).toEqual([['✗', 'bold']]);
    shown = await show(midBench(), { now: MID_NOW, theme: monochromeTheme });
    expect(shown.rawFrame()).not.toMatch(/\u001b\[(3\d|9\d)m/);
    expect(shown.frame()).toMatch(/^fix-login\s+✓✗◐··/m);
  });

  it('says "ETA –" until a trial that really ran has finished', async () => {
    const m = benchMatrix(TASKS, AGENTS, 5);
    shown = await show([started(m, { concurrency: 4 }), start('fix-login/claude-sonnet#1', 0)], { now: T0 + 5 * SEC });
    expect(shown.frame().split('\n')[1]).toBe('0/60 done · 1 running · 59 waiting · ETA – · 4 at a time');
    await shown.send([finish(rec('fix-login/claude-sonnet#1', 'I', 3), 5)]);
    expect(shown.frame()).toContain('ETA – ·');
    await shown.send([finish(rec('fix-login/claude-sonnet#2', 'R', 40), 5)]);
    // 40s x 58 left / 4 slots = 580s.
    expect(shown.frame()).toContain('2/60 done · 0 running · 58 waiting · ETA 9m40s · 4 at a time');
  });

  it("shows a resumed bench's kept trials as finished, in the counts and the rates", async () => {
    const m = benchMatrix(TASKS, AGENTS, 5);
    const kept = [rec('fix-login/claude-sonnet#1', 'R', 100, 1), rec('fix-login/claude-sonnet#2', 'R', 100, 1), rec('fix-login/gemini-flash#1', 'U', 100, 1)];
    shown = await show([started(m, { concurrency: 4, done: kept }), start('fix-login/claude-sonnet#3', 0)], { now: T0 + 10 * SEC });
    const frame = shown.frame();
    expect(frame.split('\n')[0]).toBe('bestof bench nightly · 10s · $3.00 spent');
    // 100s x 57 left / 4 = 1425s, 10s ago: 1415s.
    expect(frame.split('\n')[1]).toBe('3/60 done · 1 running · 56 waiting · ETA 23m35s · 4 at a time · 3 resumed');
    expect(frame).toMatch(/^fix-login\s+✓✓◐··\s+·····\s+✗····\s+·····$/m);
    expect(frame).toMatch(/^resolved\s+2\/2 100%\s+–\s+0\/1 0%\s+–$/m);
  });

  it('cuts a bench of many tasks at the height with a "… N more" line, and never wraps on a narrow terminal', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => `task-${String(i + 1).padStart(2, '0')}`);
    const m = benchMatrix(tasks, AGENTS, 5);
    const doneFirst = AGENTS.flatMap((a) => Array.from({ length: 5 }, (_, i) => finish(rec(`task-01/${a}#${i + 1}`, 'R', 30), 30)));
    shown = await show([started(m, { concurrency: 4 }), ...doneFirst, start('task-02/claude-sonnet#1', 30)], { now: T0 + 40 * SEC, columns: 60 });
    const lines = shown.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    // The window starts at the first task with a trial still to record; the finished one above is counted.
    expect(lines.some((l) => l.startsWith('task-01 '))).toBe(false);
    expect(lines.find((l) => l.startsWith('task-02'))).toMatch(/^task-02\s+◐····/);
    const more = lines.find((l) => l.startsWith('… '));
    const rows = lines.filter((l) => /^task-\d\d /.test(l)).length;
    expect(more).toBe(`… ${30 - rows} more tasks (1 above, ${29 - rows} below)`);
  });

  it("at 60 columns: the agents' names whole over two lines above their columns, the legend and the cancelling line whole", async () => {
    shown = await show(midBench(), { now: MID_NOW, columns: 60 });
    let lines = shown.frame().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lines.length).toBeLessThanOrEqual(23);
    // The counts and the ETA stay; the concurrency is what goes.
    expect(lines[1]).toBe('5/60 done · 4 running · 51 waiting · ETA 20m00s');
    const names = lines.findIndex((l) => l.startsWith('task '));
    const [first = '', second = ''] = lines.slice(names, names + 2);
    const row = lines.find((l) => l.startsWith('fix-login')) ?? '';
    expect(first).toMatch(/^task\s+claude-sonnet\s+gemini-flash$/);
    expect(second).toMatch(/^\s+codex-mini\s+aider-gpt$/);
    // Each name starts over its own column.
    expect([first.indexOf('claude-sonnet'), second.indexOf('codex-mini'), first.indexOf('gemini-flash'), second.indexOf('aider-gpt')]).toEqual(
      ['✓✗◐··', '!✓◐··', '◐····  ', '◐····'].map((cells, i) => (i === 3 ? row.lastIndexOf(cells) : row.indexOf(cells))),
    );
    const legend = lines.filter((l) => /^[✓·] (resolved|waiting)/.test(l)).join('  ');
    expect(legend).toBe('✓ resolved  ✗ not resolved  ! infra failure  ◐ running  · waiting  – not run');
    await shown.press('q');
    lines = shown.frame().split('\n');
    expect(lines.slice(-2).join(' ')).toBe('cancelling: running trials stop and keep their work; the rest are "not run"');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
  });

  it('says "cost not reported" of a bench whose agents report no cost (command agents), never "$0 spent"', async () => {
    const m = benchMatrix(['t1'], ['cmd'], 2);
    const unknown = (label: string): TrialRecord => ({ ...rec(label, 'U', 30), kind: 'command', costKnown: false });
    shown = await show([started(m, { concurrency: 1 }), start('t1/cmd#1', 0), finish(unknown('t1/cmd#1'), 30)], { now: T0 + 40 * SEC, columns: 120 });
    expect(shown.frame().split('\n')[0]).toBe('bestof bench nightly · 40s · cost not reported');
  });

  it('a finished bench says where its reports go, not that they follow (nothing follows the view but a line of paths)', async () => {
    shown = await show(midBench(), { now: MID_NOW, columns: 120 });
    await shown.send([{ type: 'bench.finished', cancelled: false, at: T0 + 400 * SEC }]);
    expect(shown.frame().split('\n').at(-1)).toBe('finished: 60 trials recorded; the reports (bench.md, junit.xml, bench.json) go to /tmp/out');
  });

  it('q cancels the bench once and says it is cancelling; Ctrl-C does the same; the end says what was not run', async () => {
    let cancels = 0;
    shown = await show(midBench(), { now: MID_NOW, cancel: () => (cancels += 1) });
    await shown.press('x');
    expect(cancels).toBe(0);
    await shown.press('q');
    expect(cancels).toBe(1);
    expect(shown.frame().split('\n')[0]).toBe('bestof bench nightly · cancelling · 5m37s · $1.50 spent');
    expect(shown.frame().split('\n').at(-1)).toBe('cancelling: running trials stop and keep their work; the rest are "not run"');
    await shown.press('\u0003');
    expect(cancels).toBe(1);
    await shown.send([{ type: 'bench.finished', cancelled: true, at: T0 + 400 * SEC }]);
    expect(shown.frame().split('\n')[0]).toBe('bestof bench nightly · cancelled · 6m40s · $1.50 spent');
    expect(shown.frame()).not.toContain('ETA');
    expect(shown.frame()).toContain('cancelled: 1 trial recorded "not run"; go on with --resume');
    await shown.unmount();

    cancels = 0;
    shown = await show(midBench(), { now: MID_NOW, cancel: () => (cancels += 1) });
    await shown.press('\u0003');
    expect(cancels).toBe(1);
    expect(shown.frame()).toContain('cancelling: running trials stop');
  });
});

/** Static imports only: `import ... from`, `export ... from`, never `import(...)` or `import type`. */
function staticImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)]
    .filter((m) => !/^\s*(?:import|export)\s+type\s/.test(m[0]))
    .map((m) => m[1] as string);
}

function staticPackages(entry: string): Set<string> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of staticImports(file)) {
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const base = resolve(dirname(file), specifier).replace(/\.js$/, '');
      const local = [`${base}.ts`, `${base}.tsx`].find((path) => existsSync(path));
      if (local) visit(local);
    }
  };
  visit(entry);
  return packages;
}

describe('`bestof bench` and the view', () => {
  it('loads neither React nor Ink unless it starts the view, which it reaches through import()', () => {
    const src = join(PROJECT_ROOT, 'src');
    expect([...staticPackages(join(src, 'cli', 'commands', 'bench.ts'))].filter((p) => /^(ink|react)(\/|$)/.test(p))).toEqual([]);
    // The view is import()ed in ui/load-ink-ui.ts (the one chunk of the build's core that may import()), and only there.
    expect(readFileSync(join(src, 'ui', 'load-ink-ui.ts'), 'utf8')).toContain("withProductionReact(() => import('./bench/start-bench-ui.js'))");
    expect(readFileSync(join(src, 'ui', 'bench', 'bench-front-end.ts'), 'utf8')).toContain('await loadBenchUi()');
    expect(readFileSync(join(src, 'cli', 'commands', 'bench.ts'), 'utf8')).toContain('await startBenchView(');
  });
});
