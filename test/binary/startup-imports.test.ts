/**
 * What the quick commands load: the real binary with scripts/list-modules.mjs preloaded
 * (NODE_OPTIONS=--import), which writes every module the process loaded to BESTOF_MODULE_LIST
 * when it exits, started from tsc's dist/cli/main.js rather than the bundle bin/bestof.js starts
 * (the bundle keeps each dynamic import() a chunk of its own, so what is lazy here is lazy there;
 * here the modules have their own names). `ls`, `show` and `validate` must not pay at every start for the Ink UI (ink,
 * react), nor for the providers a spec does not name;
 * `validate` not for git nor the planner when the spec does not load, nor for what only some specs
 * need (frozen globs, merge = "pr", a detached HEAD). scripts/bench-startup.mjs measures the time;
 * nothing here does.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { loadAllDefinitions } from '../../src/providers/definitions.js';

const LIST_MODULES = pathToFileURL(join(PROJECT_ROOT, 'scripts', 'list-modules.mjs')).href;
const DIST = pathToFileURL(join(PROJECT_ROOT, 'dist')).href;

interface Loaded {
  readonly result: CliResult;
  /** Our own compiled modules, relative to dist/ ("cli/main.js"). */
  readonly own: readonly string[];
  /** Packages from node_modules ("zod", "smol-toml"). */
  readonly packages: ReadonlySet<string>;
}

let project: Project;
let runId: string;
let listings = 0;

/** Runs `bestof <args>` in the project's repo and reads back the modules it loaded. */
async function load(args: string[], env: Record<string, string> = {}): Promise<Loaded> {
  const out = join(project.outside, `modules-${++listings}.json`);
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${LIST_MODULES}`].filter(Boolean).join(' ');
  const result = await runCli(args, {
    cwd: project.repo.dir,
    worktreesDir: project.worktreesDir,
    env: { ...env, BESTOF_MODULE_LIST: out, NODE_OPTIONS: nodeOptions },
    entry: join(PROJECT_ROOT, 'dist', 'cli', 'main.js'),
  });
  const { modules } = JSON.parse(readFileSync(out, 'utf8')) as { modules: string[] };
  const own = modules.filter((url) => url.startsWith(`${DIST}/`)).map((url) => url.slice(DIST.length + 1));
  const packages = new Set<string>();
  for (const url of modules) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [scope, name] = url.slice(at + '/node_modules/'.length).split('/');
    packages.add(scope?.startsWith('@') ? `${scope}/${name}` : (scope as string));
  }
  return { result, own, packages };
}

const notLoaded = (loaded: Loaded, names: readonly string[]) => names.filter((name) => loaded.packages.has(name));
/** Loaded only for merge = "pr" (origin, gh), a detached HEAD (a branch to suggest), or a spec not named (the repo's root, up to which bestof.toml is looked for). */
const PR_OR_DETACHED_OR_SEARCH = ['git/history/remote.js', 'git/history/branch-hints.js', 'git/running/top-level.js'];
/** Every provider's definition, loaded here in the test's own process (for their install hints). */
const PROVIDERS = await loadAllDefinitions();
const PROVIDER_MODULES = [
  'providers/claude.js',
  'providers/codex.js',
  'providers/gemini.js',
  'providers/shannon/definition.js',
  'providers/command.js',
  'providers/script.js',
];

beforeAll(async () => {
  project = makeProject();
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const spec = project.writeOutside(
    'run.toml',
    specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`),
  );
  const run = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  expect(run.code).toBe(0);
  runId = (JSON.parse(run.stdout) as { runId: string }).runId;
});

afterAll(() => project?.cleanup());

