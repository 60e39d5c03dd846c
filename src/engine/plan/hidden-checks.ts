/**
 * The hidden checks' folders (`hidden`, `into` on a `[[checks.items]]`), judged before anything
 * is created. A hidden folder holds the tests no agent may see, so the plan refuses every place
 * where an agent would see them anyway:
 *
 *   the folder    must be a real folder (not a link), outside the repo and not holding it: a folder
 *                 inside the repo is in every worktree, one that holds the repo is the agents' own
 *   its entries   files and folders only: a link could point anywhere, and its target would be laid
 *                 into the scoring tree (src/checks/hidden-files.ts copies files, never follows links)
 *   `into`        a place that does not exist in base and is not a setup path: the files are laid
 *                 where nothing is, so no file the agent sees (a tracked test, a setup copy) is ever
 *                 replaced by them, and taking them away leaves the tree as it was
 *
 * The plan's spec carries each `hidden` as an absolute path from here on (the run's checks run in a
 * worktree, not in the spec's folder). Without the sandbox, an agent can read any folder of the
 * user's: the plan says so, once.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, posix, relative, resolve } from 'node:path';
import { pathInCommit } from '../../git/running/show.js';
import { isInside } from '../../process/sandbox.js';
import { resolveSpecPath } from '../../spec/load.js';
import type { Spec } from '../../spec/schema.js';

export interface HiddenChecksPlan {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** The spec with every `hidden` resolved to an absolute path. */
  readonly spec: Spec;
  /** The hidden folders, absolute: what the agents' sandbox hides. */
  readonly folders: readonly string[];
}

export interface HiddenChecksContext {
  readonly specDir: string;
  readonly repoRoot: string;
  /** Base's commit, when it resolved: `into` is looked up there. */
  readonly baseCommit: string | undefined;
  /** Whether the agents run in the sandbox (which hides the hidden folders from them). */
  readonly sandboxed: boolean;
}

export async function planHiddenChecks(spec: Spec, context: HiddenChecksContext): Promise<HiddenChecksPlan> {
  const problems: string[] = [];
  const folders: string[] = [];
  const items = await Promise.all(
    spec.checks.items.map(async (item, index) => {
      if (item.hidden === undefined || item.into === undefined) return item;
      const folder = resolveSpecPath(context.specDir, item.hidden);
      const key = `checks.items[${index}]`;
      const found = [...(await folderProblems(`${key}.hidden`, folder, context.repoRoot)), ...(await intoProblems(`${key}.into`, item.into, spec, context))];
      problems.push(...found);
      folders.push(folder);
      return { ...item, hidden: folder };
    }),
  );
  const warnings =
    folders.length > 0 && !context.sandboxed
      ? [
          `the agents run without the sandbox: an agent could read the hidden checks' folder${folders.length === 1 ? '' : 's'} (${folders.join(', ')}) and what bestof records of the hidden checks under .bestof/ (their logs, base's test names), and so learn the hidden tests; run with [sandbox] mode = "auto" on a machine with bubblewrap to hide ${folders.length === 1 ? 'it' : 'them'}`,
        ]
      : [];
  return { problems, warnings, folders, spec: { ...spec, checks: { ...spec.checks, items } } };
}

/** The hidden folder: a real folder outside the repo, holding files and folders only. */
async function folderProblems(key: string, folder: string, repoRoot: string): Promise<string[]> {
  const info = await lstat(folder).catch(() => undefined);
  if (!info) return [`${key}: folder not found: ${folder} (paths in a spec are relative to the spec file's folder)`];
  if (info.isSymbolicLink()) return [`${key}: ${folder} is a symbolic link: name the folder it points to (a hidden folder must be a folder of its own)`];
  if (!info.isDirectory()) return [`${key}: ${folder} is a file, expected a folder of hidden files`];
  const real = await realpath(folder);
  const repo = await realpath(repoRoot);
  if (isInside(real, repo)) {
    return [
      `${key}: ${folder} is inside the repo, so every agent's worktree holds it: move the hidden files to a folder outside the repo (next to the spec's folder, say "../hidden-tests")`,
    ];
  }
  if (isInside(repo, real)) return [`${key}: ${folder} holds the repo itself: name a folder of hidden files only, outside the repo`];
  const odd = await oddEntries(folder);
  if (odd.length > 0) {
    return [
      `${key}: ${folder} holds ${odd.map((path) => `"${path}"`).join(', ')}, not a file nor a folder: hidden files are copied as files and a link is never followed; put the file itself there`,
    ];
  }
  if (!(await holdsAFile(folder))) return [`${key}: ${folder} holds no file: put the hidden tests there`];
  return [];
}

/** Links, sockets and the like under `folder` (relative paths), found without following a link. */
async function oddEntries(folder: string, below = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(folder, below), { withFileTypes: true })) {
    const path = below === '' ? entry.name : `${below}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await oddEntries(folder, path)));
    else if (!entry.isFile()) out.push(path);
  }
  return out;
}

async function holdsAFile(folder: string): Promise<boolean> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.isFile()) return true;
    if (entry.isDirectory() && (await holdsAFile(join(folder, entry.name)))) return true;
  }
  return false;
}

/** `into`: a path of its own in the repo, where base has nothing and setup puts nothing. */
async function intoProblems(key: string, into: string, spec: Spec, context: HiddenChecksContext): Promise<string[]> {
  const path = posix.normalize(into.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (path === '.' || path === '' || relative(context.repoRoot, resolve(context.repoRoot, path)) === '') {
    return [`${key}: "${into}" is the repo's root: name a folder of its own for the hidden files (into = "test/hidden")`];
  }
  if (path === '.git' || path.startsWith('.git/')) return [`${key}: "${into}" is inside git's own folder: name a folder of the repo's (into = "test/hidden")`];
  const setup = [...spec.setup.copy, ...spec.setup.link].map((entry) => posix.normalize(entry).replace(/\/+$/, ''));
  const clash = setup.find((entry) => entry === path || path.startsWith(`${entry}/`) || entry.startsWith(`${path}/`));
  if (clash !== undefined) {
    return [
      `${key}: "${into}" meets the setup path "${clash}": the hidden files would be laid over or beside what setup puts there; name a folder of their own`,
    ];
  }
  if (context.baseCommit === undefined) return [];
  if (await pathInCommit(context.repoRoot, context.baseCommit, path)) {
    return [
      `${key}: "${into}" exists in base: the hidden files would replace files every agent sees (and could change them); name a place that base does not have (into = "test/hidden")`,
    ];
  }
  return [];
}
