/**
 * Rules between the keys of one `[[checks.items]]` entry that zod's per-key schema cannot say
 * (src/spec/schema.ts applies them in its refinement, each problem at the dotted key).
 */

/** The keys of a check that only mean something together (`partial` needs `report`, `hidden` and `into` go in pairs, `expect` needs an oracle with a report). */
export function checkKeyProblems(item: {
  readonly report?: string | undefined;
  readonly partial?: boolean | undefined;
  readonly hidden?: string | undefined;
  readonly into?: string | undefined;
  readonly show_output?: boolean | undefined;
  readonly kind?: string | undefined;
  readonly expect?: string | undefined;
}): Array<{ key: string; message: string }> {
  const problems: Array<{ key: string; message: string }> = [];
  // Only the bench's oracle reads `expect` (src/bench/oracle.ts): elsewhere it would be silently ignored.
  if (item.expect !== undefined && (item.kind !== 'oracle' || item.report === undefined))
    problems.push({
      key: 'expect',
      message:
        'expect (the tests by name that must pass) is for an oracle check with a report: it needs kind = "oracle" and report = "junit", "tap" or "go-json"',
    });
  if (item.partial && item.report === undefined)
    problems.push({
      key: 'partial',
      message: 'partial = true needs `report` (partial credit counts the tests of a report): add report = "junit", "tap" or "go-json", or remove partial',
    });
  if (item.hidden !== undefined && item.into === undefined)
    problems.push({ key: 'hidden', message: 'hidden needs `into`, the place in the repo where its files appear while the check runs (into = "test/hidden")' });
  if (item.into !== undefined && item.hidden === undefined)
    problems.push({ key: 'into', message: 'into goes with `hidden` (the folder it lays there): add hidden, or remove into' });
  if (item.show_output && item.hidden === undefined)
    problems.push({ key: 'show_output', message: 'show_output is for a hidden check (any other check shows its output): remove it' });
  return problems;
}
