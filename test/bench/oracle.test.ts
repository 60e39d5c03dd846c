/**
 * runOracle (src/bench/oracle.ts) on a real repo: a candidate's kept ref is judged by the oracle's
 * command in a clean export, the oracle's hidden folder laid in; a candidate with no commit (no
 * kept ref, none recorded, or a ref that is gone) fails without running anything; the exports are
 * removed after.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOracle } from '../../src/bench/oracle.js';
import { loadSpec } from '../../src/spec/load.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('runOracle', () => {
  it("judges each candidate's kept commit; a candidate with no commit fails", async () => {
    const r = repo({ 'README.md': '# t\n' });
    const base = r.git('rev-parse', 'HEAD').trim();
    r.write('answer.txt', '42\n');
    const right = r.commitAll('right');
    r.git('update-ref', 'refs/bestof/r1/c1/kept', right);
    r.git('reset', '--hard', '--quiet', base);
    r.write('answer.txt', '41\n');
    const wrong = r.commitAll('wrong');
    r.git('update-ref', 'refs/bestof/r1/c2/kept', wrong);

    const specDir = tempDir();
    mkdirSync(join(specDir, 'oracle'));
    writeFileSync(join(specDir, 'oracle', 'expected.txt'), '42\n');
    writeFileSync(
      join(specDir, 't.toml'),
      '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n[[checks.items]]\nname = "judge"\ncommand = "cmp answer.txt hidden/expected.txt"\nkind = "oracle"\nhidden = "oracle"\ninto = "hidden"\n' +
        // A second oracle check laid at the same place: the first one's files were taken away after it.
        '[[checks.items]]\nname = "again"\ncommand = "test -f hidden/expected.txt"\nkind = "oracle"\nhidden = "oracle"\ninto = "hidden"\n',
    );
    const loaded = await loadSpec(join(specDir, 't.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const workDir = join(tempDir(), 'oracle');
    const verdicts = await runOracle({
      repo: r.dir,
      base,
      loaded: loaded.value,
      runId: 'r1',
      candidates: [
        { id: 'c1', ref: 'refs/bestof/r1/c1/kept', commit: null },
        { id: 'c2', ref: null, commit: wrong },
        { id: 'c3', ref: null, commit: null },
        { id: 'c4', ref: 'refs/bestof/r1/c4/kept', commit: null },
      ],
      workDir,
      env: process.env,
      signal: new AbortController().signal,
    });
    expect(verdicts.map((v) => [v.candidate, v.passed])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', false],
      ['c4', false],
    ]);
    expect(verdicts[1]?.why).toMatch(/^oracle check judge exited with 1/);
    expect(verdicts[2]?.why).toMatch(/^no commit/);
    expect(verdicts[3]?.why).toMatch(/^no commit/);
    // Nothing of the exports is left, and the task's repo holds no hidden file.
    expect(existsSync(join(workDir, 'r1')) ? readdirSync(join(workDir, 'r1')) : []).toEqual([]);
    expect(existsSync(join(r.dir, 'hidden'))).toBe(false);
  });
});
