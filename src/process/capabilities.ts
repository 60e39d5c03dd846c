/**
 * The capabilities of bestof's own user and mount namespace (copy-on-write worktrees,
 * ./namespace.ts) kept from every program bestof starts there.
 *
 * bestof keeps them to mount its overlays (`mount -t overlay`, run with execFile, not through
 * here), and they are ambient: every process it starts would inherit them. An agent or a check run
 * without the sandbox could then unmount its overlay, or bind-mount a gutted test over a frozen one
 * for the time of one check, which no fingerprint of the file sees afterwards. And bwrap, run by a
 * user without root, refuses to start with capabilities it was not given by a setuid bit
 * ("Unexpected capabilities but not setuid"). So there every program goes through setpriv, which
 * drops them: runProcess's spawns (agents, checks, setup, reviewers, voters, bwrap, the tmux server
 * of `shannon`, whose panes inherit none) and the sandbox's probe. (As root, every process has
 * root's capabilities whatever this does, and bwrap takes them as root's.) Outside the namespace:
 * the program as it is.
 */
import { findOnPathSync } from './find-on-path.js';
import { insideMountNamespace } from './namespace.js';

/**
 * `file args` to run without the namespace's capabilities. A bare program name is looked up on
 * `pathVariable` (the child's PATH) first, so that a missing one is still "not found" (undefined),
 * not setpriv's exit 127.
 */
export function withoutCapabilities(file: string, args: readonly string[], pathVariable: string | undefined): { file: string; args: string[] } | undefined {
  if (!insideMountNamespace()) return { file, args: [...args] };
  setpriv ??= findOnPathSync('setpriv') ?? null;
  // The namespace is entered through setpriv (./namespace.ts): it is there.
  if (setpriv === null) return { file, args: [...args] };
  const program = file.includes('/') ? file : findOnPathSync(file, pathVariable ?? '');
  if (program === undefined) return undefined;
  return { file: setpriv, args: ['--inh-caps=-all', '--ambient-caps=-all', '--', program, ...args] };
}

let setpriv: string | null | undefined;
