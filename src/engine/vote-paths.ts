/** Where the vote keeps its calls' artifacts (prompts, raw answers) in the run folder. */
import { join } from 'node:path';

export function voteDir(runDir: string): string {
  return join(runDir, 'vote');
}
