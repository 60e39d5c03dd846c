/**
 * The plain path never loads React or Ink: the CLI reaches the Ink UI only through a dynamic
 * import(), taken only on an interactive terminal. Checked on the static import graph of the
 * source, from the CLI's entry point.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseWinner, wantsInteractiveUi } from '../../src/cli/interactive-ui.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { readEvents } from '../../src/report/event-log.js';
import { finishedRun } from './scripted-runs.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

const SRC = join(PROJECT_ROOT, 'src');

/** Static imports only: `import ... from`, `export ... from`, never `import(...)`. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)]
    .filter((m) => !/^\s*import\s+type\s/.test(m[0]) && !/^\s*export\s+type\s/.test(m[0]))
    .map((m) => m[1] as string);
}

function resolveSource(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`].find((path) => existsSync(path));
}

/** Every package a module loads before any dynamic import runs. */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of staticImports(file)) {
      const local = resolveSource(file, specifier);
      if (local) visit(local);
      else if (!specifier.startsWith('.')) packages.add(specifier);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('choosing the front end', () => {
  it('`bestof run` and `bestof show` load neither React nor Ink unless they start the Ink UI', () => {
    for (const command of ['run', 'show']) {
      const { files, packages } = staticClosure(join(SRC, 'cli', 'commands', `${command}.ts`));
      expect([...packages].filter((p) => /^(ink|react)(\/|$)/.test(p))).toEqual([]);
      expect([...files].filter((f) => f.endsWith('.tsx'))).toEqual([]);
    }
  });

  it('the CLI reaches the Ink UI through import() only', () => {
    const loader = readFileSync(join(SRC, 'ui', 'load-ink-ui.ts'), 'utf8');
    expect(loader).toContain("import('./start-ui.js')");
    expect(staticImports(join(SRC, 'ui', 'load-ink-ui.ts'))).toEqual([]);
    expect(readFileSync(join(SRC, 'cli', 'interactive-ui.ts'), 'utf8')).toContain('await loadInkUi()');
  });

  describe('wantsInteractiveUi', () => {
    const saved = { stdout: process.stdout.isTTY, stdin: process.stdin.isTTY };
    const tty = (value: boolean): void => {
      process.stdout.isTTY = value;
      process.stdin.isTTY = value;
    };
    afterEach(() => {
      process.stdout.isTTY = saved.stdout;
      process.stdin.isTTY = saved.stdin;
    });

    it('only on a terminal, without --json or --no-tui, outside CI', () => {
      tty(true);
      expect(wantsInteractiveUi({}, { TERM: 'xterm' })).toBe(true);
      expect(wantsInteractiveUi({ json: true }, { TERM: 'xterm' })).toBe(false);
      expect(wantsInteractiveUi({ noTui: true }, { TERM: 'xterm' })).toBe(false);
      expect(wantsInteractiveUi({}, { TERM: 'dumb' })).toBe(false);
      expect(wantsInteractiveUi({}, { CI: 'true' })).toBe(false);
      expect(wantsInteractiveUi({}, { CI: 'false' })).toBe(true);
      tty(false);
      expect(wantsInteractiveUi({}, { TERM: 'xterm' })).toBe(false);
    });
  });

  describe("chooseWinner (the compare view's merge, through the engine's merge policy)", () => {
    let runDir: string | undefined;
    afterEach(() => {
      if (runDir) rmSync(runDir, { recursive: true, force: true });
      runDir = undefined;
    });

    it("applies the chosen merge mode to the chosen candidate, and records the choice in the run's log", async () => {
      runDir = mkdtempSync(join(tmpdir(), 'bestof-choice-'));
      const dir = runDir;
      const events = finishedRun().map((e) => (e.type === 'run.started' ? { ...e, runDir: dir } : e));
      writeFileSync(join(dir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      const run = foldEvents(events);
      const message = "the winner's work is on branch bestof/r1/c2 (merge it with `git merge bestof/r1/c2`)";
      const chosen = await chooseWinner(run, 'c2', 'branch', 'main');
      expect(chosen).toMatchObject({
        ok: true,
        message,
        recorded: { type: 'winner.chosen', candidate: 'c2', previous: 'c1', mode: 'branch', ok: true, branch: 'bestof/r1/c2', message, by: 'user' },
      });
      expect((await readEvents(dir)).at(-1)).toEqual(chosen.recorded);
      expect(await chooseWinner(run, 'c9', 'branch', 'main')).toEqual({ ok: false, message: 'no candidate c9 in run r1' });
    });
  });
});
