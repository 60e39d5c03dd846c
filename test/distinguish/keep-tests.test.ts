/**
 * What of the tester's folder is kept (src/engine/distinguish/tester.ts keepTests): regular files,
 * in name order, at most as many as asked for, none larger than MAX_TEST_BYTES, never a link
 * (a link could make the run folder's copy read a file of the user's).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keepTests, MAX_TEST_BYTES } from '../../src/engine/distinguish/tester.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'keep-tests-'));
  dirs.push(d);
  return d;
}

describe('keepTests', () => {
  it('keeps regular files in name order up to the count; refuses links, large files and the rest, and says why', async () => {
    const from = folder();
    const outside = folder();
    writeFileSync(join(outside, 'secret.txt'), 'the user key');
    mkdirSync(join(from, 'nested'));
    writeFileSync(join(from, 'b.test.mjs'), 'b');
    writeFileSync(join(from, 'a.test.mjs'), 'a');
    writeFileSync(join(from, 'nested', 'c.test.mjs'), 'c');
    writeFileSync(join(from, 'big.test.mjs'), 'x'.repeat(MAX_TEST_BYTES + 1));
    symlinkSync(join(outside, 'secret.txt'), join(from, 'link.test.mjs'));
    writeFileSync(join(from, 'z.test.mjs'), 'z');
    const to = join(folder(), 'kept');
    const { tests, refused } = await keepTests(from, to, 3);
    expect(tests.map((t) => [t.id, t.file, t.bytes])).toEqual([
      ['t1', 'a.test.mjs', 1],
      ['t2', 'b.test.mjs', 1],
      ['t3', 'nested/c.test.mjs', 1],
    ]);
    expect(refused).toEqual([
      { file: 'big.test.mjs', reason: `larger than ${MAX_TEST_BYTES / 1024} KB` },
      { file: 'link.test.mjs', reason: 'a symbolic link' },
      { file: 'z.test.mjs', reason: 'past the 3 asked for' },
    ]);
    expect(readdirSync(to).sort()).toEqual(['a.test.mjs', 'b.test.mjs', 'nested']);
    expect(readFileSync(join(to, 'nested', 'c.test.mjs'), 'utf8')).toBe('c');
  });

  it('empties the kept folder first: no file of an earlier call stays', async () => {
    const to = join(folder(), 'kept');
    mkdirSync(to);
    writeFileSync(join(to, 'old.test.mjs'), 'old');
    const from = folder();
    writeFileSync(join(from, 'new.test.mjs'), 'new');
    await keepTests(from, to, 8);
    expect(readdirSync(to)).toEqual(['new.test.mjs']);
  });
});
