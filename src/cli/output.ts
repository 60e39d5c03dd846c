/**
 * bestof's own output when nobody can read it any more: `bestof run | head -2` (EPIPE once head
 * has its lines), a terminal that was closed (EIO), a full disk under `> file` (ENOSPC).
 *
 * A stream reports a failed write with an 'error' event, and an 'error' nobody listens to is an
 * uncaught exception: it killed runs half-way with a stack trace, leaving their worktrees and a
 * record that said "running or interrupted". Output is a view of a run, not the run: here a
 * write error only marks its stream closed. What is written to it afterwards is dropped (the
 * stream is destroyed, and Node drops writes to it without another error), the run goes on to
 * its end, and the exit code is the run's own; the run folder holds the whole record.
 *
 * Every write of bestof goes through process.stdout and process.stderr, so guarding the two
 * streams once, at startup (src/cli/main.ts), covers the plain reporter, the dashboard, `--json`
 * and every command.
 */

export type OutputStreamName = 'stdout' | 'stderr';

const closedStreams = new Set<OutputStreamName>();
let guarded = false;

/** Listens for write errors on stdout and stderr; calling it again is harmless. */
export function guardOutputStreams(): void {
  if (guarded) return;
  guarded = true;
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].on('error', (error: NodeJS.ErrnoException) => {
      if (closedStreams.has(name)) return;
      closedStreams.add(name);
      // A reader that went away (EPIPE) is the normal end of a pipe: nothing to say. Anything
      // else (EIO, ENOSPC) is said once on the other stream, if that one still works.
      if (error.code === 'EPIPE') return;
      const other = name === 'stdout' ? 'stderr' : 'stdout';
      if (closedStreams.has(other)) return;
      process[other].write(
        `bestof: writing to ${name} failed (${error.code ?? error.message}); the rest of that output is dropped; bestof goes on, and a run keeps its whole record in its run folder\n`,
      );
    });
  }
}

/** A write to this stream has failed: what is written to it now goes nowhere (long listings can stop). */
export function outputClosed(name: OutputStreamName): boolean {
  return closedStreams.has(name);
}
