/**
 * Which sandbox each agent call and each check gets. The planner asks once per run whether
 * bubblewrap works (`[sandbox] mode`: auto, required, off); then every agent call of a candidate
 * or its reviewer gets a SandboxLayout (see src/process/sandbox.ts): its own folder and HOME
 * writable, the worktrees root, the run folder and the user's HOME hidden, the shared git dir
 * read-only (objects, index and HEAD included: the agent's git writes a scratch store and admin dir
 * of its own, shown in their place, ../../git/guards/agent-git-scratch.ts). The checks (unless `[sandbox] checks = false`) get the
 * same view with every git dir read-only and no scratch (checkSandbox).
 *
 * The HOMEs live next to the worktrees, outside the run folder and every worktree:
 * `<worktrees root>/<run>/.homes/<candidate>` (the reviewer's: `<candidate>-review`); the
 * reviewer's clean exports in `<worktrees root>/<run>/.review/`; the agents' git scratches in
 * `<worktrees root>/<run>/.git-scratch/<candidate>`. All are removed at the end of the run (the
 * HOMEs hold copies of the CLIs' logins).
 */
import type { Env } from '../../env.js';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { agentGitDirs } from '../../git/guards/agent-git-dirs.js';
import { agentGitScratchPaths } from '../../git/guards/agent-git-scratch.js';
import { BWRAP_INSTALL_HINT, isInside, probeSandbox, type SandboxLayout } from '../../process/sandbox.js';
import { err, ok, type Result } from '../../result.js';
import type { Spec } from '../../spec/schema.js';
import { envCodePaths } from './env-code-paths.js';
import { linkedTargets } from '../workspace/setup-link.js';
import { toolchainHomes } from './toolchain-homes.js';
import { removeTree } from '../../owned-tree.js';

export interface SandboxPlan {
  readonly enabled: boolean;
  /** The bwrap that works, when enabled. */
  readonly bwrap?: string;
  /** `auto` without a working bwrap: the one line that says what is not protected. */
  readonly warning?: string;
}

/** `[sandbox] mode` against what this machine can do; `required` without bwrap is a plan problem. */
export async function resolveSandbox(mode: Spec['sandbox']['mode']): Promise<Result<SandboxPlan>> {
  if (mode === 'off') return ok({ enabled: false });
  const probe = await probeSandbox();
  if (probe.ok) return ok({ enabled: true, bwrap: probe.bwrap });
  if (mode === 'required') {
    return err(`sandbox.mode: "required", but ${probe.reason}; ${BWRAP_INSTALL_HINT}, or set mode = "auto" to run unprotected`);
  }
  return ok({
    enabled: false,
    warning: `agents run WITHOUT a sandbox (${probe.reason}): they can write other candidates' worktrees, the run folder, your HOME and the shared git config, hooks and refs, and leave daemons running after they end; ${BWRAP_INSTALL_HINT}`,
  });
}

interface SandboxRun {
  readonly repoRoot: string;
  readonly sandbox: SandboxPlan;
  /** `[setup] link`: what the worktree's links point at is bound read-only (../workspace/setup-link.ts); `[sandbox] checks`. */
  readonly spec?: {
    readonly setup: { readonly link: readonly string[] };
    readonly sandbox?: { readonly checks?: boolean; readonly check_network?: 'own' | 'shared' };
    /** The hidden checks' folders (`hidden`, made absolute by ../plan/hidden-checks.ts): no agent may read them. */
    readonly checks?: { readonly items: readonly { readonly hidden?: string | undefined }[] };
  };
  /** More absolute folders no sandboxed process sees: `[sandbox] hide`, the oracle checks' folders (RunPlan.hide). */
  readonly hide?: readonly string[];
}

interface SandboxCandidate {
  readonly id: string;
  readonly worktree: string;
}

/**
 * The folders of a run's agents in `<worktrees root>/<run>/`: their HOMEs (copies of their logins),
 * the checks' HOMEs and the reviewers' exports. Removed as the run ends (removeAgentHomes), by
 * `bestof clean` after a run that could not (src/engine/cleanup/run-folders.ts).
 */
export const AGENT_FOLDERS = { homes: '.homes', review: '.review', gitScratch: '.git-scratch' } as const;

/** `<worktrees root>/<run>`: the folder that holds the run's worktrees, HOMEs and exports. */
const runWorktreesDir = (candidate: Pick<SandboxCandidate, 'worktree'>): string => dirname(candidate.worktree);

