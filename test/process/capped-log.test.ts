/**
 * The capped raw log: head and tail kept, one marker for the cut, the same file whatever the
 * chunking, valid UTF-8 at the cut, and after a kill -9 the head and a line that says so.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCappedLog } from '../../src/process/capped-log.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

/** Bytes 0..n-1 of a text whose every position is recognisable: "000000 000001 …". */
function numbered(n: number): Buffer {
  const words = Array.from({ length: Math.ceil(n / 7) }, (_, i) => `${String(i).padStart(6, '0')} `).join('');
  return Buffer.from(words.slice(0, n));
}

async function capture(
  chunks: readonly (string | Buffer)[],
  options: { headBytes: number; tailBytes: number },
  file = join(tempDir(), 'out.log'),
): Promise<Buffer> {
  const log = await openCappedLog(file, options);
  for (const chunk of chunks) log.write(chunk);
  await log.close();
  return readFileSync(file);
}

function split(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

const CUT = /\n\[bestof: ([\d,]+) bytes of output cut here; this log keeps the first (.+?) and the last (.+?)\]\n/;

describe('the capped log', () => {
  it('keeps small output whole, with no marker', async () => {
    const file = await capture(['hello\n', 'world\n'], { headBytes: 100, tailBytes: 100 });
    expect(file.toString()).toBe('hello\nworld\n');
  });

  it('keeps the head and the tail of many small writes, and says how many bytes were cut', async () => {
    const input = numbered(10_000);
    const file = await capture(split(input, 7), { headBytes: 1_000, tailBytes: 500 });
    const text = file.toString();
    const match = CUT.exec(text);
    expect(match?.[1]).toBe('8,500');
    expect(match?.[2]).toBe('1,000 bytes');
    expect(text.slice(0, match?.index)).toBe(input.subarray(0, 1_000).toString());
    expect(text.slice((match?.index ?? 0) + (match?.[0].length ?? 0))).toBe(input.subarray(9_500).toString());
  });

  it('writes the same file for one huge write as for many small ones', async () => {
    const input = numbered(3 << 20);
    const options = { headBytes: 1 << 20, tailBytes: 1 << 20 };
    const whole = await capture([input], options);
    const pieces = await capture(split(input, 4096 + 3), options);
    expect(pieces.equals(whole)).toBe(true);
    expect(whole.length).toBeLessThan((2 << 20) + 200);
    expect(whole.subarray(0, 1 << 20).equals(input.subarray(0, 1 << 20))).toBe(true);
    expect(whole.subarray(whole.length - (1 << 20)).equals(input.subarray(input.length - (1 << 20)))).toBe(true);
    expect(CUT.exec(whole.toString())?.[1]).toBe((1 << 20).toLocaleString('en-US'));
  });

  it('keeps 50 MB of output to about 2 MB', async () => {
    const path = join(tempDir(), 'flood.log');
    const log = await openCappedLog(path);
    const line = Buffer.from(`${'x'.repeat(75)}\n`);
    const chunk = Buffer.concat(Array.from({ length: 862 }, () => line));
    for (let written = 0; written < 50_000_000; written += chunk.length) log.write(chunk);
    await log.close();
    expect(statSync(path).size).toBeLessThan(2.1 * (1 << 20));
  });

  it('keeps everything, with no marker, when the output is exactly the head, or the head and the tail', async () => {
    const options = { headBytes: 1_000, tailBytes: 500 };
    const head = numbered(1_000);
    expect((await capture(split(head, 100), options)).equals(head)).toBe(true);
    const both = numbered(1_500);
    expect((await capture(split(both, 100), options)).equals(both)).toBe(true);
    expect((await capture([both], options)).equals(both)).toBe(true);
    // One byte more is a cut of one byte.
    const over = numbered(1_501);
    const text = (await capture([over], options)).toString();
    expect(CUT.exec(text)?.[1]).toBe('1');
  });

  it('is whole when close() is called twice, and ignores writes after it', async () => {
    const path = join(tempDir(), 'twice.log');
    const log = await openCappedLog(path, { headBytes: 10, tailBytes: 10 });
    log.write(numbered(100));
    const first = log.close();
    const second = log.close();
    expect(second).toBe(first);
    await Promise.all([first, second]);
    log.write('more');
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith(numbered(10).toString())).toBe(true);
    expect(text.endsWith(numbered(100).subarray(90).toString())).toBe(true);
    expect(text).not.toContain('more');
  });

  it('cuts between characters: the head ends before a split character and the tail starts after one, and the count stays exact', async () => {
    // "é" is 2 bytes, "€" 3 and "😀" 4: every cut position falls inside one of them somewhere.
    const input = Buffer.from('aé€😀'.repeat(400));
    for (const headBytes of [97, 98, 99, 100, 101]) {
      for (const chunkSize of [1, 2, 5, input.length]) {
        const file = await capture(split(input, chunkSize), { headBytes, tailBytes: 103 });
        const text = file.toString('utf8');
        // Valid UTF-8 throughout: decoding and encoding again gives the same bytes.
        expect(Buffer.from(text, 'utf8').equals(file)).toBe(true);
        const match = CUT.exec(text);
        const head = Buffer.from(text.slice(0, match?.index));
        const tail = Buffer.from(text.slice((match?.index ?? 0) + (match?.[0].length ?? 0)));
        expect(head.length).toBeLessThanOrEqual(headBytes);
        expect(head.length).toBeGreaterThan(headBytes - 4);
        expect(tail.length).toBeLessThanOrEqual(103);
        expect(input.subarray(0, head.length).equals(head)).toBe(true);
        expect(input.subarray(input.length - tail.length).equals(tail)).toBe(true);
        expect(Number(match?.[1]?.replace(/,/g, ''))).toBe(input.length - head.length - tail.length);
      }
    }
  });

  it('appends to what the file held (the calls of one iteration share a log)', async () => {
    const path = join(tempDir(), 'shared.log');
    writeFileSync(path, 'first call\n');
    const file = await capture([numbered(50)], { headBytes: 10, tailBytes: 10 }, path);
    expect(file.toString().startsWith(`first call\n${numbered(10).toString()}\n[bestof: 30 bytes`)).toBe(true);
  });

  it('leaves the head and a line that says the rest was coming when the writing process is killed', () => {
    const dir = tempDir();
    const path = join(dir, 'killed.log');
    const input = numbered(300_000);
    writeFileSync(join(dir, 'input'), input);
    // A real process writes through the log and kills itself with SIGKILL: no close().
    const script = `
      const { readFileSync } = await import('node:fs');
      const { openCappedLog } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'process', 'capped-log.js'))});
      const log = await openCappedLog(${JSON.stringify(path)}, { headBytes: 100000, tailBytes: 100000 });
      const input = readFileSync(process.argv[1]);
      for (let i = 0; i < input.length; i += 1000) log.write(input.subarray(i, i + 1000));
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, join(dir, 'input')], { encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    const text = readFileSync(path, 'utf8');
    expect(text.slice(0, 100_000)).toBe(input.subarray(0, 100_000).toString());
    expect(text.slice(100_000)).toBe(
      '\n[bestof: the output goes on past its first 100,000 bytes; its end (up to 100,000 bytes) is written here when it ends. If this is the last line, bestof was stopped before that.]\n',
    );
  });

  it('never throws when the disk fails: the log stops, close() resolves and gives the descriptor back', async () => {
    const openFiles = (): number => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    // /dev/full takes the open and fails every write with ENOSPC.
    const log = await openCappedLog('/dev/full', { headBytes: 10, tailBytes: 10 });
    expect(openFiles()).toBe(before + 1);
    expect(() => log.write(numbered(100))).not.toThrow();
    await expect(log.close()).resolves.toBeUndefined();
    expect(openFiles()).toBe(before);
  });
});
