/**
 * The agents' sandbox (Linux: bubblewrap, `bwrap`), also the checks' (src/engine/sandbox/agent-sandbox.ts
 * says what each gets). Every agent process (a candidate's, the reviewer's) sees the whole machine
 * read-only, with these exceptions:
 *
 *   writable   its working folder (the candidate's worktree, or the reviewer's export), a HOME
 *              of its own, a private /tmp, and whatever the layout adds: the agent's git scratch,
 *              shown in place of the shared `objects/` and of the worktree's own admin dir
 *              (`<common git dir>/worktrees/<name>`: index, HEAD), so that the agent's own `git
 *              add` works and writes neither (`redirected`; src/git/guards/agent-git-scratch.ts)
 *   read-only  everything else, among it the shared git dir (its objects too, where the scratch's
 *              alternates name them; config, hooks, info, refs, packed-refs) and the worktree's
 *              `.git` file (so the agent can point neither
 *              its worktree nor bestof's git calls at another git dir)
 *   hidden     an empty read-only tmpfs over: the worktrees root (the other candidates' worktrees), the
 *              run folder (`<repo>/.bestof`), the user's HOME; and /tmp. Bound back read-only inside
 *              them: the program's own folders, the PATH folders and what their programs need
 *              beside them (toolRoots: a version manager's root, a Node prefix's node_modules, a
 *              virtualenv and its Python), and the layout's read-only paths (rustup's toolchains)
 *
 * Mounts are applied in order and a later one covers an earlier one, so they are sorted by
 * depth: a deeper path is always more specific than any of its ancestors (the candidate's
 * worktree is bound back inside the hidden worktrees root, its `.git` file read-only inside
 * the writable worktree). A PID namespace (`--unshare-pid`) ends every process the agent
 * started (a `setsid` daemon too) when the agent ends, and `--die-with-parent` ends the
 * sandbox when bestof dies, even by `kill -9`. The network is shared: the agents call their
 * APIs; a check gets a network of its own (`ownNetwork`) unless the spec says otherwise. There
 * is no `--new-session`: runProcess spawns detached, which already calls setsid, so the agent
 * has no controlling terminal; and staying in bwrap's process group lets runProcess's SIGTERM
 * reach the agent itself, for a graceful stop before the SIGKILL.
 *
 * `BESTOF_BWRAP` overrides where bwrap is (tests set it to a path that does not exist to
 * simulate a machine without it); otherwise it is looked up on PATH.
 */
import type { Env } from '../env.js';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { findOnPathSync } from './find-on-path.js';
import { withoutCapabilities } from './capabilities.js';
import { throwawayLayers, withThrowawayLayers } from './throwaway-layers.js';
import { removeTree } from '../owned-tree.js';
import type { ProcessResult, RunProcessOptions } from './types.js';