describe('what the quick commands load', () => {
  it('ls: no UI, and not the event log reader (it reads the snapshots)', async () => {
    const ls = await load(['ls']);
    expect(ls.result.code).toBe(0);
    expect(ls.result.stdout).toMatch(new RegExp(`^${runId}\\s+t\\s+winner`));
    // The listing is real: the command and git's runner were loaded.
    expect(ls.own).toContain('cli/commands/ls.js');
    expect(ls.own).toContain('git/running/spawn-git.js');
    expect(notLoaded(ls, ['ink', 'react'])).toEqual([]);
    expect(ls.own).not.toContain('report/event-log.js');
  });

  it('show, not on a terminal: the Markdown report without the UI or the merge code', async () => {
    const show = await load(['show', runId]);
    expect(show.result.code).toBe(0);
    expect(show.result.stdout).toContain(`# bestof run ${runId}`);
    expect(show.own).toContain('report/report.js');
    expect(notLoaded(show, ['ink', 'react'])).toEqual([]);
    expect(show.own.filter((m) => m === 'cli/interactive-ui.js' || m.startsWith('ui/') || m === 'engine/merge/merge-policy.js')).toEqual([]);
  });

  it('validate of a script-agent spec: no UI, and of the providers only the script one', async () => {
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside('script.toml', specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}`));
    // The sandbox probe (mode "auto", the default) starts a process, also on a machine without bwrap: a stand-in that works.
    const bwrap = project.writeOutside('bwrap', '#!/bin/sh\nexit 0\n');
    chmodSync(bwrap, 0o755);
    const validate = await load(['validate', spec], { BESTOF_BWRAP: bwrap });
    expect(validate.result.stdout).toBe('ok\n');
    expect(validate.result.code).toBe(0);
    expect(validate.packages.has('zod')).toBe(true);
    expect(notLoaded(validate, ['ink', 'react'])).toEqual([]);
    expect(validate.own.filter((m) => PROVIDER_MODULES.includes(m))).toEqual(['providers/script.js']);
    // The spec's globs were matched against base: the frozen-files code was loaded for them.
    expect(validate.own).toContain('checks/frozen.js');
    // What only a pull request (merge = "pr"), a detached HEAD or a spec found by searching needs.
    expect(validate.own.filter((m) => PR_OR_DETACHED_OR_SEARCH.includes(m))).toEqual([]);
  });

  it("validate of a spec without frozen or editable globs: the frozen-files code only for the test runners' own files, kept whatever the spec says", async () => {
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'no-globs.toml',
      specToml(
        project.repo.dir,
        `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n\n[[checks.items]]\nname = "tests"\ncommand = "true"\n\n[select]\nmerge = "branch"\n`,
      ),
    );
    const validate = await load(['validate', spec]);
    expect(validate.result.stdout).toBe('ok\n');
    expect(validate.result.code).toBe(0);
    // The plan was made (the repo opened, the agent prepared).
    expect(validate.own).toContain('engine/plan/plan.js');
    expect(validate.own).toContain('providers/script.js');
    // Every plan reads which kinds of project base holds, for the runners' files it keeps as in base
    // (src/checks/runner-defaults.ts): that matches globs, so the frozen-files code loads for it.
    expect(validate.own).toContain('checks/runner-defaults.js');
    expect(validate.own.filter((m) => PR_OR_DETACHED_OR_SEARCH.includes(m))).toEqual([]);
  });

  it('validate of a spec that does not load: neither the planner nor the git runner, which only a loaded spec needs', async () => {
    const spec = project.writeOutside('bad.toml', specToml(project.repo.dir, '[loop]\nmax_iterations = "many"\n'));
    const validate = await load(['validate', spec]);
    expect(validate.result.code).toBe(2);
    expect(validate.result.stderr).toContain('loop.max_iterations');
    expect(validate.result.stdout).toBe('');
    // The spec was read and judged by its schema.
    expect(validate.packages.has('zod')).toBe(true);
    expect(validate.own).toContain('spec/load.js');
    expect(validate.own.filter((m) => m === 'cli/plan-or-explain.js' || m === 'engine/plan/plan.js' || PROVIDER_MODULES.includes(m))).toEqual([]);
    expect(notLoaded(validate, ['ink', 'react'])).toEqual([]);
    expect(validate.own).not.toContain('git/running/spawn-git.js');
  });

  it('validate loads the providers of the entries the candidates are given, not those of the entries past `candidates`', async () => {
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const fakeClaude = join(PROJECT_ROOT, 'test/fixtures/providers/bin/claude');
    const spec = project.writeOutside(
      'first-entry.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n\n[[parallel.providers]]\nkind = "claude"\ncommand = ${JSON.stringify(fakeClaude)}\n${ADD_CHECKS}`,
      ),
    );
    const validate = await load(['validate', spec]);
    expect(validate.result.stdout).toBe('ok\n');
    expect(validate.own.filter((m) => PROVIDER_MODULES.includes(m))).toEqual(['providers/script.js']);
  });

  it('validate of a claude spec loads the claude provider and no other', async () => {
    const fakeClaude = join(PROJECT_ROOT, 'test/fixtures/providers/bin/claude');
    const spec = project.writeOutside(
      'claude.toml',
      specToml(
        project.repo.dir,
        `[provider]\nkind = "claude"\ncommand = ${JSON.stringify(fakeClaude)}\nenv = { ANTHROPIC_API_KEY = "sk-test" }\n${ADD_CHECKS}`,
      ),
    );
    const validate = await load(['validate', spec]);
    expect(validate.result.stdout).toBe('ok\n');
    expect(notLoaded(validate, ['ink', 'react'])).toEqual([]);
    expect(validate.own.filter((m) => PROVIDER_MODULES.includes(m))).toEqual(['providers/claude.js']);
  });

  it("a command agent named like a known CLI still gets that CLI's install hint, though only the providers it names are loaded", async () => {
    const spec = project.writeOutside(
      'command.toml',
      specToml(project.repo.dir, `[provider]\nkind = "command"\ncommand = "gemini"\nenv = { PATH = ${JSON.stringify(project.outside)} }\n${ADD_CHECKS}`),
    );
    const validate = await load(['validate', spec]);
    expect(validate.result.code).toBe(2);
    expect(validate.result.stderr).toContain(`provider.command: "gemini" was not found on PATH; ${PROVIDERS.gemini?.installHint}`);
    expect(validate.own.filter((m) => PROVIDER_MODULES.includes(m)).sort()).toEqual(['providers/command.js', 'providers/gemini.js']);
  });

  it("a run of a script spec creates its providers without loading the other kinds (the CLIs' parsers, tmux)", async () => {
    const fix = project.writeOutside('fix-run.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'run-script.toml',
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`),
    );
    const run = await load(['run', spec, '--no-tui']);
    expect(run.result.code).toBe(0);
    expect(run.result.stdout + run.result.stderr).toContain('won');
    expect(run.own).toContain('engine/run/stages/candidates.js');
    expect(run.own.filter((m) => PROVIDER_MODULES.includes(m) || m.startsWith('process/tmux'))).toEqual(['providers/script.js']);
  });
});
