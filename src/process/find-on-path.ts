/**
 * Where a program is, the way a shell would find it: the first folder of PATH that holds an
 * executable file of that name. Only looks (no spawn), so it is safe before a run starts.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The absolute path of `program` on `pathVariable`, or undefined when no folder has it. */
export async function findOnPath(program: string, pathVariable = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of pathVariable.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
