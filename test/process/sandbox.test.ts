/**
 * The agents' sandbox, against real bubblewrap and real processes. The layouts are the ones
 * the engine builds (agentSandbox), over a real repo with two worktrees, a run folder and a
 * user HOME. They live under /var/tmp, not /tmp: the sandbox's private /tmp would hide
 * anything under /tmp by itself, and these tests are about the hiding mounts. (The CLI tests
 * at the end run under /tmp, as every other test does.)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentGitScratchDir, agentSandbox, checkSandbox, resolveSandbox } from '../../src/engine/sandbox/agent-sandbox.js';
import { agentGitDirs } from '../../src/git/guards/agent-git-dirs.js';
import { prepareAgentGitScratch } from '../../src/git/guards/agent-git-scratch.js';
import { probeSandbox, runAgentProcess, sandboxArgs, type SandboxLayout } from '../../src/process/sandbox.js';
import { overlayAvailable } from '../../src/process/overlay-holder.js';
import { runCli, startCli } from '../helpers/cli.js';
import { processesWithArg } from '../helpers/processes.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait.js';

const probe = await probeSandbox();
if (!probe.ok) throw new Error(`these tests need a working bubblewrap: ${probe.reason}`);
const bwrap = probe.bwrap;

let base: string;
let repo: string;
let userHome: string;
const worktree = (id: string) => join(base, 'worktrees', 'r1', id);
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

beforeAll(() => {
  base = mkdtempSync('/var/tmp/bestof-sandbox-');
  repo = join(base, 'repo');
  userHome = join(base, 'home');
  mkdirSync(repo);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'config', 'user.name', 'T');
  git(repo, 'config', 'user.email', 't@example.com');
  writeFileSync(join(repo, 'README.md'), '# r\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n');
  mkdirSync(join(repo, '.bestof', 'runs', 'r1'), { recursive: true });
  writeFileSync(join(repo, '.bestof', 'runs', 'r1', 'events.jsonl'), '{"type":"run.started"}\n');
  for (const id of ['c1', 'c2']) git(repo, 'worktree', 'add', '--quiet', '-b', `bestof/r1/${id}`, worktree(id));
  mkdirSync(join(userHome, '.codex'), { recursive: true });
  writeFileSync(join(userHome, '.gitconfig'), '[user]\n\tname = Me\n');
  writeFileSync(join(userHome, '.codex', 'auth.json'), '{"token":"secret"}\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The layout of `id`'s agent with the user HOME as `userHome` and the agent's environment `env`. */
function layoutFor(
  id: string,
  role: 'candidate' | 'reviewer' = 'candidate',
  env: Record<string, string | undefined> = { PATH: process.env.PATH },
): SandboxLayout {
  vi.stubEnv('HOME', userHome);
  try {
    const layout = agentSandbox({ repoRoot: repo, sandbox: { enabled: true, bwrap } }, { id, worktree: worktree(id) }, env, role);
    if (!layout) throw new Error('no layout');
    return layout;
  } finally {
    vi.unstubAllEnvs();
  }
}

async function inSandbox(script: string, layout = layoutFor('c1')) {
  // As the engine calls an agent (src/engine/loop/agent-call.ts): its git scratch made first.
  const git = agentGitDirs(layout.workdir);
  if (git) await prepareAgentGitScratch(agentGitScratchDir({ id: basename(layout.workdir), worktree: layout.workdir }), git);
  return runAgentProcess('bash', ['-c', script], { cwd: layout.workdir, env: { PATH: process.env.PATH, HOME: userHome }, timeoutMs: 30_000 }, layout);
}

