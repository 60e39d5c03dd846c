/**
 * `run.pid` (src/engine/record/run-lock.ts): is the run's bestof still alive? Real processes; the pid's
 * reuse is played by a live process and a run.pid written (by its time) before that process started.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markRunAlive, markRunFinished, runIsAlive } from '../../src/engine/record/run-lock.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { built, nodeAsNobody } from '../helpers/as-user.js';

const { tempDir } = tempRepos();
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

function sleeper(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  started.push(child);
  return child;
}

describe('runIsAlive', () => {
  it('is true while the process that wrote run.pid lives, false once it is marked finished', () => {
    const runDir = tempDir();
    expect(runIsAlive(runDir)).toBe(false); // no run.pid
    // Another process's run.pid (this process is never taken for the run: `clean` runs as it).
    const child = sleeper();
    writeFileSync(join(runDir, 'run.pid'), `${child.pid}\n`);
    expect(runIsAlive(runDir)).toBe(true);
    markRunAlive(runDir);
    expect(runIsAlive(runDir)).toBe(false);
    markRunFinished(runDir);
    expect(runIsAlive(runDir)).toBe(false);
  });

  it('is false for a pid no process has, and for a live process that started after run.pid was written (the pid reused)', () => {
    const runDir = tempDir();
    const gone = spawnSync('true').pid as number;
    writeFileSync(join(runDir, 'run.pid'), `${gone}\n`);
    expect(runIsAlive(runDir)).toBe(false);
    // After a kill -9 and a while (or a reboot), the pid names another process, started after the file.
    const stranger = sleeper();
    writeFileSync(join(runDir, 'run.pid'), `${stranger.pid}\n`);
    const before = new Date(Date.now() - 60_000);
    utimesSync(join(runDir, 'run.pid'), before, before);
    expect(runIsAlive(runDir)).toBe(false);
  });

  // A user without root asks about a process of root's: signal 0 answers EPERM, and the start time decides as for any other.
  it.runIf(process.getuid?.() === 0 && existsSync('/usr/bin/setpriv'))("judges another user's process by its start too (signal 0 answers EPERM)", () => {
    const module = built('engine/record/run-lock');
    const ask = (runDir: string): string =>
      nodeAsNobody(`const m = await import(${JSON.stringify(module)}); console.log(m.runIsAlive(${JSON.stringify(runDir)}))`);
    const root = sleeper(); // root's, started before run.pid is written
    const alive = tempDir();
    chmodSync(alive, 0o755);
    writeFileSync(join(alive, 'run.pid'), `${root.pid}\n`, { mode: 0o644 });
    expect(ask(alive)).toBe('true');
    const reused = tempDir();
    chmodSync(reused, 0o755);
    writeFileSync(join(reused, 'run.pid'), `${root.pid}\n`, { mode: 0o644 });
    const before = new Date(Date.now() - 60_000);
    utimesSync(join(reused, 'run.pid'), before, before);
    expect(ask(reused)).toBe('false');
  });
});
