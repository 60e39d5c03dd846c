/**
 * Two bestof processes merging into one checkout at once (issue 9, item 8): without a lock they
 * trip over each other's MERGE_HEAD and half-made squash. With it, both merges land, one after the
 * other, and the checkout is clean. Two real OS processes over the compiled module, real git.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo } = tempRepos();
const MERGE_MODULE = pathToFileURL(join(PROJECT_ROOT, 'dist', 'git', 'history', 'merge.js')).href;

/** A separate node process that merges `commit` into main with bestof's mergeWinner and prints the outcome. */
function mergeInChild(dir: string, commit: string, mode: 'merge' | 'squash'): Promise<{ ok: boolean; text: string }> {
  const script = `
    const { mergeWinner } = await import(${JSON.stringify(MERGE_MODULE)});
    const r = await mergeWinner(${JSON.stringify(dir)}, { mode: ${JSON.stringify(mode)}, commit: ${JSON.stringify(commit)}, branch: 'w', into: 'main', message: 'bestof: merge ${commit.slice(0, 7)}' });
    console.log(JSON.stringify(r));`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', () => {
      try {
        resolve({ ok: (JSON.parse(out.trim().split('\n').pop() ?? '') as { ok: boolean }).ok, text: out });
      } catch {
        resolve({ ok: false, text: out });
      }
    });
  });
}

describe('one merge at a time into a checkout', () => {
  for (const mode of ['merge', 'squash'] as const) {
    it(`${mode}: two processes merging two winners at once, 5 rounds: every merge lands and the checkout stays clean`, async () => {
      for (let round = 0; round < 5; round++) {
        const r = repo({ 'README.md': '# r\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
        const base = r.git('rev-parse', 'HEAD');
        const winners = ['a.txt', 'b.txt'].map((file) => {
          r.git('checkout', '--quiet', '-b', `w-${file}`, base);
          r.write(file, `changed ${file}\n`);
          const sha = r.commitAll(`change ${file}`);
          r.git('checkout', '--quiet', 'main');
          return sha;
        });
        const results = await Promise.all(winners.map((sha) => mergeInChild(r.dir, sha, mode)));
        expect(
          results.map((x) => x.ok),
          results.map((x) => x.text).join('\n'),
        ).toEqual([true, true]);
        expect(r.git('status', '--porcelain')).toBe('');
        expect(r.git('show', 'HEAD:a.txt')).toBe('changed a.txt');
        expect(r.git('show', 'HEAD:b.txt')).toBe('changed b.txt');
      }
    }, 180_000);
  }
});
