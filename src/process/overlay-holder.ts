/**
 * A process that holds overlay mounts (Linux overlayfs) in a mount namespace of its own, without
 * root: `unshare --map-current-user --mount --keep-caps` gives it a user namespace where it may
 * mount (Linux 5.11+ allows overlayfs there), while every file it writes stays owned by the user,
 * under the same uid inside and outside (so git's index stat data and `safe.directory` agree).
 *
 * The holder is a shell reading one request per line on its stdin (`mount` or `umount`, fields
 * separated by tabs) and answering one line each. Its stdin is a pipe from this process: when
 * bestof ends, even by `kill -9`, the pipe closes, the shell reads end-of-file and exits, and the
 * namespace with its mounts goes away once the processes inside it (see `inside`) have ended. The
 * upper layers are plain folders on disk: nothing written through a mount is lost with it, and a
 * new holder mounts them again.
 *
 * The mounts are seen only inside the namespace. A process outside reaches a merged tree through
 * `/proc/<pid>/root/<path>` for file access and for bwrap's `--bind` source, but NOT as a working
 * folder: getcwd() there answers the path as the namespace names it, which outside is the empty
 * mount point, and git resolves its worktree through it. Anything that runs in a merged tree (git,
 * the checks) runs inside the namespace: `inside()` wraps a command in `nsenter`.
 *
 * `BESTOF_OVERLAY=off` makes the probe answer "not available" (tests use it for the fallback).
 */
import type { Env } from '../env.js';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { lstat, mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { findOnPath } from './find-on-path.js';
import { removeTree } from '../owned-tree.js';
import { err, ok, type Result } from '../result.js';

export type OverlayProbe = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface OverlayMount {
  /** The read-only lower layer (a plain checkout). */
  readonly lower: string;
  /** Where the changes go (on disk, kept when the mount goes). */
  readonly upper: string;
  /** overlayfs's own scratch folder, on the same file system as `upper`. */
  readonly work: string;
  /** The mount point: the merged tree appears here, inside the namespace. */
  readonly target: string;
}

export interface OverlayHolder {
  readonly pid: number;
  mount(mount: OverlayMount): Promise<Result<void>>;
  /** Lazy unmount: a process still inside the tree keeps it alive until it leaves. */
  unmount(target: string): Promise<Result<void>>;
  /** `path` as a process outside the namespace reaches it (files only, never as a cwd: see the module doc). */
  viewPath(path: string): string;
  /** The argv that runs `command args` inside the namespace, in `cwd`, as the same user. */
  inside(command: string, args: readonly string[], cwd: string): { command: string; args: string[] };
  /** Ends the holder (its mounts go with the namespace). */
  close(): Promise<void>;
}

/** The shell loop of the holder; one answer line per request: `ok` or `fail <message>`. (`userxattr`: see ./namespace.ts namespaceMounts.) */
const HOLDER_SCRIPT = [
  'while IFS="$(printf \'\\t\')" read -r op a b c d; do',
  '  case "$op" in',
  '    mount) out=$(mount -t overlay overlay -o "userxattr,lowerdir=$a,upperdir=$b,workdir=$c" "$d" 2>&1) ;;',
  '    umount) out=$(umount -l "$a" 2>&1) ;;',
  '    *) out="unknown request $op"; false ;;',
  '  esac',
  '  if [ $? -eq 0 ]; then echo ok; else echo "fail $(echo "$out" | tr "\\n" " ")"; fi',
  'done',
].join('\n');

/** Characters overlayfs's option string or the request line cannot carry in a path. */
const UNSAFE_PATH = /[,:\t\n\\]/;

/** A path the holder can mount (overlayfs separates its options with `,` and layers with `:`). */
export function overlayPathProblem(path: string): string | undefined {
  return UNSAFE_PATH.test(path) ? `the path ${path} holds a comma, colon, tab, newline or backslash, which overlayfs mount options cannot carry` : undefined;
}

/** Starts a holder. Fails when unshare is missing or the namespace cannot be made. */
export async function startOverlayHolder(env: Env = process.env): Promise<Result<OverlayHolder>> {
  const unshare = await findOnPath('unshare', env.PATH ?? '');
  const nsenter = await findOnPath('nsenter', env.PATH ?? '');
  if (unshare === undefined || nsenter === undefined) return err('unshare or nsenter (util-linux) is not installed');
  let child: ChildProcessByStdio<Writable, Readable, Readable>;
  try {
    child = spawn(unshare, ['--map-current-user', '--mount', '--keep-caps', '--propagation', 'private', '--', 'sh', '-c', HOLDER_SCRIPT], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: env.PATH, LC_ALL: 'C' },
    });
  } catch (error) {
    return err(`cannot start unshare: ${(error as Error).message}`);
  }
  const started = await new Promise<Result<number>>((resolve) => {
    child.once('error', (error) => resolve(err(`cannot start unshare: ${error.message}`)));
    child.once('spawn', () => resolve(child.pid === undefined ? err('unshare has no pid') : ok(child.pid)));
  });
  if (!started.ok) return started;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  // The holder never keeps bestof alive, nor do its pipes, except while an answer is awaited.
  const answers = child.stdout as unknown as { ref(): void; unref(): void };
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  answers.unref();
  (child.stderr as unknown as { unref(): void }).unref();
  child.stdin.on('error', () => undefined);

  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const waiting: ((line: string | undefined) => void)[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      waiting.shift()?.(line);
      if (waiting.length === 0) answers.unref();
    }
  });
  child.once('close', () => {
    for (const wake of waiting.splice(0)) wake(undefined);
  });

  // Requests go one at a time (answers come back in order on one pipe).
  let queue: Promise<unknown> = Promise.resolve();
  const request = (fields: readonly string[]): Promise<Result<void>> => {
    const next = queue.then(
      () =>
        new Promise<Result<void>>((resolve) => {
          if (exited) {
            resolve(err(`the overlay holder (pid ${child.pid}) has ended${stderr ? `: ${stderr.trim()}` : ''}`));
            return;
          }
          answers.ref();
          waiting.push((line) => {
            if (line === undefined) resolve(err(`the overlay holder (pid ${child.pid}) ended${stderr ? `: ${stderr.trim()}` : ''}`));
            else if (line === 'ok') resolve(ok());
            else resolve(err(line.replace(/^fail /, '').trim() || 'failed'));
          });
          child.stdin.write(`${fields.join('\t')}\n`);
        }),
    );
    queue = next;
    return next;
  };

  const pid = started.value;
  const holder: OverlayHolder = {
    pid,
    async mount(m) {
      for (const path of [m.lower, m.upper, m.work, m.target]) {
        const problem = overlayPathProblem(path);
        if (problem) return err(problem);
      }
      return request(['mount', m.lower, m.upper, m.work, m.target]);
    },
    unmount(target) {
      const problem = overlayPathProblem(target);
      return problem ? Promise.resolve(err(problem)) : request(['umount', target]);
    },
    viewPath(path) {
      return `/proc/${pid}/root${path}`;
    },
    inside(command, args, cwd) {
      // `env --chdir`, not nsenter's `--wd`: that one opens the folder before entering the namespace.
      return {
        command: nsenter,
        args: ['-t', String(pid), '--user', '--mount', '--preserve-credentials', '--', 'env', `--chdir=${cwd}`, '--', command, ...args],
      };
    },
    async close() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.ref(); // the wait for its exit keeps this process alive
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
  return ok(holder);
}