export interface SandboxLayout {
  /** Absolute path of bwrap, from probeSandbox. */
  readonly bwrap: string;
  /** The agent's working folder (its cwd): writable. */
  readonly workdir: string;
  /** The agent's own HOME: writable; $HOME inside. */
  readonly home: string;
  /** Hidden behind an empty tmpfs: the worktrees root, the run folder, the user's HOME. */
  readonly hidden: readonly string[];
  /** Writable besides workdir and home (the worktree's git admin dir, the shared objects dir). */
  readonly writable: readonly string[];
  /**
   * Folders shown at another path than their own (`source` at `target`): the agent's git scratch in
   * place of the shared objects and the worktree's admin dir, and the real objects, read-only,
   * where the scratch's alternates name them (src/git/guards/agent-git-scratch.ts). Only where both exist.
   * @default none
   */
  readonly redirected?: readonly { readonly source: string; readonly target: string; readonly writable: boolean }[] | undefined;
  /** Visible read-only even inside a hidden folder or a writable one (the shared git dir, the `.git` file). */
  readonly readOnly: readonly string[];
  /**
   * Files shown empty (bound over by /dev/null, read-only): the credential files inside a folder
   * bound back read-only (a toolchain home's `credentials.toml`), which the program may not read.
   * Only those that exist. @default none
   */
  readonly masked?: readonly string[] | undefined;
  /**
   * Folders the process sees writable while what it writes there is thrown away when it ends: an
   * overlayfs of the call's own over each (in a user and mount namespace of its own, ./overlay-holder.ts
   * says where that works), whose upper layer is removed after the call. For a check: what `[setup]`
   * made and what `[setup] link` points at, so that the caches honest checks write there (nyc's,
   * babel's, vite's) work, and nothing the code of one check writes there reaches the next. Only
   * folders that exist; where overlayfs cannot be mounted, they are as the rest of the layout says.
   * @default none
   */
  readonly throwaway?: readonly string[] | undefined;
  /** The agent's PATH: its folders under /tmp or a hidden folder are bound back read-only. */
  readonly pathVariable?: string | undefined;
  /**
   * A network namespace of its own (`--unshare-net`): only a loopback, which nothing outside the
   * sandbox reaches, no route out. For a check (`[sandbox] check_network = "own"`); an agent calls
   * its API and shares the machine's network. @default false
   */
  readonly ownNetwork?: boolean | undefined;
}

export type SandboxProbe = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly reason: string };

/** How to install bubblewrap, for messages. */
export const BWRAP_INSTALL_HINT = 'install bubblewrap (`apt-get install bubblewrap` on Debian/Ubuntu, `dnf install bubblewrap` on Fedora)';

const probes = new Map<string, Promise<SandboxProbe>>();

/**
 * Is bwrap there, and does it really work here (user namespaces may be off, a container may
 * forbid mounts)? Runs bwrap once with the same kind of mounts the agents get; the answer is
 * cached per bwrap path.
 */
