/**
 * A report may name two tests alike (a JUnit file per run of the same suite, `go test -count=2`, two
 * TAP tests with one description): the judge matches tests by name, so each gets a name of its own.
 */
import type { TestCaseResult } from './types.js';

/**
 * The tests with the second of a name renamed `name #2`, the third `name #3`, in report order (the
 * first keeps its name). A rename that would meet a name already given skips to the next number.
 */
export function numberDuplicates(tests: readonly TestCaseResult[]): TestCaseResult[] {
  const seen = new Map<string, number>();
  const given = new Set<string>();
  return tests.map((test) => {
    let name = test.name;
    let count = seen.get(test.name) ?? 1;
    while (given.has(name)) {
      count += 1;
      name = `${test.name} #${count}`;
    }
    seen.set(test.name, count);
    given.add(name);
    return name === test.name ? test : { ...test, name };
  });
}
