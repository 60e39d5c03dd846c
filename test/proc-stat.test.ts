/**
 * src/proc-stat.ts: a process's state, parent, group and start from /proc/<pid>/stat, whatever its
 * command name holds (the name is free text in parentheses; the fields are counted after the last ')').
 */
import { spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcStat, startedAtMs } from '../src/proc-stat.js';
import { tempRepos } from './helpers/temp-repo.js';

const { tempDir } = tempRepos();
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

describe.skipIf(process.platform !== 'linux')('readProcStat', () => {
  it('reads a process whose command name holds spaces and parentheses, and says when it started', async () => {
    // `sleep` under a name that would shift every field of a parser that splits on spaces or the first ')'.
    const link = join(tempDir(), 'a) b (c) d');
    symlinkSync('/bin/sleep', link);
    const before = Date.now();
    const child = spawn(link, ['30'], { detached: true, stdio: 'ignore' });
    started.push(child.pid as number);
    await new Promise((resolve) => child.once('spawn', resolve));
    const stat = readProcStat(child.pid as number);
    expect(stat).toMatchObject({ ppid: process.pid, pgrp: child.pid });
    expect(['R', 'S']).toContain(stat?.state);
    // The boot time has whole seconds and the start ticks of 10 ms: within a couple of seconds of the spawn.
    const at = startedAtMs(stat!);
    expect(at).toBeGreaterThan(before - 2000);
    expect(at).toBeLessThan(Date.now() + 2000);
    // Our own process started before the child.
    expect(readProcStat(process.pid)!.startTicks).toBeLessThanOrEqual(stat!.startTicks);
  });

  it('says nothing of a process that is gone', async () => {
    const child = spawn('true');
    await new Promise((resolve) => child.once('close', resolve));
    expect(readProcStat(child.pid as number)).toBeUndefined();
  });
});
