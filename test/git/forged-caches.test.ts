/**
 * bestof's git reads commits and objects from the objects themselves, never from git's caches of
 * the object store (src/git/running/exec.ts: `core.commitGraph=false`, `core.multiPackIndex=false`).
 *
 * In the sandbox an agent cannot write `objects/info` or `objects/pack` (the trust tier's
 * commit-graph adversary): there the settings are a second wall. Without the sandbox
 * (`[sandbox] mode = "off"`, or a machine without bubblewrap) an agent's own git writes the shared
 * store, and these caches are files it can forge: a commit-graph whose entry for base names a
 * tree with the frozen test gutted, a multi-pack-index that sends base's blob of the test to the
 * gutted blob's place in a pack. A git that trusts them restores the gutted test "from base" and
 * sees no frozen change. Here the forged caches are planted in a real repository as such an agent
 * would, plain git is shown to read the forgery (the forgery works), and bestof's git the truth.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { showFile } from '../../src/git/running/show.js';
import { treeOf } from '../../src/git/history/tree.js';
import { changedPaths } from '../../src/git/history/diff.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo } = tempRepos();

const TEST = "const assert = require('node:assert');\nassert.equal(require('../src/add.js')(2, 3), 5);\n";
const GUTTED = "console.log('add: ok');\n";

/** A repository with a frozen test, and the gutted test written as a blob of its store (as an agent's `git hash-object -w` does). */
function project(): { r: TempRepo; base: string; gutted: string; testBlob: string } {
  const r = repo({ 'src/add.js': 'module.exports = (a, b) => a - b;\n', 'test/add.test.js': TEST });
  const gutted = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: r.dir, input: GUTTED, encoding: 'utf8' }).trim();
  return { r, base: r.git('rev-parse', 'HEAD'), gutted, testBlob: r.git('rev-parse', 'HEAD:test/add.test.js') };
}

/** The chunk table of a commit-graph or multi-pack-index file: chunk id -> offset. */
function chunks(buf: Buffer, tableAt: number, count: number): Record<string, number> {
  const table: Record<string, number> = {};
  for (let i = 0; i < count; i++) table[buf.toString('latin1', tableAt + 12 * i, tableAt + 12 * i + 4)] = Number(buf.readBigUInt64BE(tableAt + 12 * i + 4));
  return table;
}

/** The position of `oid` in a file's sorted object-name chunk (OIDL). */
function positionOf(buf: Buffer, oidl: number, count: number, oid: string): number {
  const hashLen = oid.length / 2;
  for (let i = 0; i < count; i++) if (buf.toString('hex', oidl + i * hashLen, oidl + (i + 1) * hashLen) === oid) return i;
  throw new Error(`${oid} is not in the file`);
}

/** The file's trailing checksum made right again, so that nothing in git finds it damaged. */
function resealed(buf: Buffer, hashLen: number): Buffer {
  createHash('sha1')
    .update(buf.subarray(0, buf.length - hashLen))
    .digest()
    .copy(buf, buf.length - hashLen);
  return buf;
}

/** A commit-graph of the store whose entry for base names a tree like base's with the test gutted. */
function forgeCommitGraph(r: TempRepo, base: string, gutted: string): void {
  const testTree = execFileSync('git', ['mktree'], { cwd: r.dir, input: `100644 blob ${gutted}\tadd.test.js\n`, encoding: 'utf8' }).trim();
  const root = r.git('ls-tree', base).replace(/^040000 tree [0-9a-f]+\ttest$/m, `040000 tree ${testTree}\ttest`);
  const forgedTree = execFileSync('git', ['mktree'], { cwd: r.dir, input: `${root}\n`, encoding: 'utf8' }).trim();
  r.git('commit-graph', 'write', '--reachable');
  const file = join(r.dir, '.git', 'objects', 'info', 'commit-graph');
  const buf = readFileSync(file);
  const table = chunks(buf, 8, buf[6] as number);
  const count = buf.readUInt32BE((table.OIDF as number) + 255 * 4);
  // CDAT: each commit's root tree first, then its parents, generation and time (16 bytes).
  const at = positionOf(buf, table.OIDL as number, count, base);
  Buffer.from(forgedTree, 'hex').copy(buf, (table.CDAT as number) + at * (base.length / 2 + 16));
  writeFileSync(file, resealed(buf, base.length / 2));
}

/**
 * Every object packed (base's in one pack, the gutted blob in another), a multi-pack-index over
 * both, and its entry for base's blob of the test (pack and offset, OOFF) copied from the gutted blob's.
 */
function forgeMultiPackIndex(r: TempRepo, testBlob: string, gutted: string): void {
  r.git('repack', '-a', '-d', '-q');
  execFileSync('git', ['pack-objects', '-q', join(r.dir, '.git', 'objects', 'pack', 'pack')], { cwd: r.dir, input: `${gutted}\n` });
  r.git('prune-packed');
  r.git('multi-pack-index', 'write');
  const file = join(r.dir, '.git', 'objects', 'pack', 'multi-pack-index');
  const buf = readFileSync(file);
  const table = chunks(buf, 12, buf[6] as number);
  const count = buf.readUInt32BE((table.OIDF as number) + 255 * 4);
  const entry = (oid: string): number => (table.OOFF as number) + 8 * positionOf(buf, table.OIDL as number, count, oid);
  buf.copy(buf, entry(testBlob), entry(gutted), entry(gutted) + 8);
  writeFileSync(file, resealed(buf, testBlob.length / 2));
}

describe("git's caches of the object store, forged by an agent without the sandbox", () => {
  it("a commit-graph whose entry for base names a gutted tree: plain git's diff sees no frozen change, bestof's sees the gutted test", async () => {
    const { r, base, gutted } = project();
    const realTree = r.git('rev-parse', `${base}^{tree}`);
    forgeCommitGraph(r, base, gutted);
    // The candidate's commit: the test gutted (its index entry named the gutted blob).
    r.write('test/add.test.js', GUTTED);
    const commit = r.commitAll('gut the test');
    // The forgery works on a git that trusts the graph (the user's own, by default): base's tree is
    // the forged one, the gutted test is "as in base", and `git status` says the test is modified.
    expect(r.git('log', '-1', '--format=%T', base)).not.toBe(realTree);
    expect(r.git('diff', '--name-only', base, commit, '--', 'test')).toBe('');
    // bestof's git reads base's commit object.
    expect(await changedPaths(r.dir, base, commit, [':(top,glob)test/**'])).toEqual([expect.objectContaining({ path: 'test/add.test.js' })]);
    expect(await treeOf(r.dir, base)).toBe(realTree);
    expect(await showFile(r.dir, base, 'test/add.test.js')).toEqual({ ok: true, value: TEST });
  });

  it("a multi-pack-index that sends base's blob of the test to the gutted blob: plain git reads the gutted test, bestof the real one", async () => {
    const { r, base, gutted, testBlob } = project();
    forgeMultiPackIndex(r, testBlob, gutted);
    expect(readdirSync(join(r.dir, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack'))).toHaveLength(2);
    expect(`${r.git('cat-file', '-p', testBlob)}\n`).toBe(GUTTED);
    expect(`${r.git('show', `${base}:test/add.test.js`)}\n`).toBe(GUTTED);
    expect(await showFile(r.dir, base, 'test/add.test.js')).toEqual({ ok: true, value: TEST });
  });
});
