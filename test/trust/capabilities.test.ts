/**
 * Copy-on-write worktrees put bestof in a user and mount namespace of its own, where it keeps the
 * capabilities that let it mount (src/process/namespace.ts). An agent or a check run there without the
 * sandbox must not have them: with CAP_SYS_ADMIN in that namespace it could unmount its overlay, or
 * bind-mount a gutted test over a frozen one for the time of one check, which no fingerprint of the
 * file sees afterwards (src/process/run-process.ts starts them through setpriv, which drops them).
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

const TITLE = 'an agent and a check run without the sandbox have none';

describe('capabilities in the copy-on-write namespace', () => {
  if (asRoot) it.skip(`${TITLE} (skipped: as root every process has root's capabilities; \`npm run test:as-user\` runs it)`, () => {});
  else if (!userNamespaces) it.skip(`${TITLE} (skipped: this machine allows no user namespace, so there are no copy-on-write worktrees)`, () => {});
  else it(TITLE, async () => {
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
mode = "off"
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
  });
});
