/**
 * The tester's prompt (pure): the task, the finalists' diffs under neutral labels, and what to
 * write where. Each diff is fenced with more backticks than its longest run (as the reviewer's
 * is), so nothing inside a diff can close the fence and speak to the tester as the prompt.
 */

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export interface TesterPromptInput {
  readonly task: string;
  /** In the order shown: each finalist's label and its anonymised diff against base. */
  readonly solutions: readonly { readonly label: string; readonly diff: string }[];
  /** The folder, relative to the current folder, the files go into. */
  readonly folder: string;
  readonly tests: number;
  /** How one file is run, `{file}` standing for its path relative to the current folder. */
  readonly command: string;
}

export function testerPrompt(input: TesterPromptInput): string {
  const example = input.command.replaceAll('{file}', `${input.folder}/<file>`);
  const solutions = input.solutions
    .map((s) => {
      const fence = fenceFor(s.diff);
      return `### Solution ${s.label}\n\n${fence}diff\n${s.diff.trimEnd()}\n${fence}`;
    })
    .join('\n\n');
  return `You write tests that tell apart ${input.solutions.length} solutions of one programming task. Each solution is shown
below as a diff against the same base, under a neutral label. The current folder holds that base,
without any of the solutions.

## Task

${input.task.trimEnd()}

## Solutions

${solutions}

## What to write

Write at most ${input.tests} test files into the folder \`${input.folder}/\` of the current folder (its full path
is also in the environment variable BESTOF_TESTS_DIR). Each file is run on its own, from the root of
each solution's code with your files laid in at the same place, by:

    ${example}

Exit status 0 passes the file. Each test must pin down the behaviour the task asks for, exactly
where the solutions differ: an input on which their results would differ, and the result the task
asks for on it. Test what the task asks for, never a solution's internal names, structure or
style. A test that a correct solution passes and a wrong one fails is what is wanted; a test that
every solution passes tells nothing. Keep each file small and independent of the others. Write
nothing outside \`${input.folder}/\`: nothing you write is ever merged.
`;
}