export function agentHome(candidate: SandboxCandidate, role: 'candidate' | 'reviewer'): string {
  return join(runWorktreesDir(candidate), AGENT_FOLDERS.homes, role === 'reviewer' ? `${candidate.id}-review` : candidate.id);
}

/**
 * Where a scoring's fresh, empty HOME for the checks is made (src/engine/scoring/score.ts): beside the
 * agents' HOMEs, so that a run killed during its checks leaves it where the run's own end and
 * `bestof clean` remove them, not in the system's temp folder.
 */
export function checkHomesDir(worktree: string): string {
  return join(runWorktreesDir({ worktree }), AGENT_FOLDERS.homes);
}

/** The candidate agent's git scratch (../../git/guards/agent-git-scratch.ts): made anew for each of its calls. */
export function agentGitScratchDir(candidate: SandboxCandidate): string {
  return join(runWorktreesDir(candidate), AGENT_FOLDERS.gitScratch, candidate.id);
}

/** Where the reviewer's clean export of this candidate's commit goes (removed after each review). */
export function reviewExportDir(candidate: SandboxCandidate): string {
  return join(runWorktreesDir(candidate), AGENT_FOLDERS.review, candidate.id);
}

/** The user's HOME, which every sandbox hides (an empty HOME counts as unset). */
function userHome(env: Env = process.env): string {
  return env.HOME || homedir();
}

/**
 * What no sandboxed process of a run sees: the worktrees root (the other worktrees, every HOME), the
 * run folder, the user's HOME, and the hidden checks' folders (the checks too: the hidden files they
 * need are laid into the scoring tree, src/checks/hidden-files.ts, and the candidate's code they run
 * must not find the other hidden checks' files at their source).
 */
function hiddenFolders(run: SandboxRun, candidate: SandboxCandidate): string[] {
  const home = userHome();
  const hiddenChecks = (run.spec?.checks?.items ?? []).flatMap((item) => (item.hidden !== undefined && isAbsolute(item.hidden) ? [item.hidden] : []));
  return [dirname(runWorktreesDir(candidate)), join(run.repoRoot, '.bestof'), ...(home !== '/' ? [home] : []), ...hiddenChecks, ...(run.hide ?? [])];
}

/** What `env` tells a program to load code from inside the user's HOME (./env-code-paths.ts): bound back read-only. */
function codePathsInHome(env: Env): string[] {
  return envCodePaths(env, userHome());
}

/**
 * The sandbox of one agent call, or undefined when the run is not sandboxed. The candidate
 * writes its worktree (whose `.git` file stays read-only) and its git scratch (an object store
 * and an admin dir of its own, shown where the shared objects and the worktree's admin dir are:
 * ../../git/guards/agent-git-scratch.ts, prepared before each call); every git dir of the user's is
 * read-only: the objects, the worktree's index and HEAD, the refs. So the agent's own `git commit`
 * fails: bestof commits its work after the call. The reviewer gets no git dir: it works in a clean
 * export (the runner sets its folder).
 */
export function agentSandbox(run: SandboxRun, candidate: SandboxCandidate, env: Env, role: 'candidate' | 'reviewer' = 'candidate'): SandboxLayout | undefined {
  if (!run.sandbox.enabled || run.sandbox.bwrap === undefined) return undefined;
  const base = { bwrap: run.sandbox.bwrap, home: agentHome(candidate, role), hidden: hiddenFolders(run, candidate), pathVariable: env.PATH };
  if (role === 'reviewer') return { ...base, workdir: reviewExportDir(candidate), writable: [], readOnly: codePathsInHome(env) };
  const git = agentGitDirs(candidate.worktree);
  const scratch = agentGitScratchPaths(agentGitScratchDir(candidate));
  return {
    ...base,
    workdir: candidate.worktree,
    writable: git ? [scratch.dir] : [],
    redirected: git
      ? [
          { source: scratch.objects, target: join(git.commonDir, 'objects'), writable: true },
          { source: scratch.admin, target: git.adminDir, writable: true },
          { source: join(git.commonDir, 'objects'), target: scratch.sharedObjects, writable: false },
        ]
      : [],
    readOnly: [
      join(candidate.worktree, '.git'),
      ...(git ? [git.commonDir, git.adminDir] : []),
      ...linkedTargets(run.repoRoot, run.spec?.setup.link ?? []),
      // rustup's toolchains, for its proxies on PATH (../plan/candidate-env.ts sets RUSTUP_HOME).
      ...(env.RUSTUP_HOME ? [env.RUSTUP_HOME] : []),
      ...codePathsInHome(env),
    ],
  };
}

