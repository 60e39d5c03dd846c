/**
 * Where a program is, the way a shell would find it: the first folder of PATH that holds an
 * executable file of that name. Only looks (no spawn), so it is safe before a run starts.
 */
import { accessSync, constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The absolute path of `program` on `pathVariable`, or undefined when no folder has it. */
export async function findOnPath(program: string, pathVariable = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const candidate of placesOnPath(program, pathVariable)) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * findOnPath without waiting: a few `access` calls, each microseconds. For a look-up that must not
 * wait on the event loop: the sandbox probe, started as bestof starts, has its bwrap running before
 * the main thread goes on loading modules (with the asynchronous look-up, each folder's answer
 * waited for a turn of the event loop, and bwrap started only after the plan's first git call had
 * ended). findOnPath stays asynchronous for the look-ups made while other work goes on.
 */
export function findOnPathSync(program: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  for (const candidate of placesOnPath(program, pathVariable)) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** Where `program` would be in each folder of PATH, in order (an empty entry names no folder here). */
function* placesOnPath(program: string, pathVariable: string): Generator<string> {
  for (const dir of pathVariable.split(delimiter)) if (dir) yield join(dir, program);
}
