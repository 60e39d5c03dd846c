/**
 * The generated files of the benchmarks' fixture repos: `files` small text files under two levels
 * of folders (src/gN/dNNN/, at most FILES_PER_FOLDER in each), so that 50,000 files make a tree
 * git walks like a real one, not one folder of 50,000 entries.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FILES_PER_FOLDER = 100;

export function writeFixtureFiles(repo, files) {
  const folders = Math.ceil(files / FILES_PER_FOLDER);
  for (let f = 0; f < folders; f++) {
    const dir = join(repo, 'src', `g${Math.floor(f / 10)}`, `d${String(f).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (let i = f * FILES_PER_FOLDER; i < Math.min(files, (f + 1) * FILES_PER_FOLDER); i++) {
      writeFileSync(join(dir, `file${String(i).padStart(5, '0')}.txt`), `file ${i}\n${'x'.repeat(i % 97)}\n`);
    }
  }
}
