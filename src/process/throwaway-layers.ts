/**
 * The throwaway layers of a sandboxed call (./sandbox.ts SandboxLayout `throwaway`): folders the
 * process sees writable while what it writes there is gone when it ends. One overlayfs per folder,
 * mounted in a user and mount namespace of the call's own (as the copy-on-write worktrees' holder
 * mounts, ./overlay-holder.ts), its upper layer in a folder beside the call's HOME, which the
 * caller removes after the call.
 */
import { realpathSync } from 'node:fs';
import { lstat, mkdir, mkdtemp } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { findOnPathSync } from './find-on-path.js';
import { overlayAvailable, overlayPathProblem } from './overlay-holder.js';

/** The throwaway layers of one call: where they live, and one overlay per folder. */
export interface ThrowawayLayers {
  readonly dir: string;
  readonly mounts: readonly { readonly path: string; readonly upper: string; readonly work: string }[];
  readonly unshare: string;
  readonly setpriv: string;
  readonly mount: string;
}

/**
 * The `throwaway` folders of a call's layout that can take an overlay (folders that exist, with no `,` or `:`
 * in their path, which overlayfs's options cannot hold), parents before what is inside them, and a
 * fresh folder of layers for them beside the call's HOME (among the run's HOMEs: a run killed
 * meanwhile leaves it where the run's end and `bestof clean` remove it). Undefined when there is
 * none, or when this machine cannot mount overlayfs in a user namespace, or lacks util-linux.
 */
export async function throwawayLayers(
  throwaway: readonly string[],
  call: { readonly home: string; readonly pathVariable?: string | undefined },
): Promise<ThrowawayLayers | undefined> {
  const folders: string[] = [];
  for (const path of throwaway) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isDirectory() && overlayPathProblem(path) === undefined) folders.push(real(path));
  }
  if (folders.length === 0) return undefined;
  const path = call.pathVariable ?? process.env.PATH ?? '';
  const [unshare, setpriv, mount] = [findOnPathSync('unshare', path), findOnPathSync('setpriv', path), findOnPathSync('mount', path)];
  if (unshare === undefined || setpriv === undefined || mount === undefined || !(await overlayAvailable()).ok) return undefined;
  const dir = await mkdtemp(`${call.home}-layers-`);
  const ordered = [...new Set(folders)].sort((a, b) => depth(a) - depth(b));
  const mounts = await Promise.all(
    ordered.map(async (folder, i) => {
      const [upper, work] = [join(dir, String(i), 'upper'), join(dir, String(i), 'work')];
      await Promise.all([mkdir(upper, { recursive: true }), mkdir(work, { recursive: true })]);
      return { path: folder, upper, work };
    }),
  );
  return { dir, mounts, unshare, setpriv, mount };
}

/**
 * Mounts the overlays, then runs bwrap: `unshare` gives the call a user and mount namespace of its
 * own where it may mount (the same way as the copy-on-write worktrees' holder), a shell mounts each
 * overlay over its own folder, and bwrap starts through setpriv without the namespace's
 * capabilities (which bwrap refuses, ./capabilities.ts). Each program replaces the one before it
 * (no fork): the process bestof started is bwrap's, for its signals and its exit code. A mount that
 * fails ends the call with exit 125 and the mount's message on stderr.
 */
export function withThrowawayLayers(sandboxed: { command: string; args: string[] }, layers: ThrowawayLayers): { command: string; args: string[] } {
  const script =
    'n=$1; shift; while [ "$n" -gt 0 ]; do "$MOUNT" -t overlay overlay -o "userxattr,lowerdir=$1,upperdir=$2,workdir=$3" "$1" || exit 125; shift 3; n=$((n - 1)); done; exec "$@"';
  return {
    command: layers.unshare,
    args: [
      '--map-current-user',
      '--mount',
      '--keep-caps',
      '--propagation',
      'private',
      '--',
      '/usr/bin/env',
      `MOUNT=${layers.mount}`,
      '/bin/sh',
      '-c',
      script,
      'sh',
      String(layers.mounts.length),
      ...layers.mounts.flatMap((m) => [m.path, m.upper, m.work]),
      layers.setpriv,
      '--inh-caps=-all',
      '--ambient-caps=-all',
      '--',
      sandboxed.command,
      ...sandboxed.args,
    ],
  };
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Folders before what is inside them. */
function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