export function probeSandbox(env: Env = process.env): Promise<SandboxProbe> {
  const override = env.BESTOF_BWRAP;
  const key = override ?? `PATH:${env.PATH ?? ''}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(override, env);
    probes.set(key, probe);
  }
  return probe;
}

async function runProbe(override: string | undefined, env: Env): Promise<SandboxProbe> {
  const bwrap = override ?? findOnPathSync('bwrap', env.PATH ?? '');
  if (bwrap === undefined) return { ok: false, reason: 'bwrap (bubblewrap) is not installed' };
  if (!existsSync(bwrap)) return { ok: false, reason: `bwrap is not at ${bwrap} (BESTOF_BWRAP)` };
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid', '--die-with-parent', '--', 'true'];
  // Started as runProcess starts it for a run: without the capabilities of bestof's namespace (./capabilities.ts).
  const why = await probeRun(withoutCapabilities(bwrap, args, env.PATH) ?? { file: bwrap, args }, env.PATH);
  if (why === undefined) return { ok: true, bwrap };
  return { ok: false, reason: `${bwrap} does not work here: ${why}` };
}

/** What a spawn error's code means, for the probe's message (as src/process/run-process.ts says it). */
const SPAWN_REASONS: Readonly<Record<string, string>> = { ENOENT: 'not found', EACCES: 'permission denied' };

/**
 * Runs the probe: undefined when bwrap exits 0, else why not (the last line of its stderr, its exit
 * code or signal, or why it could not start). Through node's execFile, not runProcess: `validate`
 * probes the sandbox too, and this way does not load the process-tree machinery, which
 * a run needs and a quick command does not. bwrap runs `true` and nothing else; `--unshare-pid`
 * and `--die-with-parent` leave nothing behind when it is killed at the timeout.
 */
function probeRun(run: { readonly file: string; readonly args: readonly string[] }, path: string | undefined): Promise<string | undefined> {
  return new Promise((done) => {
    const env = path !== undefined ? { PATH: path } : {};
    execFile(
      run.file,
      run.args,
      { cwd: '/', env, timeout: 15_000, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (!error) return done(undefined);
        if (typeof error.code === 'string') {
          done(`cannot start ${run.file}: ${SPAWN_REASONS[error.code] ?? error.message} (${error.code})`);
          return;
        }
        done(stderr.trim().split('\n').pop() || `exit ${error.code ?? error.signal ?? 'unknown'}`);
      },
    );
  });
}

/** The argv that runs `command args` inside the sandbox described by `layout`. */
export function wrapInSandbox(command: string, args: readonly string[], layout: SandboxLayout): { command: string; args: string[] } {
  return { command: layout.bwrap, args: [...sandboxArgs(layout, command), '--chdir', layout.workdir, '--', command, ...args] };
}

/** A mount at `path`: `target` is a link's text; `source`, what a redirected bind shows there. */
type Mount = {
  readonly kind: 'tmpfs' | 'link' | 'ro' | 'rw' | 'ro-from' | 'rw-from' | 'mask';
  readonly path: string;
  readonly target?: string;
  readonly source?: string;
};
const KIND_ORDER = { tmpfs: 0, link: 1, ro: 2, rw: 3, 'ro-from': 4, 'rw-from': 5, mask: 6 } as const;

/**
 * The symbolic links on the way to `path`: where each is and what it says, each resolved before
 * the next is looked for (SDKMAN's `candidates/java/current` on the way to its `bin` on PATH).
 */
function linksOnTheWay(path: string): { readonly path: string; readonly target: string }[] {
  const links: { path: string; target: string }[] = [];
  let at = '/';
  for (const part of path.split(sep).filter(Boolean)) {
    const next = join(at, part);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      return links;
    }
    if (target === undefined) {
      at = next;
      continue;
    }
    links.push({ path: next, target });
    at = real(next);
  }
  return links;
}

/** bwrap's options (everything before `--chdir`), exported for tests. */
export function sandboxArgs(layout: SandboxLayout, command: string): string[] {
  const hiddenDirs = layout.hidden.filter(existsSync).map(real);
  const hidden = ['/tmp', ...hiddenDirs];
  const mounts: Mount[] = [
    ...hidden.map((path) => ({ kind: 'tmpfs' as const, path })),
    // Bound back read-only when hidden; never a hidden folder itself (same depth: it would win).
    ...programDirs(command, layout.pathVariable, hidden)
      .filter((dir) => isInsideAny(dir, hidden) && !hidden.includes(dir))
      .map((path) => ({ kind: 'ro' as const, path })),
    ...layout.readOnly.filter(existsSync).map((path) => ({ kind: 'ro' as const, path: real(path) })),
    ...[layout.workdir, layout.home, ...layout.writable].filter(existsSync).map((path) => ({ kind: 'rw' as const, path: real(path) })),
    ...(layout.masked ?? []).filter(existsSync).map((path) => ({ kind: 'mask' as const, path: real(path) })),
    ...(layout.redirected ?? [])
      .filter((r) => existsSync(r.source) && existsSync(r.target))
      .map((r) => ({ kind: r.writable ? ('rw-from' as const) : ('ro-from' as const), path: real(r.target), source: real(r.source) })),
  ];
  // What is bound back is bound where it really is; a program finds it by the path it was given,
  // through links that live in a hidden folder, where nothing of the host shows: those links are
  // made again (a PATH folder or a JAVA_HOME through SDKMAN's `current`), unless what is bound
  // holds them already.
  const bound = mounts.filter((mount) => mount.kind !== 'tmpfs').map((mount) => mount.path);
  const links = new Map<string, string>();
  for (const named of [...(layout.pathVariable ?? '').split(delimiter), ...layout.readOnly, command].filter((p) => isAbsolute(p) && existsSync(p))) {
    for (const link of linksOnTheWay(named)) {
      if (isInsideAny(link.path, hidden) && !hidden.includes(link.path) && !bound.some((dir) => isInside(link.path, dir))) links.set(link.path, link.target);
    }
  }
  mounts.push(...[...links].map(([path, target]) => ({ kind: 'link' as const, path, target })));
  const sorted = mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || KIND_ORDER[a.mount.kind] - KIND_ORDER[b.mount.kind] || a.index - b.index)
    .map(({ mount }) => mount);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const mount of sorted) {
    if (mount.kind === 'tmpfs') args.push('--tmpfs', mount.path);
    else if (mount.kind === 'link') args.push('--symlink', mount.target ?? '', mount.path);
    else if (mount.kind === 'mask') args.push('--ro-bind', '/dev/null', mount.path);
    else if (mount.kind === 'ro-from' || mount.kind === 'rw-from') args.push(mount.kind === 'ro-from' ? '--ro-bind' : '--bind', mount.source ?? '', mount.path);
    else args.push(mount.kind === 'ro' ? '--ro-bind' : '--bind', mount.path, mount.path);
  }
  // The hidden folders are empty and read-only (the private /tmp stays writable); what was
  // bound inside them keeps its own mode.
  for (const path of hiddenDirs) args.push('--remount-ro', path);
  args.push('--unshare-pid', '--die-with-parent');
  if (layout.ownNetwork) args.push('--unshare-net');
  return args;
}

/**
 * The folders the program needs to start: where it is (and where its symlink points), and the
 * agent's PATH folders (the program may be a script run by `node` from PATH). A program inside
 * a `node_modules` brings the whole `node_modules` folder (its dependencies are beside it); a
 * program of a package (a `package.json` above it, below the hidden folder it lives in) brings
 * that package, whose files it may read (a script beside its data, a CLI run from its checkout).
 */
function programDirs(command: string, pathVariable: string | undefined, hidden: readonly string[]): string[] {
  const dirs = new Set<string>();
  const add = (file: string) => {
    const cut = file.indexOf(`${sep}node_modules${sep}`);
    dirs.add(cut >= 0 ? file.slice(0, cut + '/node_modules'.length) : packageRoot(dirname(file), hidden));
  };
  if (isAbsolute(command) && existsSync(command)) {
    add(command);
    add(real(command));
  }
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir) || !existsSync(dir)) continue;
    dirs.add(real(dir));
    for (const root of toolRoots(real(dir))) dirs.add(root);
  }
  return [...dirs];
}

/**
 * What the programs of a PATH folder need beside it, for the kinds of install that live in a HOME
 * (a PATH folder alone is not enough there: its programs are links or shims into the install):
 * - `<root>/shims` of a version manager (pyenv, rbenv, nodenv, asdf: a root with `libexec`,
 *   `versions` or `installs`): the shims run the manager from `<root>`, and the versions live there;
 * - `<prefix>/bin` of a Node install (nvm, n, fnm): `npm` and `npx` are links into
 *   `<prefix>/lib/node_modules`, which alone is bound (a prefix may be `~/.local`);
 * - `<venv>/bin` of a Python virtualenv (`pyvenv.cfg`): the venv, and the install its `python`
 *   comes from (the `home` folder that pyvenv.cfg names, up to the install's root);
 * - `<sdk>/bin` of an SDK whose programs read their own tree: a Go root (`pkg/tool`, a `VERSION`
 *   that says go...), a JDK (a `release` file with JAVA_VERSION=), unpacked in the HOME or reached
 *   through SDKMAN's links.
 * Each kind is recognised by what its install holds, never by a folder's name alone: the `bin` or
 * `shims` of a project of the user's on PATH brings nothing of the project beside it.
 * Only what is inside a hidden folder is bound (sandboxArgs), read-only, and never a hidden folder
 * itself (a HOME is never bound whole).
 */
function toolRoots(dir: string): string[] {
  const parent = dirname(dir);
  if (basename(dir) === 'shims') return ['libexec', 'versions', 'installs'].some((marker) => existsSync(join(parent, marker))) ? [parent] : [];
  if (basename(dir) !== 'bin') return [];
  const roots: string[] = [];
  if (existsSync(join(parent, 'lib', 'node_modules'))) roots.push(join(parent, 'lib', 'node_modules'));
  const goRoot = existsSync(join(parent, 'pkg', 'tool')) && /^go/.test(readTextQuietly(join(parent, 'VERSION')) ?? '');
  const jdk = /^JAVA_VERSION=/m.test(readTextQuietly(join(parent, 'release')) ?? '');
  if (goRoot || jdk) roots.push(parent);
  const venv = readTextQuietly(join(parent, 'pyvenv.cfg'));
  if (venv !== undefined) {
    roots.push(parent);
    const home = /^home\s*=\s*(.+)$/m.exec(venv)?.[1]?.trim();
    if (home && isAbsolute(home) && existsSync(home)) roots.push(basename(real(home)) === 'bin' ? dirname(real(home)) : real(home));
  }
  return roots;
}

function readTextQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The nearest folder at or above `dir` with a package.json, never a hidden folder or above one; else `dir`. */
function packageRoot(dir: string, hidden: readonly string[]): string {
  for (let at = dir; ; at = dirname(at)) {
    if (hidden.includes(at) || dirname(at) === at) return dir;
    if (existsSync(join(at, 'package.json'))) return at;
  }
}

/** The agent's environment inside the sandbox: its own HOME, and no variable pointing into a hidden folder. */
export function sandboxEnv(env: Env, layout: SandboxLayout): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env, HOME: layout.home };
  const hidden = ['/tmp', ...layout.hidden];
  for (const name of ['TMPDIR', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME']) {
    const value = out[name];
    if (value && value !== '/tmp' && isInsideAny(resolve(value), hidden)) delete out[name];
  }
  return out;
}

/**
 * runProcess, inside the sandbox when a layout is given (else as it is): an agent's, a check's or a
 * setup command's. `extra` adds paths for this one call: a prompt file to read, an isolated config
 * folder to write.
 */
export async function runAgentProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
  layout: SandboxLayout | undefined,
  extra: { readonly readOnly?: readonly string[]; readonly writable?: readonly string[] } = {},
): Promise<ProcessResult> {
  // Loaded on first use: only a run starts agents (see probeRun).
  const { runProcess } = await import('./run-process.js');
  if (!layout) return runProcess(command, args, options);
  await mkdir(layout.home, { recursive: true, mode: 0o700 });
  const full: SandboxLayout = {
    ...layout,
    workdir: options.cwd,
    readOnly: [...layout.readOnly, ...(extra.readOnly ?? [])],
    writable: [...layout.writable, ...(extra.writable ?? [])],
  };
  const layers = await throwawayLayers(full.throwaway ?? [], { home: full.home, pathVariable: full.pathVariable });
  const sandboxed = wrapInSandbox(command, args, layers ? { ...full, writable: [...full.writable, ...layers.mounts.map((m) => m.path)] } : full);
  const wrapped = layers ? withThrowawayLayers(sandboxed, layers) : sandboxed;
  try {
    return await runProcess(wrapped.command, wrapped.args, { ...options, env: sandboxEnv(options.env, full) });
  } finally {
    if (layers) await removeTree(layers.dir).catch(() => undefined);
  }
}

/**
 * `bash -c command` (the spec author's check or setup line, as runShell runs it), inside `layout`
 * when given: a check, or a setup command run again over a candidate's tree.
 */
export function runShellIn(command: string, options: RunProcessOptions, layout: SandboxLayout | undefined): Promise<ProcessResult> {
  return runAgentProcess('bash', ['-c', command], options, layout);
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').filter(Boolean).length;
}

/** `path` is `dir` or inside it. */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function isInsideAny(path: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => isInside(path, dir));
}