const probes = new Map<string, Promise<OverlayProbe>>();

/**
 * Can this machine hold overlay mounts without root? Mounts one for real (a temp folder, a file
 * written through it must land in the upper layer) and says why not when it cannot; the answer is
 * cached per PATH.
 */
export function overlayAvailable(env: Env = process.env): Promise<OverlayProbe> {
  if (env.BESTOF_OVERLAY === 'off') return Promise.resolve({ ok: false, reason: 'overlay worktrees are switched off (BESTOF_OVERLAY=off)' });
  if (process.platform !== 'linux') return Promise.resolve({ ok: false, reason: 'overlay worktrees need Linux (overlayfs in a user namespace)' });
  const key = env.PATH ?? '';
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(env);
    probes.set(key, probe);
  }
  return probe;
}

/**
 * The probe's folder in the temp folder: `bestof-overlay-probe-<pid of its bestof>-XXXXXX`; before
 * 2026-12-05 `bestof-overlay-probe-XXXXXX`, without the pid.
 */
const PROBE_FOLDER = /^bestof-overlay-probe-(?:(\d+)-)?[A-Za-z0-9]{6}$/;
/** A probe takes a second: a folder of the old name older than this is a killed bestof's. */
const OLD_PROBE_AGE_MS = 3_600_000;

async function runProbe(env: Env): Promise<OverlayProbe> {
  const temp = env.TMPDIR && isAbsolute(env.TMPDIR) ? env.TMPDIR : tmpdir();
  await removeProbesOfGoneBestofs(temp);
  const dir = await mkdtemp(join(temp, `bestof-overlay-probe-${process.pid}-`));
  const holder = await startOverlayHolder(env);
  if (!holder.ok) {
    await rm(dir, { recursive: true, force: true });
    return { ok: false, reason: holder.error };
  }
  try {
    const m = { lower: join(dir, 'lower'), upper: join(dir, 'upper'), work: join(dir, 'work'), target: join(dir, 'merged') };
    for (const folder of Object.values(m)) await mkdir(folder);
    await writeFile(join(m.lower, 'file'), 'lower\n');
    const mounted = await holder.value.mount(m);
    if (!mounted.ok) return { ok: false, reason: `cannot mount overlayfs in a user namespace (Linux 5.11+ needed, user namespaces allowed): ${mounted.error}` };
    const through = holder.value.viewPath(join(m.target, 'file'));
    if ((await readFile(through, 'utf8')) !== 'lower\n')
      return { ok: false, reason: `the overlay mounted in the namespace is not reachable through ${through}` };
    await writeFile(through, 'upper\n');
    if ((await readFile(join(m.upper, 'file'), 'utf8')) !== 'upper\n')
      return { ok: false, reason: 'a file written through the overlay did not land in its upper layer' };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `overlay worktrees do not work here: ${(error as Error).message}` };
  } finally {
    await holder.value.close();
    // overlayfs leaves work/work without any permission: removeTree opens it up for a user without root.
    await removeTree(dir);
  }
}

/**
 * A bestof killed during its probe (`kill -9`, a machine that stops) leaves the probe's folder in
 * the temp folder, and nothing else would ever delete it: the next probe deletes those of this
 * user whose bestof is gone. A live process of that pid (the same bestof, or one that reused its
 * pid) keeps its folder.
 */
async function removeProbesOfGoneBestofs(temp: string): Promise<void> {
  const names = await readdir(temp).catch(() => [] as string[]);
  for (const name of names) {
    const match = PROBE_FOLDER.exec(name);
    if (!match) continue;
    const pid = match[1] === undefined ? undefined : Number(match[1]);
    if (pid !== undefined && processExists(pid)) continue;
    const path = join(temp, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory() || info.uid !== process.getuid?.()) continue;
    if (pid === undefined && Date.now() - info.mtimeMs < OLD_PROBE_AGE_MS) continue;
    await removeTree(path).catch(() => undefined);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
