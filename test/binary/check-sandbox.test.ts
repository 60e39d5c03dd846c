/**
 * The checks' sandbox (`[sandbox] checks`, src/engine/sandbox/agent-sandbox.ts checkSandbox), through the
 * real binary, real git and real bubblewrap: a check, which runs what the candidate wrote, can
 * write its worktree and its fresh HOME and read git, and nothing of the user's or of the rivals'.
 * The adversary that abuses a check without it is in the trust tier (check-runs-code.sh).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project | undefined;
afterEach(() => project?.cleanup());

/** A check that passes only when it is confined: each line that would show otherwise says what it saw; it also writes outside, which the test looks for. */
function confinedCheck(userHome: string, outside: string): string {
  const script = [
    'set -e',
    // Inside the sandbox this lands in the private /tmp (the test's folders are under /tmp) and is gone after the check.
    `touch ${JSON.stringify(join(outside, 'planted-by-check'))} 2>/dev/null || true`,
    'touch written-by-check',
    'touch "$HOME/written-by-check"',
    'git status --porcelain > /dev/null',
    'common=$(git rev-parse --path-format=absolute --git-common-dir)',
    'if touch "$common/planted-by-check" 2>/dev/null; then echo "wrote the git dir"; exit 1; fi',
    `if test -e ${JSON.stringify(join(userHome, 'secret.txt'))}; then echo "sees the user's HOME"; exit 1; fi`,
    'for other in ../*/; do case "$other" in "../$BESTOF_CANDIDATE/") ;; *) echo "sees $other"; exit 1 ;; esac; done',
  ].join('\n');
  return `\n[[checks.items]]\nname = "confined"\ncommand = '''\n${script}\n'''\nscore = 10\ntimeout = "60s"\n`;
}

interface Report {
  readonly winner: string | null;
  readonly candidates: readonly { readonly id: string; readonly score: number }[];
}

async function runTwoFixers(p: Project, sandboxChecks: boolean) {
  const userHome = join(p.outside, 'home');
  mkdirSync(userHome, { recursive: true });
  writeFileSync(join(userHome, 'secret.txt'), 'a key\n');
  const agents = [1, 2]
    .map((i) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(p.writeOutside(`agent-${i}.toml`, FIX_SCRIPT))}\n`)
    .join('');
  const body = `${agents}${ADD_CHECKS}${confinedCheck(userHome, p.outside)}\n[sandbox]\nchecks = ${sandboxChecks}\n\n[select]\nmerge = "branch"\n`;
  const spec = p.writeOutside('spec.toml', specToml(p.repo.dir, body));
  const result = await runCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: { HOME: userHome } });
  const runs = join(p.repo.dir, '.bestof', 'runs');
  const report = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0] as string, 'report.json'), 'utf8')) as Report;
  return { result, report };
}

describe('the checks run in a sandbox of their own', () => {
  it("a check writes its worktree and HOME and reads git, and cannot write the git dir, see the user's HOME or the other worktree, or write outside", async () => {
    project = makeProject();
    const { result, report } = await runTwoFixers(project, true);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('sandbox.checks');
    expect(report.candidates.map((c) => [c.id, c.score])).toEqual([
      ['c1', 20],
      ['c2', 20],
    ]);
    expect(existsSync(join(project.repo.dir, '.git', 'planted-by-check'))).toBe(false);
    expect(existsSync(join(project.outside, 'planted-by-check'))).toBe(false);
  });

  it('with `[sandbox] checks = false` the same check runs as the user: it writes the git dir and fails', async () => {
    project = makeProject();
    const { result, report } = await runTwoFixers(project, false);
    expect(
      report.candidates.map((c) => [c.id, c.score]),
      result.stdout + result.stderr,
    ).toEqual([
      ['c1', 10],
      ['c2', 10],
    ]);
    expect(existsSync(join(project.repo.dir, '.git', 'planted-by-check'))).toBe(true);
    expect(existsSync(join(project.outside, 'planted-by-check'))).toBe(true);
    expect(result.stdout + result.stderr).toContain('warning: sandbox.checks = false: the checks run WITHOUT the sandbox, as you');
  });
});

describe("setup run again before the checks runs in the checks' sandbox", () => {
  // The agent changes what setup made (node_modules/dep): setup's commands run again, now over the
  // candidate's tree. Each run of the command appends a line to a log outside the worktree: the first
  // (before any agent, on base, as the user) lands; the second lands only without the sandbox.
  for (const sandboxChecks of [true, false]) {
    it(`[sandbox] checks = ${sandboxChecks}: the second run of the setup command ${sandboxChecks ? 'cannot write' : 'writes'} outside the worktree`, async () => {
      project = makeProject();
      const log = join(project.outside, 'setup-runs.log');
      const agent = `${FIX_SCRIPT}\n[[steps]]\nwrite = "node_modules/dep/index.js"\ncontent = "module.exports = 2;\\n"\n`;
      const setup = `mkdir -p node_modules/dep && echo "module.exports = 1;" > node_modules/dep/index.js && echo ran >> ${JSON.stringify(log)}`;
      const body = `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside('agent.toml', agent))}\n${ADD_CHECKS}\n[setup]\ncommands = [${JSON.stringify(setup)}]\n\n[sandbox]\nchecks = ${sandboxChecks}\n\n[select]\nmerge = "branch"\n`;
      const result = await runCli(['run', project.writeOutside('spec.toml', specToml(project.repo.dir, body))], {
        cwd: project.repo.dir,
        worktreesDir: project.worktreesDir,
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout + result.stderr).toMatch(/c1's agent changed what setup made \(node_modules\/dep.*setup ran again/);
      expect(readFileSync(log, 'utf8')).toBe(sandboxChecks ? 'ran\n' : 'ran\nran\n');
    });
  }
});

describe("a check's network", () => {
  // The test holds a port on the machine's loopback; its server says "machine". The check listens
  // on that same port (its server says "own") and reads what answers there: "own" only when it has
  // a loopback of its own. The setup command (run again before the checks: the agent changed what it
  // made) reaches the machine's server: an install downloads.
  let held: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve())));

  const ownPortCheck = (port: number): string => {
    const script = `const net = require("node:net");
