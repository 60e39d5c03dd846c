import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOnPath, findOnPathSync } from '../../src/process/find-on-path.js';

const tmp = mkdtempSync(join(tmpdir(), 'bestof-find-on-path-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function folderWith(name: string, files: Record<string, number>): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, mode] of Object.entries(files)) {
    writeFileSync(join(dir, file), '#!/bin/sh\n');
    chmodSync(join(dir, file), mode);
  }
  return dir;
}

// The sandbox probe's look-up (findOnPathSync) finds what the asynchronous one finds.
describe.each([
  ['findOnPath', findOnPath],
  ['findOnPathSync', async (program: string, path: string) => findOnPathSync(program, path)],
])('%s', (_name, findOnPath) => {
  const first = folderWith('first', { tool: 0o755, plain: 0o644 });
  const second = folderWith('second', { tool: 0o755, plain: 0o755 });

  it('returns the first executable of that name, in PATH order', async () => {
    expect(await findOnPath('tool', [first, second].join(delimiter))).toBe(join(first, 'tool'));
    expect(await findOnPath('tool', [second, first].join(delimiter))).toBe(join(second, 'tool'));
  });

  it('skips a file that is not executable, and empty PATH entries', async () => {
    expect(await findOnPath('plain', ['', first, '', second].join(delimiter))).toBe(join(second, 'plain'));
  });

  it('is undefined when no folder has it', async () => {
    expect(await findOnPath('no-such-program', [first, second].join(delimiter))).toBeUndefined();
    expect(await findOnPath('tool', '')).toBeUndefined();
  });
});
