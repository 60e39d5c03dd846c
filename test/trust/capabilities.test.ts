/**
 * Copy-on-write worktrees put bestof in a user and mount namespace of its own, where it keeps the
 * capabilities that let it mount (src/process/namespace.ts). An agent or a check run there without the
 * sandbox must not have them: with CAP_SYS_ADMIN in that namespace it could unmount its overlay, or
 * bind-mount a gutted test over a frozen one for the time of one check, which no fingerprint of the
 * file sees afterwards; and bwrap refuses to start with them (src/process/capabilities.ts drops them).
 *
 * Only as a user without root (`npm run test:as-user`, which CI runs): as root every process has
 * root's capabilities whatever bestof does, so there is nothing to tell apart.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const asRoot = process.getuid?.() === 0;
const userNamespaces = (() => {
  try {
    execFileSync('unshare', ['--map-current-user', '--mount', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The effective capabilities of the process that runs `grep` (a hex mask), in a line of its own. */
const CAP_EFF = 'grep "^CapEff:" /proc/self/status';

// Without the sandbox: what setpriv keeps from them. With it (`required`): bwrap, started inside the
// namespace by a user without root, refuses capabilities it was not given ("Unexpected capabilities
// but not setuid"), so the sandbox works there only because they are dropped before it starts.
const CASES = [
  ['off', 'an agent and a check run without the sandbox have none'],
  ['required', 'the sandbox starts there, and an agent and a check in it have none'],
] as const;

describe('capabilities in the copy-on-write namespace', () => {
  for (const [mode, title] of CASES) {
    if (asRoot) it.skip(`${title} (skipped: as root every process has root's capabilities; \`npm run test:as-user\` runs it)`, () => {});
    else if (!userNamespaces) it.skip(`${title} (skipped: this machine allows no user namespace, so there are no copy-on-write worktrees)`, () => {});
    else it(title, () => expectNoCapabilities(mode));
  }
});

async function expectNoCapabilities(mode: 'off' | 'required'): Promise<void> {
  const p = (project = makeProject());
  const spec = p.writeOutside(
    'spec.toml',
    specToml(
      p.repo.dir,
      `[parallel]
candidates = 1
[provider]
kind = "command"
command = "sh"
args = ["-c", ${JSON.stringify(`${CAP_EFF} > agent-caps.txt`)}]
[select]
merge = "branch"
[sandbox]
mode = "${mode}"
[git]
worktrees = "copy-on-write"
[[checks.items]]
name = "caps"
command = ${JSON.stringify(CAP_EFF)}
score = 1
`,
    ),
  );
  const result = await runCli(['run', spec, '--no-tui'], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
  const out = `${result.stdout}\n${result.stderr}`;
  expect(result.code, out).toBe(0);
  // The run did use copy-on-write worktrees (no fallback warning).
  expect(out).not.toMatch(/plain worktrees/);
  const runId = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/bestof/'], { cwd: p.repo.dir, encoding: 'utf8' }).split('/')[2] as string;
  const agentCaps = execFileSync('git', ['show', `refs/bestof/${runId}/c1/kept:agent-caps.txt`], { cwd: p.repo.dir, encoding: 'utf8' });
  expect(agentCaps.trim(), out).toBe('CapEff:\t0000000000000000');
  const checkLog = readFileSync(join(p.repo.dir, '.bestof', 'runs', runId, 'candidates', 'c1', 'iteration-1', 'checks', 'caps.log'), 'utf8');
  expect(checkLog, out).toContain('CapEff:\t0000000000000000');
}
