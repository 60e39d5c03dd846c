/** The files a repo tracks, relative to its root (`git ls-files`); [] when git cannot say. */
import { gitOut, splitNul, type GitCallOptions } from './exec.js';

export async function trackedFiles(repo: string, opts: GitCallOptions = {}): Promise<string[]> {
  return splitNul(await gitOut(repo, ['ls-files', '-z', '--', ':/'], opts).catch(() => ''));
}
