/** Where the distinguish step keeps its record's files in the run folder: the tester's artifacts, the kept tests, the runs' logs. */
import { join } from 'node:path';

export const DISTINGUISH_DIR = 'distinguish';
/** The kept test files, laid into every finalist's scored tree (and base's) as a hidden check's are. */
export const TESTS_SUBDIR = 'tests';

export function distinguishDir(runDir: string): string {
  return join(runDir, DISTINGUISH_DIR);
}
