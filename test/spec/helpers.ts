/** Writes specs (and the files they name) into fresh temp folders, removed after the test file. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface SpecFolder {
  readonly dir: string;
  readonly specPath: string;
}

/** A new temp folder holding `spec.toml` with `toml`, plus `files` (paths relative to it). */
export function writeSpec(toml: string, files: Record<string, string> = {}): SpecFolder {
  const dir = mkdtempSync(join(tmpdir(), 'bestof-spec-'));
  made.push(dir);
  const specPath = join(dir, 'spec.toml');
  writeFileSync(specPath, toml);
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return { dir, specPath };
}
