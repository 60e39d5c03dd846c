/**
 * What the user reads, tried the way a cheater would (test/fixtures/adversaries/terminal-escapes.sh):
 * next to the honest agent, an adversary guts the frozen test and names a file there so that the
 * TAMPERED line printing it erases itself, and prints sequences that erase the lines above it, set
 * the window's title and write the clipboard. The cheat itself fails as any other (the honest agent
 * wins, the adversary earns nothing and is flagged, the user's repo and HOME are as before but for
 * the merge); and bestof's plain output, report.md, report.json and `bestof show` hold no control
 * character a terminal would obey: the TAMPERED line is there, whole, with the name escaped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import {
  adversary,
  makeTrustProject,
  markersLeft,
  readTrustReport,
  runDirs,
  safeGit,
  trustSpec,
  userState,
  userStateDiff,
  type TrustProject,
} from './harness.js';

const CHEATER = 'c1';
const HONEST = 'c2';

/** Anything a terminal would act on: C0 but tab and newline (ESC, BEL, CR among them), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

let project: TrustProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

function output(result: CliResult): string {
  return `exit ${result.code} ${result.signal ?? ''}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

/** The raw control characters of a text, as code points (empty: none). */
function rawControls(text: string): string[] {
  return [...text].filter((ch) => RAW_CONTROL.test(ch)).map((ch) => `U+${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

describe("an adversary that writes to the user's terminal", () => {
  for (const mode of ['auto', 'off'] as const) {
    it(`cannot erase its TAMPERED line, set the title or write the clipboard [sandbox ${mode}]`, async () => {
      project = makeTrustProject();
      const p = project;
      const before = userState(p);
      const specPath = p.writeOutside('spec.toml', trustSpec(p, { cheater: adversary('terminal-escapes'), sandbox: mode }));
      const options = { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env };
      const result = await runCli(['run', specPath], options);
      const all = output(result);

      // The cheat fails as any other: the honest agent wins and is merged, the adversary is flagged and earns nothing.
      expect(result.code, all).toBe(0);
      const report = readTrustReport(p);
      expect(report.winner, all).toBe(HONEST);
      const cheater = report.candidates.find((c) => c.id === CHEATER);
      expect(cheater?.score, all).toBe(0);
      expect(
        cheater?.tamperedPaths.map((t) => t.path),
        all,
      ).toEqual(expect.arrayContaining(['test/add.test.js', 'test/x\r\u001b[2K.txt']));
      expect(markersLeft(p)).toEqual([]);
      const main = safeGit(p.repo.dir, ['rev-parse', 'main']);
      expect(userStateDiff(before, userState(p), { mainMovedTo: main, checkoutChanged: p.fixedFiles }), "the user's repo and HOME, byte for byte").toEqual([]);

      // What the user reads: no control character anywhere, and the TAMPERED line whole, the name escaped.
      const [runDir] = runDirs(p);
      const show = await runCli(['show', report.runId], options);
      const texts = {
        stdout: result.stdout,
        stderr: result.stderr,
        'report.md': readFileSync(join(runDir as string, 'report.md'), 'utf8'),
        'report.json': readFileSync(join(runDir as string, 'report.json'), 'utf8'),
        show: show.stdout + show.stderr,
      };
      for (const [name, text] of Object.entries(texts)) expect(rawControls(text), `${name}:\n${text}`).toEqual([]);
      expect(result.stdout, all).toMatch(/^c1 TAMPERED with frozen paths \(put back for scoring\): .*test\/x\\r\\u001b\[2K\.txt \(added\)/m);
      expect(result.stdout, all).toContain('c1 | all tests pass\\u001b[1A\\u001b[2K\\u001b[1A\\u001b[2K');
      expect(result.stdout, all).toContain('c1 | \\u001b]0;bestof: c1 won\\u0007\\u001b]52;c;');
      expect(result.stdout, all).toContain('c1 | \\u009b2K\\u009d1;title\\u009cc1 \\u202ewon');
      expect(texts['report.md']).toContain('tampered with test/add.test.js, test/x\\r\\u001b[2K.txt');
    });
  }
});
