/**
 * `bestof bench mine` on pkg/errors (Go, go test; ../shared/corpora, skipped where absent): its whole
 * history mined, kept tasks and rejections checked by hand, no byte of the hidden tests where an
 * agent looks, and the mined bench through `bestof bench`: the reference agent resolves every task,
 * a no-op agent none.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloneCorpus, corpusMissing } from '../helpers/corpora.js';
import { expectNoLeak, expectReferenceAllNoopNone, mineAndBench } from '../helpers/mined-bench.js';

const GO = 'pkg-errors.bundle';
describe.skipIf(corpusMissing(GO) !== undefined)(`pkg/errors (Go) ${corpusMissing(GO) ?? ''}`, () => {
  it('mines its whole history (148 commits); the reference agent resolves every kept task, a no-op agent none', { timeout: 1_800_000 }, async () => {
    const repo = cloneCorpus(GO, 'errors');
    // pkg/errors predates Go modules, and its tests match stack traces against the import path
    // github.com/pkg/errors: the spec author's check runs them from a GOPATH of their own.
    writeFileSync(
      join(repo, 'bestof.toml'),
      `[[checks.items]]
name = "test"
command = 'mkdir -p "$HOME/go/src/github.com/pkg" && cp -R . "$HOME/go/src/github.com/pkg/errors" && cd "$HOME/go/src/github.com/pkg/errors" && GO111MODULE=off GOPATH="$HOME/go" GOFLAGS= go test -json ./...'
report = "go-json"
score = 100

[checks]
frozen = ["**/*_test.go"]
`,
    );
    const { out, summary, results, benchJson, benchMd } = await mineAndBench(repo, ['--commits', '300']);
    expect(summary.commitsLookedAt).toBe(148);
    expect(summary.kept.length).toBeGreaterThanOrEqual(8);

    const byId = new Map(summary.kept.map((k) => [k.sha.slice(0, 10), k]));
    const chains = byId.get('49f8f61729');
    expect(chains?.parent).toBe('004deef56200d8bd57ebfd6f8734c08fbd003f6d');
    expect(chains?.failToPass).toEqual(['github.com/pkg/errors/TestCauseErrorChainCompat']);
    expect(chains?.message).toBe('Support Go 1.13 error chains in `Cause` (#215)');
    const stack = byId.get('cc157cd49f');
    expect(stack?.failToPass).toEqual(['github.com/pkg/errors/TestStack']);
    expect(stack?.message).toMatch(/^Store the stack of the caller to New, Errorf, Wrap and Wrapf \(#27\)/);
    const wrapf = byId.get('9a179122f1');
    // A new function the tests call: before it, the package does not compile and every test fails.
    expect(wrapf?.failToPass).toContain('github.com/pkg/errors/TestWrapf');
    expect(wrapf?.passToPass).toEqual([]);

    const reasons = new Map(summary.rejected.map((r) => [r.sha.slice(0, 10), r]));
    // The revert of #215: its tests pass on its parent.
    expect(reasons.get('614d223910')).toMatchObject({ reason: 'no-fail-before' });
    expect(reasons.get('87f8819acf')).toMatchObject({ reason: 'docs-only', detail: '.github/workflows/ci.yml' });
    expect(reasons.get('004deef562')).toMatchObject({ reason: 'no-source-change' });

    for (const task of summary.kept) expectNoLeak(repo, out, results, task);
    expectReferenceAllNoopNone(benchJson, benchMd, summary.kept.length);
  });
});