/** The toolchain homes the checks' environment names (../plan/candidate-env.ts checkEnv): the checks read them, never write them. */
const CHECK_TOOLCHAIN_VARS = ['RUSTUP_HOME', 'CARGO_HOME', 'GOPATH'] as const;

/**
 * Files of a toolchain home that hold the user's logins (cargo's registry token, and the names other
 * tools use for theirs): shown empty to the checks, which read the rest of the home. The code a check
 * runs is the candidate's, and what it reads it could leave for its agent, which has a network.
 */
const CREDENTIAL_FILES = ['credentials.toml', 'credentials', '.credentials.toml', '.npmrc', '.pypirc', '.netrc', '.git-credentials', 'auth.json'] as const;

/**
 * The sandbox of a candidate's checks (and of the `[setup]` commands run again before them), or
 * undefined when the run is not sandboxed or `[sandbox] checks = false`. The checks run what the
 * candidate wrote (its tests import its code): without this, that code runs as the user and can
 * write the other worktrees, the run folder, the refs and hooks, and read the user's keys.
 * Writable: the worktree and the scoring's fresh HOME (`home`), and a private /tmp. Read-only: the
 * git dirs (a check may run `git status` or `git diff`, never move a ref or write the index), the
 * setup links' targets, the toolchain homes the checks' environment names (a cache a check would
 * write there: setup fills it, or `[sandbox] checks = false`), their credential files shown empty
 * (CREDENTIAL_FILES). Hidden: what the agents' sandbox hides.
 * The network: one of its own (`[sandbox] check_network`, "own" by default), so that no process
 * outside (a rival's agent, still running, or its check) can take or answer on the ports the
 * check's tests listen on, nor meet a port two candidates' tests both use.
 */
export function checkSandbox(run: SandboxRun, candidate: SandboxCandidate, env: Env, home: string): SandboxLayout | undefined {
  if (!run.sandbox.enabled || run.sandbox.bwrap === undefined || run.spec?.sandbox?.checks === false) return undefined;
  const git = agentGitDirs(candidate.worktree);
  return {
    bwrap: run.sandbox.bwrap,
    workdir: candidate.worktree,
    home,
    hidden: hiddenFolders(run, candidate),
    pathVariable: env.PATH,
    ownNetwork: run.spec?.sandbox?.check_network !== 'shared',
    writable: [],
    readOnly: [
      join(candidate.worktree, '.git'),
      ...(git ? [git.commonDir] : []),
      ...linkedTargets(run.repoRoot, run.spec?.setup.link ?? []),
      ...CHECK_TOOLCHAIN_VARS.flatMap((name) => (env[name] ? [env[name]] : [])),
      ...codePathsInHome(env),
    ],
    // Writable to the checks, what they write there thrown away after each (nyc's, babel's caches);
    // the scoring adds what `[setup]` made (../scoring/score.ts).
    throwaway: linkedTargets(run.repoRoot, run.spec?.setup.link ?? []),
    masked: CHECK_TOOLCHAIN_VARS.flatMap((name) => {
      const home = env[name];
      return home ? CREDENTIAL_FILES.map((file) => join(home, file)) : [];
    }),
  };
}

/**
 * Warnings for the checks and setup commands that name a path in the user's HOME (`~/bin/check.sh`,
 * `/home/me/venv/bin/python`), which the checks' sandbox hides: such a check would fail there while
 * it passes by hand. A path under a PATH folder, a toolchain home or a path the environment loads
 * code from (./env-code-paths.ts) is seen (bound back read-only) and not named; nor is anything
 * outside HOME (a path in /tmp may well be a check's own scratch file, which the private /tmp
 * holds). A heuristic on shell text: a warning, never a refusal.
 */
