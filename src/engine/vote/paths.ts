/** Where the vote keeps its calls' artifacts (prompts, raw answers) in the run folder. */
import { join } from 'node:path';
import { VOTE_DIR } from '../record/run-folder.js';

export function voteDir(runDir: string): string {
  return join(runDir, VOTE_DIR);
}
