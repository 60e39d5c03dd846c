/**
 * `bestof bench mine` on more-itertools (Python, pytest; ../shared/corpora, skipped where absent):
 * kept tasks and rejections checked by hand, no byte of the hidden tests where an agent looks, and
 * the mined bench through `bestof bench`: the reference agent resolves every task, a no-op agent none.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cloneCorpus, corpusMissing } from '../helpers/corpora.js';
import { expectNoLeak, expectReferenceAllNoopNone, mineAndBench } from '../helpers/mined-bench.js';

const PY = 'more-itertools.bundle';
describe.skipIf(corpusMissing(PY) !== undefined)(`more-itertools (Python) ${corpusMissing(PY) ?? ''}`, () => {
  it('mines the last 300 commits until 3 tasks are kept; the reference agent resolves all three, a no-op agent none', { timeout: 1_200_000 }, async () => {
    const repo = cloneCorpus(PY, 'more-itertools');
    // What `bestof init` writes (pytest with a JUnit report), with the suite's five slowest tests
    // left out by the spec author's own -k: their 40 s of primes and FFTs would be paid four times a commit.
    expect((await runCli(['init'], { cwd: repo })).code).toBe(0);
    const spec = readFileSync(join(repo, 'bestof.toml'), 'utf8');
    const slow = "-k 'not test_primes and not test_roundtrip and not test_all_orderings and not test_nth_prime_approximate and not concurrent'";
    writeFileSync(join(repo, 'bestof.toml'), spec.replace('python3 -m pytest -q --junitxml', `python3 -m pytest -q -p no:cacheprovider ${slow} --junitxml`));
    const { out, summary, results, benchJson, benchMd } = await mineAndBench(repo, ['--commits', '300', '--max', '3']);

    const byId = new Map(summary.kept.map((k) => [k.sha.slice(0, 10), k]));
    expect([...byId.keys()].sort()).toEqual(['0e6acdf9b6', '958990e22c', 'd992be0de9']);
    const chunked = byId.get('0e6acdf9b6');
    expect(chunked?.parent).toBe('516f0a80fb7c2c8562dbb5e318fc2a3d44f4171f');
    expect(chunked?.failToPass).toEqual(['tests.test_more.ChunkedTests::test_negative']);
    expect(chunked?.message).toMatch(/^Raise a clear ValueError for negative n in chunked\(\)\n\nchunked\(\) was the only sizing function/);
    const sliced = byId.get('958990e22c');
    expect(sliced?.parent).toBe('ed86a1528aa015f219f8d3385ea2ebd3f63a5212');
    expect(sliced?.failToPass).toEqual(['tests.test_more.SlicedTests::test_negative']);
    expect(sliced?.message).toMatch(/^Raise for negative slice sizes in sliced\(\)/);
    const stability = byId.get('d992be0de9');
    expect(stability?.parent).toBe('cb75bb9c55f7ed3e77ce599097e1ba8da411746d');
    expect(stability?.failToPass.sort()).toEqual(['tests.test_more.TestRunningMax::test_stability', 'tests.test_more.TestRunningMin::test_stability']);
    expect(stability?.message).toBe('Fix stability in running_min and running_max');
    for (const task of summary.kept) expect(task.passToPass.length).toBeGreaterThan(700);

    const reasons = new Map(summary.rejected.map((r) => [r.sha.slice(0, 10), r]));
    expect(reasons.get('c69f0f9129')?.reason).toBe('docs-only');
    expect(reasons.get('069b30002a')).toMatchObject({ reason: 'breaks-visible', detail: expect.stringContaining('NumericRangeTests::test_hash') });
    expect(reasons.get('5c715d813a')).toMatchObject({ reason: 'protected-file', detail: 'changes Makefile' });
    expect(summary.commitsLookedAt).toBe(summary.kept.length + summary.rejected.length);

    for (const task of summary.kept) expectNoLeak(repo, out, results, task);
    expectReferenceAllNoopNone(benchJson, benchMd, 3);
  });
});