export function hiddenPathWarnings(
  spec: { readonly checks: { readonly items: readonly { readonly command: string }[] }; readonly setup: { readonly commands: readonly string[] } },
  env: Env,
): string[] {
  const home = userHome(env);
  if (home === '/') return [];
  // What checkEnv gives the checks: the toolchain homes it names, set or found in the HOME.
  const homes = { ...env, ...toolchainHomes(CHECK_TOOLCHAIN_VARS, env) };
  const seen = [...(env.PATH ?? '').split(delimiter), ...CHECK_TOOLCHAIN_VARS.map((name) => homes[name] ?? ''), ...envCodePaths(env, home)].filter((dir) =>
    isAbsolute(dir),
  );
  const named = (command: string): string[] =>
    [...command.matchAll(/(?:^|[\s=:'"(])(~(?=\/)|\/)([^\s'";|&<>()]*)/g)]
      .map((m) => (m[1] === '~' ? `${home}${m[2]}` : `/${m[2]}`))
      .filter((path) => isInside(path, home) && path !== home && !seen.some((dir) => isInside(path, dir)));
  const lines = [
    ...spec.checks.items.map((item, i) => [`checks.items[${i}].command`, item.command] as const),
    ...spec.setup.commands.map((c, i) => [`setup.commands[${i}]`, c] as const),
  ];
  return lines.flatMap(([key, command]) => {
    const paths = [...new Set(named(command))];
    return paths.length === 0
      ? []
      : [
          `${key} names ${paths.join(', ')}, inside your HOME, which the checks' sandbox hides: the command would not find ${paths.length === 1 ? 'it' : 'them'} there; put what it needs in the repo (the check runs in the candidate's worktree) or outside your HOME, or name it by its full path and set [sandbox] checks = false (a check's \`~\` is a fresh HOME of its own, with or without the sandbox)`,
        ];
  });
}

/** Commands that download (an install, a fetch): they need a route out. */
const DOWNLOADS =
  /(?<![\w./-])(?:(?:npm|pnpm)\s+(?:ci|install|i|add)|yarn\s+(?:install|add)|pip3?\s+install|python3?\s+-m\s+pip\s+install|poetry\s+install|uv\s+(?:sync|pip\s+install)|bundle\s+install|cargo\s+(?:fetch|install|update)|go\s+(?:mod\s+download|get|install)|git\s+(?:clone|fetch|pull|ls-remote))(?![\w-])/g;
/** A URL to a host other than the loopback. */
const REMOTE_URL = /\b(?:https?|ftp):\/\/(?!localhost\b|127\.0\.0\.1\b|\[::1\])([\w.-]+)/g;
/** A server of the machine on a fixed port (the candidate's own `$PORT` is not a number in the text). */
const MACHINE_PORT = /(?<![\w.-])(?:localhost|127\.0\.0\.1|\[::1\]):\d{2,5}(?!\d)/g;

/**
 * Warnings for the checks that need more than the network of their own they get
 * (`[sandbox] check_network = "own"`): a download (`npm ci`, `pip install`, `git fetch`, a URL of
 * another host), which has no route out there, or a server of the machine on a fixed port
 * (`localhost:5432`), which their loopback does not hold. A heuristic on shell text: a warning,
 * never a refusal. Setup commands are not named: those run again before the checks keep the
 * machine's network.
 */
export function networkWarnings(spec: { readonly checks: { readonly items: readonly { readonly command: string }[] } }): string[] {
  const tail = 'each check runs with a network of its own ([sandbox] check_network = "own")';
  return spec.checks.items.flatMap((item, i) => {
    const key = `checks.items[${i}].command`;
    const downloads = [...new Set([...item.command.matchAll(DOWNLOADS)].map((m) => m[0].replace(/\s+/g, ' ')))];
    const hosts = [...new Set([...item.command.matchAll(REMOTE_URL)].map((m) => m[1] ?? ''))];
    const ports = [...new Set([...item.command.matchAll(MACHINE_PORT)].map((m) => m[0]))];
    const out: string[] = [];
    if (downloads.length > 0 || hosts.length > 0) {
      const what = [...downloads.map((d) => `runs \`${d}\``), ...hosts.map((h) => `reaches ${h}`)].join(' and ');
      out.push(
        `${key} ${what}, which needs the network: ${tail}, with no route out; run installs in [setup] commands (they keep your machine's network), or set [sandbox] check_network = "shared"`,
      );
    }
    if (ports.length > 0) {
      out.push(
        `${key} talks to ${ports.join(', ')}: ${tail}, whose loopback holds only what the check itself starts; if that is a server of your machine (a database), set [sandbox] check_network = "shared"`,
      );
    }
    return out;
  });
}

/** Removes the run's agent HOMEs and review exports (copies of logins must not outlive the run). */
export async function removeAgentHomes(run: { readonly candidates: readonly SandboxCandidate[] }): Promise<void> {
  const dirs = new Set(run.candidates.map(runWorktreesDir));
  for (const dir of dirs) {
    for (const folder of Object.values(AGENT_FOLDERS)) await removeTree(join(dir, folder)).catch(() => undefined);
  }
}