const server = net.createServer((c) => c.end("own"));
server.on("error", (e) => { console.log("cannot listen on ${port}: " + e.code); process.exit(1); });
server.listen(${port}, "127.0.0.1", () => net.connect(${port}, "127.0.0.1").on("data", (d) => { console.log("answered: " + d); process.exit(String(d) === "own" ? 0 : 1); }));`;
    const reach = `require("node:net").connect(${port}, "127.0.0.1").on("data", (d) => { console.log("answered: " + d); process.exit(0); }).on("error", (e) => { console.log(e.message); process.exit(1); });`;
    return `\n[[checks.items]]\nname = "own-port"\ncommand = '''\nnode -e '${script}'\n'''\nscore = 10\ntimeout = "60s"\n\n[[checks.items]]\nname = "reach-machine"\ncommand = '''\nnode -e '${reach}'\n'''\nscore = 10\ntimeout = "60s"\n\n[[checks.items]]\nname = "setup-reached-machine"\ncommand = "grep -qx machine node_modules/dep/answer.txt"\nscore = 10\ntimeout = "60s"\n`;
  };

  for (const network of ['own', 'shared'] as const) {
    it(`check_network = "${network}": ${network === 'own' ? 'the check listens on a port the machine holds and hears only itself' : 'the port is taken, as on the machine'}; the setup run again reaches the machine either way`, async () => {
      project = makeProject();
      held = createServer((c) => c.end('machine'));
      await new Promise<void>((resolve) => held?.listen(0, '127.0.0.1', resolve));
      const port = (held.address() as AddressInfo).port;
      const agent = `${FIX_SCRIPT}\n[[steps]]\nwrite = "node_modules/dep/index.js"\ncontent = "module.exports = 2;\\n"\n`;
      const ask = `node -e 'require("node:net").connect(${port}, "127.0.0.1").on("data", (d) => { console.log(String(d)); process.exit(0); }).on("error", () => { console.log("unreached"); process.exit(0); })'`;
      const setup = `mkdir -p node_modules/dep && echo "module.exports = 1;" > node_modules/dep/index.js && ${ask} > node_modules/dep/answer.txt`;
      const body = `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside('agent.toml', agent))}\n${ADD_CHECKS}${ownPortCheck(port)}\n[setup]\ncommands = [${JSON.stringify(setup)}]\n\n[sandbox]\ncheck_network = "${network}"\n\n[select]\nmerge = "branch"\n`;
      const result = await runCli(['run', project.writeOutside('spec.toml', specToml(project.repo.dir, body)), '--json'], {
        cwd: project.repo.dir,
        worktreesDir: project.worktreesDir,
      });
      const all = result.stdout + result.stderr;
      expect(all).toMatch(/c1's agent changed what setup made \(node_modules\/dep.*setup ran again/);
      const report = JSON.parse(result.stdout) as Report;
      // own: the tests, own-port and the setup's answer (reach-machine fails); shared: all but own-port.
      expect(
        report.candidates.map((c) => [c.id, c.score]),
        all,
      ).toEqual([['c1', 30]]);
      const runs = join(project.repo.dir, '.bestof', 'runs');
      const runDir = join(runs, readdirSync(runs)[0] as string);
      const log = readFileSync(join(runDir, 'candidates', 'c1', 'iteration-1', 'checks', 'own-port.log'), 'utf8');
      expect(log).toContain(network === 'own' ? 'answered: own' : `cannot listen on ${port}: EADDRINUSE`);
      // The failed check that could not reach the machine says why, with own network only.
      const finished = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; check?: { name: string; passed: boolean; outputTail: string } });
      const reach = finished.find((e) => e.type === 'check.finished' && e.check?.name === 'reach-machine')?.check;
      expect(reach?.passed, JSON.stringify(reach)).toBe(network === 'shared');
      if (network === 'own') expect(reach?.outputTail).toMatch(/ECONNREFUSED[\s\S]*check_network = "own"/);
      else expect(reach?.outputTail).toBe('answered: machine');
    });
  }
});

describe('a check that names a path in HOME', () => {
  it("`bestof validate` warns that the checks' sandbox hides it, and says what to do", async () => {
    project = makeProject();
    const userHome = join(project.outside, 'home');
    mkdirSync(join(userHome, 'bin'), { recursive: true });
    const check = `\n[[checks.items]]\nname = "mine"\ncommand = "~/bin/check.sh"\nscore = 10\n`;
    const body = (sandboxChecks: boolean) =>
      `[provider]\nkind = "script"\nscript = ${JSON.stringify(project!.writeOutside('agent.toml', FIX_SCRIPT))}\n${ADD_CHECKS}${check}\n[sandbox]\nchecks = ${sandboxChecks}\n`;
    const validate = (sandboxChecks: boolean) =>
      runCli(['validate', project!.writeOutside(`spec-${sandboxChecks}.toml`, specToml(project!.repo.dir, body(sandboxChecks)))], {
        cwd: project!.repo.dir,
        worktreesDir: project!.worktreesDir,
        env: { HOME: userHome },
      });
    const sandboxed = await validate(true);
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    expect(sandboxed.stderr).toContain(
      `warning: checks.items[1].command names ${join(userHome, 'bin', 'check.sh')}, inside your HOME, which the checks' sandbox hides`,
    );
    const unsandboxed = await validate(false);
    expect(unsandboxed.stderr).not.toContain('inside your HOME');
  });

  it("fails with exit 127 (`~` is the check's own fresh HOME), and its output says why and what to do, in the sandbox and out of it; by its full path and with `[sandbox] checks = false` it runs", async () => {
    project = makeProject();
    const userHome = join(project.outside, 'home');
    mkdirSync(join(userHome, 'bin'), { recursive: true });
    writeFileSync(join(userHome, 'bin', 'check.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const run = async (sandboxChecks: boolean, command = '~/bin/check.sh') => {
      const check = `\n[[checks.items]]\nname = "mine"\ncommand = ${JSON.stringify(command)}\nscore = 10\n`;
      const body = `[provider]\nkind = "script"\nscript = ${JSON.stringify(project!.writeOutside('agent.toml', FIX_SCRIPT))}\n${ADD_CHECKS}${check}\n[sandbox]\nchecks = ${sandboxChecks}\n\n[select]\nmerge = "branch"\n`;
      const result = await runCli(['run', project!.writeOutside(`spec-${sandboxChecks}.toml`, specToml(project!.repo.dir, body)), '--json'], {
        cwd: project!.repo.dir,
        worktreesDir: project!.worktreesDir,
        env: { HOME: userHome },
      });
      const runs = join(project!.repo.dir, '.bestof', 'runs');
      const runId = (JSON.parse(result.stdout) as { runId: string }).runId;
      const events = readFileSync(join(runs, runId, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; check?: { name: string; passed: boolean; exitCode?: number; outputTail: string } });
      return events.find((e) => e.type === 'check.finished' && e.check?.name === 'mine')?.check;
    };
    const sandboxed = await run(true);
    expect([sandboxed?.passed, sandboxed?.exitCode], JSON.stringify(sandboxed)).toEqual([false, 127]);
    expect(sandboxed?.outputTail).toMatch(
      /No such file or directory[\s\S]*\(bestof: the shell did not find a program this check runs \(exit 127\); in the sandbox a check sees your PATH folders/,
    );
    const asUser = await run(false);
    expect([asUser?.passed, asUser?.exitCode], JSON.stringify(asUser)).toEqual([false, 127]);
    expect(asUser?.outputTail).toMatch(
      /No such file or directory[\s\S]*\(bestof: the shell did not find a program this check runs \(exit 127\); a check's HOME is a fresh folder of its own, so `~` is not your HOME/,
    );
    const byPath = await run(false, join(userHome, 'bin', 'check.sh'));
    expect([byPath?.passed, byPath?.outputTail], JSON.stringify(byPath)).toEqual([true, '']);
  });
});

describe('a check that needs the network', () => {
  it('`bestof validate` warns that the check has a network of its own, and not with check_network = "shared"', async () => {
    project = makeProject();
    const check = `\n[[checks.items]]\nname = "install-then-test"\ncommand = "npm ci && npm test"\nscore = 10\n`;
    const body = (network: string) =>
      `[provider]\nkind = "script"\nscript = ${JSON.stringify(project!.writeOutside('agent.toml', FIX_SCRIPT))}\n${ADD_CHECKS}${check}\n[sandbox]\ncheck_network = "${network}"\n`;
    const validate = (network: string) =>
      runCli(['validate', project!.writeOutside(`spec-${network}.toml`, specToml(project!.repo.dir, body(network)))], {
        cwd: project!.repo.dir,
        worktreesDir: project!.worktreesDir,
      });
    const own = await validate('own');
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toContain(
      'warning: checks.items[1].command runs `npm ci`, which needs the network: each check runs with a network of its own ([sandbox] check_network = "own")',
    );
    const shared = await validate('shared');
    expect(shared.code, shared.stderr).toBe(0);
    expect(shared.stderr).not.toContain('needs the network');
  });
});
