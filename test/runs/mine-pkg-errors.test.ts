/**
 * `bestof bench mine` on pkg/errors (Go, go test; ../shared/corpora, skipped where absent): mined
 * until five tasks are kept, kept tasks and rejections checked by hand, no byte of the hidden tests where an
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
  it('mines the last 300 commits until 5 tasks are kept; the reference agent resolves every kept task, a no-op agent none', {
    timeout: 1_200_000,
  }, async () => {
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
    // The walk covers the last 300 commits (all 148 of its history) and stops at the fifth task kept
    // (about the twentieth commit): enough to check by hand, in a few minutes of the runs tier.
    const { out, summary, results, benchJson, benchMd } = await mineAndBench(repo, ['--commits', '300', '--max', '5']);
    expect(summary.kept).toHaveLength(5);
    expect(summary.commitsLookedAt).toBe(summary.kept.length + summary.rejected.length);

    const byId = new Map(summary.kept.map((k) => [k.sha.slice(0, 10), k]));
    expect([...byId.keys()].sort()).toEqual(['49f8f61729', '6d954f502e', '72fa05efae', '7f95ac13ed', '856c240a51']);
    const cause = byId.get('49f8f61729');
    expect(cause?.parent).toBe('004deef56200d8bd57ebfd6f8734c08fbd003f6d');
    expect(cause?.failToPass).toEqual(['github.com/pkg/errors/TestCauseErrorChainCompat']);
    expect(cause?.message).toBe('Support Go 1.13 error chains in `Cause` (#215)');
    const chains = byId.get('7f95ac13ed');
    expect(chains?.parent.startsWith('91f169312d')).toBe(true);
    expect(chains?.failToPass).toEqual(['github.com/pkg/errors/TestErrorChainCompat']);
    expect(chains?.passToPass.length).toBe(35);
    expect(chains?.message).toMatch(/^Add support for Go 1\.13 error chains \(#206\)/);
    const std = byId.get('6d954f502e');
    // Its new test file calls functions the parent lacks: there the package does not compile, and every test fails.
    expect(std?.failToPass).toContain('github.com/pkg/errors/TestNew');
    expect(std?.passToPass).toEqual([]);
    expect(std?.message).toMatch(/^feat: support std errors functions \(#213\)/);

    const reasons = new Map(summary.rejected.map((r) => [r.sha.slice(0, 10), r]));
    // The revert of #215: its tests pass on its parent.
    expect(reasons.get('614d223910')).toMatchObject({ reason: 'no-fail-before' });
    expect(reasons.get('87f8819acf')).toMatchObject({ reason: 'docs-only', detail: '.github/workflows/ci.yml' });
    expect(reasons.get('004deef562')).toMatchObject({ reason: 'no-source-change' });

    for (const task of summary.kept) expectNoLeak(repo, out, results, task);
    expectReferenceAllNoopNone(benchJson, benchMd, summary.kept.length);
  });
});
