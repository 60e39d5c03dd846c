/**
 * bestof inside a mount namespace of its own, for copy-on-write worktrees
 * (src/git/worktrees/cow-worktree.ts). An overlay mount is seen only inside the namespace that made it, and
 * a process outside cannot even use it as a working folder (see ./overlay-holder.ts). So the
 * command that mounts (`bestof run`, `resume`, `clean`) runs itself again inside one:
 *
 *   unshare --map-current-user --mount --keep-caps --propagation private --
 *     setpriv --pdeathsig KILL -- node bestof.js <the same arguments>
 *
 * Everything bestof starts from there (git, checks, agents, bwrap, tmux servers) inherits the
 * namespace and sees the merged trees at the worktrees' own paths, as plain worktrees would be.
 * The user namespace maps the user to itself (same uid inside and out: files stay theirs, git's
 * `safe.directory` and the index's stat data agree); `--keep-caps` lets the inner bestof mount
 * (overlayfs in a user namespace: Linux 5.11+), and no capability reaches outside the namespace.
 *
 * The outer process only waits: it passes on SIGTERM and SIGHUP, and SIGINT when it did not come
 * from the terminal (a terminal's Ctrl-C reaches both, and the inner one must see it once), and
 * exits with the inner one's code. `--pdeathsig KILL` ends the inner bestof when the outer one
 * dies, even by `kill -9`: killing the pid the user started is then what it is with plain
 * worktrees, and `bestof resume` finds every layer on disk to mount again.
 */
import { execFile, spawn } from 'node:child_process';
import { findOnPath } from './find-on-path.js';
import { err, ok, type Result } from '../result.js';

/** Set by the outer bestof for the inner one; read once and removed, so that nothing the inner one starts inherits it. */
const NAMESPACE_VAR = 'BESTOF_IN_NAMESPACE';
const inside = process.env[NAMESPACE_VAR] === '1';
delete process.env[NAMESPACE_VAR];

/**
 * What the outer bestof sends the inner one when it is itself asked to stop (SIGINT, SIGTERM): a
 * cancel like the first of those, never the second that quits at once (src/cli/run-session.ts).
 */
export const FORWARDED_CANCEL: NodeJS.Signals = 'SIGUSR2';

/** Is this bestof the inner one, in a namespace where it may mount? */
export function insideMountNamespace(): boolean {
  return inside;
}

/**
 * Runs this same command again inside a new user and mount namespace, and resolves to its exit
 * code; an error when unshare or setpriv (util-linux) cannot start it.
 */
export async function runAgainInMountNamespace(env: NodeJS.ProcessEnv = process.env): Promise<Result<number>> {
  const unshare = await findOnPath('unshare', env.PATH ?? '');
  const setpriv = await findOnPath('setpriv', env.PATH ?? '');
  if (unshare === undefined || setpriv === undefined) return err('unshare or setpriv (util-linux) is not installed');
  const script = process.argv[1];
  if (script === undefined) return err('cannot tell which script to run again');
  const args = [
    '--map-current-user',
    '--mount',
    '--keep-caps',
    '--propagation',
    'private',
    '--',
    setpriv,
    '--pdeathsig',
    'KILL',
    '--',
    process.execPath,
    ...process.execArgv,
    script,
    ...process.argv.slice(2),
  ];
  const child = spawn(unshare, args, { stdio: 'inherit', env: { ...env, [NAMESPACE_VAR]: '1' } });
  // The inner bestof's exit code, once it has exited.
  let exited: number | undefined;
  const passOn = (signal: NodeJS.Signals) => (): void => {
    // After the inner bestof has exited, a signal in the instants before this one exits ends it with
    // the inner one's code, not the signal's default 130 or 143 (as src/cli/run-session.ts does).
    if (exited !== undefined) process.exit(exited);
    // A terminal's Ctrl-C went to the whole foreground group, the inner bestof included.
    if (signal === 'SIGINT' && process.stdin.isTTY) return;
    // Passed on as FORWARDED_CANCEL, which the inner bestof takes for a cancel that never counts as
    // a second signal: a signal sent to the whole process group (systemd's stop, a CI runner
    // cancelling a job, `kill -- -<pgid>`) reaches the inner bestof itself too, and the two together
    // read as "press Ctrl-C again to quit at once": nothing committed.
    child.kill(signal === 'SIGHUP' ? signal : FORWARDED_CANCEL);
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = passOn(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  try {
    return await new Promise<Result<number>>((resolve) => {
      child.once('error', (error) => resolve(err(`cannot start ${unshare}: ${error.message}`)));
      child.once('exit', (code, signal) => {
        exited = code ?? 128 + signalNumber(signal);
        resolve(ok(exited));
      });
    });
  } finally {
    // Kept once the inner bestof has exited (see passOn): removed, a signal would take its default action.
    if (exited === undefined) for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return (signal && numbers[signal]) ?? 1;
}

/** What the inner bestof mounts with: `mount -t overlay` and `umount -l`, run in its own namespace. */
export interface NamespaceMounts {
  mount(mount: { lower: string; upper: string; work: string; target: string }): Promise<Result<void>>;
  unmount(target: string): Promise<Result<void>>;
}

/**
 * Mounts in this process's namespace (the inner bestof's). `userxattr`: overlayfs keeps its marks
 * (an opaque folder, a deleted one) in `user.overlay.*` attributes, which a user namespace may
 * write; without it an unprivileged overlay cannot delete a folder of the lower layer (EIO).
 * Renaming such a folder with rename(2) still fails with EXDEV (redirect_dir needs real root):
 * `mv` copies instead, `git mv <folder>` fails (docs/how-a-run-works.md says so).
 */
export const namespaceMounts: NamespaceMounts = {
  mount: (m) => command('mount', ['-t', 'overlay', 'overlay', '-o', `userxattr,lowerdir=${m.lower},upperdir=${m.upper},workdir=${m.work}`, m.target]),
  unmount: (target) => command('umount', ['-l', target]),
};

function command(file: string, args: readonly string[]): Promise<Result<void>> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { PATH: process.env.PATH, LC_ALL: 'C' } }, (error, stdout, stderr) => {
      if (!error) resolve(ok());
      else resolve(err(`${file} ${args.at(-1) ?? ''}: ${(stderr || stdout || error.message).trim().replace(/\s+/g, ' ')}`));
    });
  });
}
