/** The run folder's one reader of setup-paths.json: a bad file is no paths, never an exception. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { candidateDir, readSetupPaths, setupPathsFile } from '../../src/engine/record/run-folder.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function runDirWith(content: string | undefined): string {
  const runDir = mkdtempSync(join(tmpdir(), 'bestof-run-folder-'));
  folders.push(runDir);
  mkdirSync(candidateDir(runDir, 'c1'), { recursive: true });
  if (content !== undefined) writeFileSync(setupPathsFile(runDir, 'c1'), content);
  return runDir;
}

describe('readSetupPaths', () => {
  it('reads the paths a completed setup recorded, in the candidate folder', () => {
    const runDir = runDirWith(JSON.stringify(['.env', 'built/']));
    expect(setupPathsFile(runDir, 'c1')).toBe(join(runDir, 'candidates', 'c1', 'setup-paths.json'));
    expect(readSetupPaths(setupPathsFile(runDir, 'c1'))).toEqual(['.env', 'built/']);
  });

  it.each([
    ['missing', undefined],
    ['torn JSON', '[".env", "bui'],
    ['not a list', '{"paths": [".env"]}'],
    ['null', 'null'],
  ])('a %s file is no paths', (_name, content) => {
    expect(readSetupPaths(setupPathsFile(runDirWith(content), 'c1'))).toEqual([]);
  });

  it('keeps only the strings of a list', () => {
    expect(readSetupPaths(setupPathsFile(runDirWith('[".env", 3, null, {"a": 1}, "built/"]'), 'c1'))).toEqual(['.env', 'built/']);
  });
});
