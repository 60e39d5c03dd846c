/**
 * The record of a run as listeners: the event log holds every event in order (also after a
 * kill -9 of the writing process), state.json is written a bounded number of times however
 * many events arrive, and is the full fold of the log once the run finishes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { createEventLogWriter, readEvents } from '../../src/report/event-log.js';
import { createRunRecord } from '../../src/report/run-record.js';
import { createStateFileWriter, readStateFile } from '../../src/report/state-file.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { candidate, finishedRun, runStarted, stamp } from '../ui/scripted-runs.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A run.started followed by `n` activity lines: the kind of flood that used to rewrite state.json per event. */
function flood(n: number): RunEvent[] {
  const c1 = candidate(1, 'script');
  return stamp([
    runStarted([c1]),
    ...Array.from({ length: n }, (_, i) => ({ type: 'candidate.activity' as const, candidate: 'c1', iteration: 1, text: `line ${i}` })),
  ]);
}

describe('the state file', () => {
  it('is written a bounded number of times during a burst, and in full at run.finished', () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const writer = createStateFileWriter(dir, { intervalMs: 60_000 });
    const events = [...flood(500), ...finishedRun().filter((e) => e.type !== 'run.started')];
    for (const event of events) writer.listener(event);
    // One write for the first event, one at run.finished: not one per event.
    expect(writer.writes()).toBe(2);
    const written = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    expect(written).toEqual(JSON.parse(JSON.stringify(foldEvents(events))));
    writer.close();
  });

  it('writes the last events of a quiet stretch without waiting for the next event', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const writer = createStateFileWriter(dir, { intervalMs: 50 });
    const events = flood(20);
    for (const event of events) writer.listener(event);
    const lastLine = (): string | undefined => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).candidates.c1?.lastActivity;
    await waitUntil(() => lastLine() === 'line 19', 'the trailing write');
    expect(writer.writes()).toBe(2);
    writer.close();
  });

  it('close() writes what is pending', () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const writer = createStateFileWriter(dir, { intervalMs: 60_000 });
    const events = flood(3);
    for (const event of events) writer.listener(event);
    writer.close();
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).candidates.c1.lastActivity).toBe('line 2');
  });
});

describe('the event log', () => {
  it('appends every event in order, one per line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const log = createEventLogWriter(dir);
    const events = finishedRun();
    for (const event of events) log.listener(event);
    log.close();
    expect(await readEvents(dir)).toEqual(events);
  });

  it('holds every event written before a kill -9 of the writer, and the fold of it is what resume continues from', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    // A real process writes through the whole record, then kills itself with SIGKILL mid-run:
    // no close(), no flush, no trailing state.json write.
    const script = `
      const { createRunRecord } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'report', 'run-record.js'))});
      const events = JSON.parse(process.argv[1]);
      const record = createRunRecord(${JSON.stringify(dir)});
      for (const event of events) for (const listener of record.listeners) listener(event);
      process.kill(process.pid, 'SIGKILL');
    `;
    const events = flood(300);
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(events)], { encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    const logged = await readEvents(dir);
    expect(logged).toEqual(events);
    expect(foldEvents(logged).candidates.c1?.lastActivity).toBe('line 299');
    // The snapshot may lag behind the log: that is allowed, because nothing resumes from it.
    expect(existsSync(join(dir, 'state.json'))).toBe(true);
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
  });
});

describe('the run record', () => {
  it('writes the log, the snapshot and both reports for a finished run', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const record = createRunRecord(dir);
    const events = finishedRun();
    for (const event of events) for (const listener of record.listeners) listener(event);
    record.close();
    record.close();
    expect(await readEvents(dir)).toEqual(events);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(report.status).toBe(foldEvents(events).status);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(`# bestof run ${foldEvents(events).runId}`);
  });
});

/**
 * A full disk, played by /dev/full (every write to it fails with ENOSPC) through a symlink where the
 * record writes: nothing may throw into the engine (it emits from inside a candidate's loop) or from
 * a timer (which would end bestof on the spot, as it once did), and nothing half-written stays.
 */
describe.runIf(existsSync('/dev/full'))('the record on a full disk', () => {
  it('the event log says so once, takes no more events (a log with a hole would fold wrong), and never throws', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    symlinkSync('/dev/full', join(dir, 'events.jsonl'));
    const failures: Error[] = [];
    const log = createEventLogWriter(dir, (error) => failures.push(error));
    for (const event of finishedRun()) log.listener(event);
    log.close();
    expect(failures.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
  });

  it('the event log puts a torn last line (a write cut short, a kill mid-write) on a line of its own, so that the next event is read', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const [first, second, ...rest] = finishedRun();
    writeFileSync(join(dir, 'events.jsonl'), `${JSON.stringify(first)}\n${JSON.stringify(second).slice(0, 25)}`);
    const log = createEventLogWriter(dir);
    for (const event of rest) log.listener(event);
    log.close();
    expect(await readEvents(dir)).toEqual([first, ...rest]);
  });

  it('state.json: a write that fails neither throws (also from its timer) nor leaves a snapshot behind the log; ls and show then fold the log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    const writer = createStateFileWriter(dir, { intervalMs: 20 });
    const events = flood(5);
    writer.listener(events[0] as RunEvent);
    expect(existsSync(join(dir, 'state.json'))).toBe(true);
    // From now on the disk is full: the next write goes to the temporary file, which is /dev/full.
    symlinkSync('/dev/full', join(dir, `state.json.${process.pid}.tmp`));
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (const event of events.slice(1)) writer.listener(event);
      // The trailing write, from its timer: failed, it takes the snapshot away; thrown, it would
      // reach uncaughtException in the same turn. Either ends the wait; the checks below tell which.
      await waitUntil(() => uncaught.length > 0 || !existsSync(join(dir, 'state.json')), 'the trailing write of state.json, from its timer', { attempts: 300 });
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
    expect(existsSync(join(dir, `state.json.${process.pid}.tmp`))).toBe(false);
    expect(await readStateFile(dir)).toBeUndefined();
    writer.close();
  });

  it('report.json and report.md: a write that fails is said through onReportFailure, and leaves no half report', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-record-'));
    symlinkSync('/dev/full', join(dir, `report.json.${process.pid}.tmp`));
    const failures: Error[] = [];
    const record = createRunRecord(dir, { onReportFailure: (error) => failures.push(error) });
    const events = finishedRun();
    for (const event of events) for (const listener of record.listeners) listener(event);
    record.close();
    expect(failures.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
    expect(existsSync(join(dir, `report.json.${process.pid}.tmp`))).toBe(false);
    // The log is whole: `bestof show` rebuilds the report from it.
    expect(await readEvents(dir)).toEqual(events);
  });
});