/** sha256 of every file under the given paths (folders walked), by path. */
function snapshot(...paths: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else out[relative(base, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  };
  for (const path of paths) visit(path);
  return out;
}

describe('the argv', () => {
  it('hides before it binds back, and binds a deeper path after its parent', async () => {
    const layout = layoutFor('c1');
    // Made before each call (src/engine/loop/agent-call.ts); only folders that exist are bound.
    const git = agentGitDirs(worktree('c1'));
    if (!git) throw new Error('no git dirs');
    await prepareAgentGitScratch(join(base, 'worktrees', 'r1', '.git-scratch', 'c1'), git);
    const args = sandboxArgs(layout, '/usr/bin/bash');
    const at = (flag: string, path: string) => args.findIndex((arg, i) => arg === flag && args[i + 1] === path);
    expect(args.slice(0, 7)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
    expect(args).toContain('--unshare-pid');
    expect(args).toContain('--die-with-parent');
    expect(args).not.toContain('--unshare-net');
    const hiddenRoot = at('--tmpfs', join(base, 'worktrees'));
    expect(hiddenRoot).toBeGreaterThan(0);
    expect(at('--bind', worktree('c1'))).toBeGreaterThan(hiddenRoot);
    expect(at('--ro-bind', join(worktree('c1'), '.git'))).toBeGreaterThan(at('--bind', worktree('c1')));
    // The shared git dir read-only; the git scratch writable inside the hidden worktrees root, and
    // shown in place of the objects and the worktree's admin dir; the real objects read-only where
    // the scratch's alternates name them.
    const scratch = join(base, 'worktrees', 'r1', '.git-scratch', 'c1');
    const bindFrom = (flag: string, source: string, target: string) =>
      args.findIndex((arg, i) => arg === flag && args[i + 1] === source && args[i + 2] === target);
    expect(at('--ro-bind', join(repo, '.git'))).toBeGreaterThan(0);
    expect(at('--bind', scratch)).toBeGreaterThan(hiddenRoot);
    expect(bindFrom('--bind', join(scratch, 'objects'), join(repo, '.git', 'objects'))).toBeGreaterThan(at('--ro-bind', join(repo, '.git')));
    expect(bindFrom('--bind', join(scratch, 'admin'), join(repo, '.git', 'worktrees', 'c1'))).toBeGreaterThan(at('--ro-bind', join(repo, '.git')));
    expect(bindFrom('--ro-bind', join(repo, '.git', 'objects'), join(scratch, 'shared-objects'))).toBeGreaterThan(at('--bind', scratch));
    expect(at('--tmpfs', userHome)).toBeGreaterThan(0);
    expect(at('--tmpfs', join(repo, '.bestof'))).toBeGreaterThan(0);
  });
});

describe('inside the sandbox', () => {
  it('writes its worktree, its own HOME and its own git scratch (index, objects), and nothing of the shared git dir, the other worktree, the run folder or the user HOME', async () => {
    const protectedPaths = [
      join(repo, '.git', 'config'),
      join(repo, '.git', 'hooks'),
      join(repo, '.git', 'info'),
      join(repo, '.git', 'refs'),
      join(repo, '.git', 'HEAD'),
      join(repo, '.git', 'objects'),
      join(repo, '.git', 'worktrees', 'c1'),
      worktree('c2'),
      join(repo, '.bestof'),
      userHome,
      join(repo, 'README.md'),
    ];
    const before = snapshot(...protectedPaths);
    const attempt = (what: string, command: string) => `if ( ${command} ) 2>/dev/null; then echo "${what}: yes"; else echo "${what}: no"; fi`;
    const result = await inSandbox(
      [
        attempt('worktree', 'echo work > mine.txt'),
        attempt('home', `echo x > "$HOME/notes" && test "$HOME" != ${JSON.stringify(userHome)}`),
        attempt('git add', 'git add mine.txt && git status --porcelain | grep -q "A  mine.txt"'),
        attempt('git commit', 'git -c user.name=a -c user.email=a@b commit -qm x'),
        attempt('shared objects', `echo evil > ${repo}/.git/objects/evil && rm -f ${repo}/.git/objects/evil`),
        attempt('shared objects, git', `git --git-dir=${repo}/.git hash-object -w mine.txt >/dev/null`),
        attempt(
          'a repository of its own',
          'git init -q nested && git -C nested -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git -C nested cat-file -e HEAD && rm -rf nested',
        ),
        attempt('worktree index', `cp /dev/null ${repo}/.git/worktrees/c1/index`),
        attempt('config', `echo "[core]fsmonitor=evil" >> ${repo}/.git/config`),
        attempt('hooks', `echo evil > ${repo}/.git/hooks/post-commit`),
        attempt('info', `echo evil >> ${repo}/.git/info/exclude`),
        attempt('refs', `echo 0000000000000000000000000000000000000000 > ${repo}/.git/refs/heads/evil`),
        attempt('gitfile', 'echo "gitdir: /elsewhere" > .git'),
        attempt('other worktree', `echo evil > ${worktree('c2')}/README.md`),
        attempt('other worktree visible', `test -e ${worktree('c2')}/README.md`),
        attempt('run folder', `echo forged > ${repo}/.bestof/runs/r1/events.jsonl`),
        attempt('run folder visible', `test -e ${repo}/.bestof/runs/r1/events.jsonl`),
        attempt('user home', `echo evil > ${userHome}/.gitconfig`),
        attempt('user home visible', `test -e ${userHome}/.codex/auth.json`),
        attempt('checkout', `echo evil > ${repo}/README.md`),
        attempt('tmp', 'echo t > /tmp/bestof-sandbox-private && test -e /tmp/bestof-sandbox-private'),
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
    const answers = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(': ')),
    );
    expect(answers).toEqual({
      worktree: 'yes',
      home: 'yes',
      'git add': 'yes',
      'git commit': 'no',
      // Written at the paths of the shared objects and the worktree's admin dir, into the scratch
      // shown there: the real ones are as before (the snapshot below).
      'shared objects': 'yes',
      'shared objects, git': 'yes',
      'a repository of its own': 'yes',
      'worktree index': 'yes',
      config: 'no',
      hooks: 'no',
      info: 'no',
      refs: 'no',
      gitfile: 'no',
      'other worktree': 'no',
      'other worktree visible': 'no',
      'run folder': 'no',
      'run folder visible': 'no',
      'user home': 'no',
      'user home visible': 'no',
      checkout: 'no',
      tmp: 'yes',
    });
    expect(readFileSync(join(worktree('c1'), 'mine.txt'), 'utf8')).toBe('work\n');
    expect(existsSync(join(layoutFor('c1').home, 'notes'))).toBe(true);
    expect(existsSync('/tmp/bestof-sandbox-private')).toBe(false);
    expect(snapshot(...protectedPaths)).toEqual(before);
    // What its git wrote is in the scratch (mine.txt's blob, and its index's entry), never read by bestof.
    const scratch = join(base, 'worktrees', 'r1', '.git-scratch', 'c1');
    const blob = git(worktree('c1'), 'hash-object', 'mine.txt');
    expect(existsSync(join(scratch, 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(true);
    expect(existsSync(join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(false);
    expect(git(worktree('c1'), 'status', '--porcelain')).toBe('?? mine.txt');
    git(worktree('c1'), 'reset', '--quiet', '--hard');
    rmSync(join(worktree('c1'), 'mine.txt'), { force: true });
  });

  it('a throwaway folder is writable inside, and what was written there is gone after the call (overlayfs of its own)', async () => {
    const overlay = await overlayAvailable();
    if (!overlay.ok) throw new Error(`this test needs overlayfs in a user namespace: ${overlay.reason}`);
    const made = join(worktree('c1'), 'setup-made');
    mkdirSync(join(made, '.bin'), { recursive: true });
    writeFileSync(join(made, '.bin', 'tool'), '#!/bin/sh\necho the real tool\n', { mode: 0o755 });
    const layout = { ...layoutFor('c1'), throwaway: [made] };
    try {
      const script = [
        'printf "#!/bin/sh\\necho rewritten\\n" > setup-made/.bin/tool && setup-made/.bin/tool',
        'mkdir -p setup-made/.cache && echo cached > setup-made/.cache/x && cat setup-made/.cache/x',
      ].join(' && ');
      const result = await inSandbox(script, layout);
      expect(result.stderr).toBe('');
      // Inside the call: its writes are there for it (a cache works).
      expect(result.stdout).toBe('rewritten\ncached\n');
      // After it: the folder as it was, nothing added, nothing of the layers left beside the HOME.
      expect(readFileSync(join(made, '.bin', 'tool'), 'utf8')).toBe('#!/bin/sh\necho the real tool\n');
      expect(existsSync(join(made, '.cache'))).toBe(false);
      expect(readdirSync(join(layout.home, '..')).filter((name) => name.includes('-layers-'))).toEqual([]);
      // Where overlayfs cannot be mounted (BESTOF_OVERLAY=off stands for such a machine) the call still
      // runs, the folder as the rest of the layout says: written for good, as without the layer.
      vi.stubEnv('BESTOF_OVERLAY', 'off');
      try {
        const fallback = await inSandbox(script, layout);
        expect(fallback.stdout).toBe('rewritten\ncached\n');
      } finally {
        vi.unstubAllEnvs();
      }
      expect(readFileSync(join(made, '.bin', 'tool'), 'utf8')).toContain('rewritten');
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it('ends a setsid daemon the agent started when the agent ends', async () => {
    const marker = `bestof-daemon-${process.pid}-${Date.now()}`;
    const result = await inSandbox(`setsid bash -c 'exec -a ${marker} sleep 300' </dev/null >/dev/null 2>&1 &\nsleep 0.3\necho started`);
    expect(result.stdout.trim()).toBe('started');
    await waitUntil(() => processesWithArg(marker).length === 0, 'the daemon to be gone', { attempts: 50 });
  });

  it('gives the reviewer its export folder and HOME, and no git dir', async () => {
    const layout = layoutFor('c1', 'reviewer');
    mkdirSync(layout.workdir, { recursive: true });
    try {
      const result = await inSandbox(`echo r > review.txt && pwd && test ! -e ${worktree('c1')}/README.md && echo hidden`, layout);
      expect(result.stdout.trim().split('\n')).toEqual([layout.workdir, 'hidden']);
    } finally {
      rmSync(layout.workdir, { recursive: true, force: true });
    }
  });

  it('binds back a program that lives under /tmp', async () => {
    const dir = mkdtempSync('/tmp/bestof-sandbox-bin-');
    try {
      writeFileSync(join(dir, 'agent'), '#!/bin/sh\necho "agent ran in $(pwd)"\n');
      chmodSync(join(dir, 'agent'), 0o755);
      const layout = layoutFor('c1');
      const result = await runAgentProcess(join(dir, 'agent'), [], { cwd: worktree('c1'), env: { PATH: process.env.PATH }, timeoutMs: 30_000 }, layout);
      expect(result.stdout.trim()).toBe(`agent ran in ${worktree('c1')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toolchains installed in the user HOME', () => {
  /** A file at `path` under the user HOME, made executable when it starts with #!. */
  const put = (path: string, content: string): string => {
    const full = join(userHome, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, content);
    if (content.startsWith('#!')) chmodSync(full, 0o755);
    return full;
  };
  const link = (target: string, path: string): void => {
    mkdirSync(join(userHome, path, '..'), { recursive: true });
    symlinkSync(target, join(userHome, path));
  };

  it("run in the sandbox (nvm's npm, pyenv's shims, a virtualenv, rustup's proxies, a Go root), while the rest of the HOME stays hidden", async () => {
    // A Node install (nvm): npm is a link into lib/node_modules.
    put('.nvm/versions/node/v1/lib/node_modules/npmx/cli.sh', '#!/bin/sh\necho npm-ok\n');
    link('../lib/node_modules/npmx/cli.sh', '.nvm/versions/node/v1/bin/npmx');
    // pyenv: a shim runs the manager from its root, which holds the versions.
    put('.pyenv/libexec/pyenv', '#!/bin/sh\nexec "$(dirname "$0")/../versions/9.9/bin/python-real" "$@"\n');
    put('.pyenv/versions/9.9/bin/python-real', '#!/bin/sh\necho python-ok\n');
    put('.pyenv/shims/pythonx', `#!/bin/sh\nexec "${join(userHome, '.pyenv/libexec/pyenv')}" "$@"\n`);
    // A virtualenv whose python is a link to that pyenv install.
    put('venvs/v1/pyvenv.cfg', `home = ${join(userHome, '.pyenv/versions/9.9/bin')}\n`);
    put('venvs/v1/lib/site.txt', 'site-packages\n');
    link(join(userHome, '.pyenv/versions/9.9/bin/python-real'), 'venvs/v1/bin/venvpython');
    // rustup: its proxy in ~/.cargo/bin reads the toolchains from RUSTUP_HOME.
    put('.rustup/settings.toml', 'default_toolchain = "stable"\n');
    put('.cargo/bin/cargox', '#!/bin/sh\ngrep -q stable "$RUSTUP_HOME/settings.toml" && echo cargo-ok\n');
    // A Go root unpacked in the HOME: its go reads its own tree.
    put('sdk/go1/pkg/tool/linux_amd64/compile', 'compiler\n');
    put('sdk/go1/VERSION', 'go1.99\n');
    // A project of the user's with a `bin` on PATH and a `release` folder: not an SDK, stays hidden.
    put('projects/app/release/notes.txt', 'v1\n');
    put('projects/app/.env', 'API_TOKEN=secret\n');
    put('projects/app/bin/appx', '#!/bin/sh\necho app-ok\n');
    put('projects/app/shims/shimx', '#!/bin/sh\necho shim-ok\n');
    put('sdk/go1/bin/gox', '#!/bin/sh\ntest -e "$(dirname "$0")/../pkg/tool/linux_amd64/compile" && echo go-ok\n');
    // What must stay hidden: keys, a registry token, the rest of ~/.local (npm's prefix there too).
    put('.ssh/id_ed25519', 'PRIVATE KEY\n');
    put('.cargo/credentials.toml', '[registry]\ntoken = "secret"\n');
    put('.local/share/keyrings/login.keyring', 'secret\n');
    put('.local/lib/node_modules/tool/cli.sh', '#!/bin/sh\necho tool-ok\n');
    link('../lib/node_modules/tool/cli.sh', '.local/bin/toolx');
    const path = `${[
      '.nvm/versions/node/v1/bin',
      '.pyenv/shims',
      'venvs/v1/bin',
      '.cargo/bin',
      '.local/bin',
      'sdk/go1/bin',
      'projects/app/bin',
      'projects/app/shims',
    ]
      .map((p) => join(userHome, p))
      .join(':')}:${process.env.PATH}`;
    const layout = layoutFor('c1', 'candidate', { PATH: path, RUSTUP_HOME: join(userHome, '.rustup') });
    const script = [
      'npmx',
      'pythonx',
      'venvpython',
      `cat ${join(userHome, 'venvs/v1/lib/site.txt')}`,
      'cargox',
      'toolx',
      'gox',
      'appx',
      'shimx',
      ...['.ssh/id_ed25519', '.cargo/credentials.toml', '.local/share/keyrings/login.keyring', '.gitconfig', 'projects/app/.env'].map(
        (p) => `test -e ${join(userHome, p)} && echo "visible: ${p}"`,
      ),
      'true',
    ].join('\n');
    const result = await runAgentProcess(
      'bash',
      ['-c', script],
      { cwd: worktree('c1'), env: { PATH: path, RUSTUP_HOME: join(userHome, '.rustup') }, timeoutMs: 30_000 },
      layout,
    );
    expect(result.stdout.trim().split('\n')).toEqual([
      'npm-ok',
      'python-ok',
      'python-ok',
      'site-packages',
      'cargo-ok',
      'tool-ok',
      'go-ok',
      'app-ok',
      'shim-ok',
    ]);
  });

  it("the checks' sandbox shows cargo's home read-only and its credentials.toml empty (the code a check runs is the candidate's)", async () => {
    const cargoHome = join(userHome, '.cargo');
    put('.cargo/credentials.toml', '[registry]\ntoken = "cio-secret-token"\n');
    put('.cargo/config.toml', '[net]\noffline = true\n');
    const home = join(base, 'check-home');
    mkdirSync(home, { recursive: true });
    vi.stubEnv('HOME', userHome);
    let layout: SandboxLayout | undefined;
    try {
      layout = checkSandbox(
        { repoRoot: repo, sandbox: { enabled: true, bwrap } },
        { id: 'c1', worktree: worktree('c1') },
        { PATH: process.env.PATH, CARGO_HOME: cargoHome },
        home,
      );
    } finally {
      vi.unstubAllEnvs();
    }
    if (!layout) throw new Error('no layout');
    const result = await runAgentProcess(
      'bash',
      [
        '-c',
        `cat ${cargoHome}/config.toml; echo "creds:[$(cat ${cargoHome}/credentials.toml)]"; echo x > ${cargoHome}/credentials.toml 2>/dev/null && echo wrote || echo "cannot write"`,
      ],
      { cwd: layout.workdir, env: { PATH: process.env.PATH, HOME: home }, timeoutMs: 30_000 },
      layout,
    );
    expect(result.stdout).toBe('[net]\noffline = true\ncreds:[]\ncannot write\n');
    expect(readFileSync(join(cargoHome, 'credentials.toml'), 'utf8')).toContain('cio-secret-token');
  });

  it("finds a JDK through SDKMAN's `current` link, on PATH and as JAVA_HOME: the link is made again inside the hidden HOME", async () => {
    put('.sdkman/candidates/java/17.0.9-tem/bin/javax', '#!/bin/sh\necho "java-ok $(cat "$JAVA_HOME/release")"\n');
    put('.sdkman/candidates/java/17.0.9-tem/release', 'JAVA_VERSION="17.0.9"\n');
    link('17.0.9-tem', '.sdkman/candidates/java/current');
    put('.sdkman/etc/config', 'sdkman_auto_answer=false\n');
    const javaHome = join(userHome, '.sdkman/candidates/java/current');
    const env = { PATH: `${join(javaHome, 'bin')}:${process.env.PATH}`, JAVA_HOME: javaHome };
    const layout = layoutFor('c1', 'candidate', env);
    const script = ['javax', `test -e ${join(userHome, '.sdkman/etc/config')} && echo "visible: sdkman config"`, 'true'].join('\n');
    const result = await runAgentProcess('bash', ['-c', script], { cwd: worktree('c1'), env, timeoutMs: 30_000 }, layout);
    expect(result.stdout.trim().split('\n'), result.stderr).toEqual(['java-ok JAVA_VERSION="17.0.9"']);
  });

  it('loads what the environment names in the HOME (PYTHONPATH, NODE_OPTIONS --require), read-only, and still nothing else of the HOME', async () => {
    put('pylib/mylib.py', 'NAME = "mylib-ok"\n');
    put('.config/node/preload.cjs', 'globalThis.preloaded = "preload-ok";\n');
    put('pylib/secret-beside.txt', 'in the bound folder: readable\n');
    put('projects/other/.env', 'API_TOKEN=secret\n');
    const env = {
      PATH: process.env.PATH,
      PYTHONPATH: `${join(userHome, 'pylib')}:${join(userHome, '.ssh')}`,
      NODE_OPTIONS: `--require ${join(userHome, '.config/node/preload.cjs')}`,
    };
    const layout = layoutFor('c1', 'candidate', env);
    const script = [
      'python3 -c "import mylib; print(mylib.NAME)"',
      'node -e "console.log(globalThis.preloaded)"',
      `touch ${join(userHome, 'pylib', 'planted.py')} 2>/dev/null && echo "wrote the bound folder"`,
      ...['.ssh/id_ed25519', 'projects/other/.env', '.gitconfig'].map((p) => `test -e ${join(userHome, p)} && echo "visible: ${p}"`),
      'true',
    ].join('\n');
    const result = await runAgentProcess('bash', ['-c', script], { cwd: worktree('c1'), env, timeoutMs: 30_000 }, layout);
    expect(result.stdout.trim().split('\n'), result.stderr).toEqual(['mylib-ok', 'preload-ok']);
  });
});

describe('the mode', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('required without bwrap is a plan problem with the install hint; auto warns once and says what is not protected', async () => {
    vi.stubEnv('BESTOF_BWRAP', '/nonexistent/bwrap');
    const required = await resolveSandbox('required');
    expect(required.ok).toBe(false);
    if (!required.ok) expect(required.error).toMatch(/apt-get install bubblewrap.*dnf install bubblewrap/);
    const auto = await resolveSandbox('auto');
    expect(auto.ok && auto.value.enabled).toBe(false);
    if (auto.ok) expect(auto.value.warning).toMatch(/other candidates' worktrees, the run folder, your HOME .*git config, hooks and refs.*daemons/);
    expect(await resolveSandbox('off')).toEqual({ ok: true, value: { enabled: false } });
  });
});

describe('bestof run', () => {
  let project: Project;
  afterEach(() => project?.cleanup());

  it('kill -9 of bestof leaves no agent process alive', async () => {
    project = makeProject();
    const marker = `bestof-agent-${process.pid}-${Date.now()}`;
    const agent = project.writeOutside(
      'sleepy-agent',
      `#!/usr/bin/env bash\nsetsid bash -c 'exec -a ${marker}-daemon sleep 300' </dev/null >/dev/null 2>&1 &\necho "$$ $!" > agent.pids\nexec -a ${marker}-agent sleep 300\n`,
    );
    chmodSync(agent, 0o755);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[provider]\nkind = "command"\ncommand = ${JSON.stringify(agent)}\n[parallel]\ncandidates = 1\n${ADD_CHECKS}`),
    );
    const { child, done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    await waitUntil(() => processesWithArg(marker).length === 2, 'the agent and its daemon', { ended: () => ended });
    const runId = readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string;
    expect(readFileSync(join(project.worktreesDir, runId, 'c1', 'agent.pids'), 'utf8')).toMatch(/^\d+ \d+\n$/);
    child.kill('SIGKILL');
    await done;
    await waitUntil(() => processesWithArg(marker).length === 0, 'every agent process to be gone', { attempts: 100 });
  });

  it('mode = "required" without bwrap exits 2 with the install hint and creates nothing', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "required"\n${ADD_CHECKS}`),
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { BESTOF_BWRAP: '/nonexistent/bwrap' } });
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toContain('sandbox.mode');
    expect(result.stdout + result.stderr).toContain('apt-get install bubblewrap');
    expect(existsSync(join(project.repo.dir, '.bestof'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
    expect(project.repo.git('branch', '--list', 'bestof/*')).toBe('');
  });

  it('mode = "auto" without bwrap runs, with one warning line', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[parallel]\ncandidates = 1\n[select]\nmerge = "branch"\n${ADD_CHECKS}`,
      ),
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { BESTOF_BWRAP: '/nonexistent/bwrap' } });
    expect(result.code).toBe(0);
    const output = result.stdout + result.stderr;
    expect(output.match(/agents run WITHOUT a sandbox/g)).toHaveLength(1);
    expect(output).toContain('apt-get install bubblewrap');
  });
});
