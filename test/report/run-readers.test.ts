/**
 * Reading a run back: the snapshot (state.json) only when it is a run's state, the event log
 * folded as a stream with a torn last line skipped, and `ls`/`show`'s choice between them.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { loadRunState, loadRunSummary } from '../../src/cli/run-lookup.js';
import { createEventLogWriter, foldEventLog, readEvents, streamEvents } from '../../src/report/event-log.js';
import { createStateFileWriter, readStateFile } from '../../src/report/state-file.js';
import { finishedRun, mixedRun } from '../ui/scripted-runs.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeLog(events: readonly unknown[]): void {
  writeFileSync(join(dir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

describe('the snapshot reader', () => {
  it('reads back what the state file writer wrote', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    const writer = createStateFileWriter(dir, { intervalMs: 60_000 });
    for (const event of finishedRun()) writer.listener(event);
    writer.close();
    expect(await readStateFile(dir)).toEqual(JSON.parse(JSON.stringify(foldEvents(finishedRun()))));
  });

  it.each([
    ['no file', undefined],
    ['a torn file', '{"runId": "r1", "name": '],
    ['JSON that is not a run', '{"not": "a run"}'],
    ['a state whose order names a candidate it does not hold', JSON.stringify({ ...foldEvents(finishedRun()), order: ['c1', 'c9'] })],
    ['the initial state (no run.started yet)', JSON.stringify(foldEvents([]))],
  ])('gives nothing for %s', async (_what, content) => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    if (content !== undefined) writeFileSync(join(dir, 'state.json'), content);
    expect(await readStateFile(dir)).toBeUndefined();
  });
});

describe('the event log reader', () => {
  it('streams the events in order and skips a torn last line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    const log = createEventLogWriter(dir);
    for (const event of mixedRun()) log.listener(event);
    log.close();
    appendFileSync(join(dir, 'events.jsonl'), '{"t":"2026-12-02T09:00:40.000Z","type":"candidate.act');
    const streamed = [];
    for await (const event of streamEvents(dir)) streamed.push(event);
    expect(streamed).toEqual(mixedRun());
    expect(await readEvents(dir)).toEqual(mixedRun());
    expect(await foldEventLog(dir)).toEqual(foldEvents(mixedRun()));
  });

  it('skips a line that parses to no event, so that the fold does not throw on it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    const [first, ...rest] = mixedRun();
    writeLog([first, null, 5, 'text', [], { no: 'type' }, { type: 7 }, ...rest]);
    expect(await readEvents(dir)).toEqual(mixedRun());
    expect(await foldEventLog(dir)).toEqual(foldEvents(mixedRun()));
  });

  it('rejects when there is no log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    await expect(foldEventLog(dir)).rejects.toThrow(/ENOENT/);
  });
});

describe('what ls and show read', () => {
  it('is the snapshot when there is one, while resume and the other commands fold the log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    // A snapshot of the finished run beside a log that holds only its start: the two readers differ.
    writeLog(finishedRun().slice(0, 1));
    writeFileSync(join(dir, 'state.json'), JSON.stringify(foldEvents(finishedRun())));
    expect((await loadRunSummary(dir)).status).toBe('winner');
    expect((await loadRunState(dir)).status).toBe('running');
  });

  it('is the fold of the log when the snapshot is missing or broken', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-readers-'));
    writeLog(finishedRun());
    expect(await loadRunSummary(dir)).toEqual(foldEvents(finishedRun()));
    writeFileSync(join(dir, 'state.json'), '{"runId": ');
    expect(await loadRunSummary(dir)).toEqual(foldEvents(finishedRun()));
  });
});
