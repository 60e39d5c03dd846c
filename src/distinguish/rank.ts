/**
 * Ranking the finalists by what the generated tests say (pure). First the tests that cannot tell
 * anyone anything are dropped: one that timed out anywhere (it may pass or fail by the machine's
 * load) and one that fails on every finalist (a test of the tester's own mistake, or of nothing
 * any finalist does). Then CodeT's dual execution agreement: the finalists whose pass/fail vectors
 * over the kept tests are identical form a group, and a group's score is its size times the tests
 * each member passes. Agreement counts because independent programs that behave the same on the
 * same inputs are more likely right than one that stands alone; passing counts because the tests
 * pin down the task's expected behaviour.
 *
 * The best group comes first (score, then tests passed); inside a group, and between groups of
 * equal score and passes, the ranking before the step decides (score, then the spec's `tie_break`).
 */
import { BASE_TARGET, type AgreementGroup, type DistinguishResult, type DroppedTest, type GeneratedTest, type TestRun } from './types.js';

export interface RankInput {
  /** In the ranking's order before the step. */
  readonly finalists: readonly string[];
  readonly tests: readonly GeneratedTest[];
  readonly runs: readonly TestRun[];
}

export function rankByAgreement(input: RankInput): DistinguishResult {
  const { finalists, tests } = input;
  const outcome = new Map(input.runs.map((r) => [`${r.test}\u0000${r.target}`, r.outcome]));
  const author = new Map(tests.flatMap((t) => (t.author !== undefined ? [[t.id, t.author] as const] : [])));
  // A rival's test never runs on its author's code, and counts as passed there.
  const of = (test: string, target: string): TestRun['outcome'] | undefined => (author.get(test) === target ? 'passed' : outcome.get(`${test}\u0000${target}`));
  const dropped: DroppedTest[] = [];
  const kept: string[] = [];
  for (const test of tests) {
    const results = finalists.map((f) => of(test.id, f));
    const others = finalists.filter((f) => f !== test.author).map((f) => of(test.id, f));
    if (results.some((r) => r === undefined)) dropped.push({ test: test.id, reason: 'it did not run on every finalist' });
    else if (results.some((r) => r === 'timed_out') || of(test.id, BASE_TARGET) === 'timed_out') dropped.push({ test: test.id, reason: 'it timed out' });
    else if (others.every((r) => r !== 'passed'))
      dropped.push({
        test: test.id,
        reason: test.author !== undefined ? `it fails on every finalist but its author, ${test.author}` : 'it fails on every finalist',
      });
    else kept.push(test.id);
  }
  const passed: Record<string, number> = {};
  const vectors = new Map<string, string[]>();
  for (const f of finalists) {
    const vector = kept.map((t) => (of(t, f) === 'passed' ? '1' : '0')).join('');
    passed[f] = [...vector].filter((bit) => bit === '1').length;
    vectors.set(vector, [...(vectors.get(vector) ?? []), f]);
  }
  const position = new Map(finalists.map((f, i) => [f, i]));
  const groups: AgreementGroup[] = [...vectors.values()]
    .map((members) => ({ members, passed: passed[members[0] as string] ?? 0, score: members.length * (passed[members[0] as string] ?? 0) }))
    .sort((a, b) => b.score - a.score || b.passed - a.passed || (position.get(a.members[0] as string) ?? 0) - (position.get(b.members[0] as string) ?? 0));
  // Groups of equal score and passes are one tier: its members in the ranking's order before the step.
  const order: string[] = [];
  for (let i = 0; i < groups.length; ) {
    const tier = groups.slice(i).filter((g) => g.score === groups[i]?.score && g.passed === groups[i]?.passed);
    order.push(...tier.flatMap((g) => g.members).sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)));
    i += tier.length;
  }
  return { kept, dropped, groups, order, passed, decided: decidedSentence(order, groups, kept.length, passed) };
}

/** "c2 won: passed 7 of 8 distinguishing tests, c1 and c3 passed 4", or why the tests did not decide. */
function decidedSentence(order: readonly string[], groups: readonly AgreementGroup[], kept: number, passed: Readonly<Record<string, number>>): string {
  const first = order[0];
  if (first === undefined) return 'no finalist';
  if (kept === 0) return `the generated tests decided nothing (none was kept): ${first} is first by the tie-break`;
  const best = groups[0] as AgreementGroup;
  const rivals = order.filter((f) => !best.members.includes(f));
  const others = describeOthers(rivals, passed);
  const tiedGroups = groups.filter((g) => g.score === best.score && g.passed === best.passed);
  if (tiedGroups.length > 1 || best.members.length > 1) {
    const tied = tiedGroups.flatMap((g) => g.members);
    const tiedOthers = order.filter((f) => tied.includes(f));
    return `${first} won by the tie-break: ${listAnd(tiedOthers)} each passed ${best.passed} of ${kept} distinguishing tests${tiedGroups.length === 1 ? ' the same way' : ''}${others ? `, ${others}` : ''}`;
  }
  return `${first} won: passed ${best.passed} of ${kept} distinguishing test${kept === 1 ? '' : 's'}${others ? `, ${others}` : ''}`;
}

function describeOthers(rivals: readonly string[], passed: Readonly<Record<string, number>>): string {
  const byCount = new Map<number, string[]>();
  for (const r of rivals) byCount.set(passed[r] ?? 0, [...(byCount.get(passed[r] ?? 0) ?? []), r]);
  return [...byCount.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([count, ids]) => `${listAnd(ids)} passed ${count}`)
    .join(', ');
}

function listAnd(ids: readonly string[]): string {
  return ids.length <= 1 ? (ids[0] ?? '') : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
}
