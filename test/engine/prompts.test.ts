import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import { buildIterationPrompt } from '../../src/engine/loop/prompts.js';
import { failureExcerpt } from '../../src/checks/failure-excerpt.js';

const check = (name: string, exitCode: number, outputTail: string): CheckOutcome => ({
  name,
  passed: false,
  points: 0,
  maxPoints: 40,
  exitCode,
  timedOut: false,
  durationMs: 120,
  outputTail,
});

describe('the prompt of each iteration', () => {
  it("gives a failed check's failing part when the end of its output does not hold it, then the end", () => {
    const output = [
      'TAP version 13',
      'not ok 1 decodes + as a space',
      "  expected: 'a b'",
      "  actual:   'a+b'",
      ...Array.from({ length: 60 }, (_, i) => `ok ${i + 2} parse`),
      '# fail 1',
      'All files | 96.15',
    ].join('\n');
    const tail = output.split('\n').slice(-20).join('\n');
    const prompt = buildIterationPrompt({
      task: 'Fix decode.',
      iteration: 2,
      maxIterations: 3,
      messages: [],
      feedback: {
        score: 0,
        maxScore: 100,
        threshold: 100,
        failedChecks: [{ ...check('test', 1, tail), excerpt: failureExcerpt(output) }],
        outcome: 'success',
        tampered: [],
      },
    });
    expect(prompt).toContain(
      "The failing part of its output:\n\n```\nTAP version 13\nnot ok 1 decodes + as a space\n  expected: 'a b'\n  actual:   'a+b'\n```\n\nThe end of its output",
    );
    expect(prompt).toContain('The end of its output:\n\n```\nok 44 parse');
    // When the end holds the failing part, the end alone (said once).
    const short = buildIterationPrompt({
      task: 'Fix decode.',
      iteration: 2,
      maxIterations: 3,
      messages: [],
      feedback: {
        score: 0,
        maxScore: 100,
        threshold: 100,
        failedChecks: [{ ...check('test', 1, 'not ok 1 x\n# fail 1'), excerpt: 'not ok 1 x' }],
        outcome: 'success',
        tampered: [],
      },
    });
    expect(short).not.toContain('The failing part');
    expect(short).toContain('```\nnot ok 1 x\n# fail 1\n```');
  });

  it('iteration 1 is the task as written, where the spec keeps no path as in base', () => {
    expect(buildIterationPrompt({ task: 'Fix the date parser.', iteration: 1, maxIterations: 5, messages: [] })).toBe('Fix the date parser.\n');
    expect(buildIterationPrompt({ task: 'Fix the date parser.', iteration: 1, maxIterations: 5, messages: [], rules: { kept: [], editable: [] } })).toBe(
      'Fix the date parser.\n',
    );
  });

  // The exact text: an honest agent that adds a regression test under a frozen folder must know
  // before its first iteration that such work is not chosen.
  it('iteration 1 tells the agent what the checks keep as in base, and where changes count', () => {
    const rules = { kept: ['tests/**', 'package.json', '**/conftest.py'], editable: ['src/**'] };
    expect(buildIterationPrompt({ task: 'Fix the date parser.', iteration: 1, maxIterations: 5, messages: [], rules })).toBe(`Fix the date parser.

## bestof: paths the checks keep

The checks always use the original version of these paths: \`tests/**\`, \`package.json\`, \`**/conftest.py\`. Changing, adding or deleting a file there earns nothing, and work that does is not chosen: leave them as they are.
Only your changes to \`src/**\` count: a change elsewhere is undone before the checks and not kept.
`);
    // The test runners' files bestof keeps by itself (src/checks/runner-defaults.ts), with the exception editable makes.
    expect(
      buildIterationPrompt({ task: 'Fix it.', iteration: 1, maxIterations: 5, messages: [], rules: { ...rules, runner: ['**/.npmrc', '**/.nycrc*'] } }),
    ).toContain(
      "The checks also use the original version of the test runners' own files (unless a path where your changes count, below, names one), and work that changes them is not chosen: `**/.npmrc`, `**/.nycrc*`; and of the test runners' settings in package.json, pyproject.toml and go.mod.\nOnly your changes to `src/**` count",
    );
    // Later iterations get it again (an agent may start afresh each time), before what happened.
    const second = buildIterationPrompt({
      task: 'Fix the date parser.',
      iteration: 2,
      maxIterations: 5,
      messages: [],
      rules: { kept: ['tests/**'], editable: [] },
      feedback: { score: 0, maxScore: 10, threshold: 10, failedChecks: [], outcome: 'success', tampered: ['tests/new_test.py'] },
    });
    expect(second).toContain(
      'Fix the date parser.\n\n## bestof: paths the checks keep\n\nThe checks always use the original version of these paths: `tests/**`.',
    );
    expect(second).not.toContain('Only your changes');
    expect(second.indexOf('## bestof: paths the checks keep')).toBeLessThan(second.indexOf('## bestof: iteration 2 of 5'));
  });

  // The exact text an agent receives in iteration 2 after two failed checks. A change here
  // changes what every agent is told: make it on purpose.
  it('iteration 2 after two failed checks', () => {
    const prompt = buildIterationPrompt({
      task: 'Fix the date parser in src/date.ts.',
      iteration: 2,
      maxIterations: 5,
      feedback: {
        score: 20,
        maxScore: 100,
        threshold: 100,
        failedChecks: [
          check('unit', 1, 'FAIL test/date.test.ts\n  parses ISO weeks\n  expected 2026-W49, got undefined'),
          check('lint', 2, "src/date.ts:12:5 error 'x' is never used"),
        ],
        outcome: 'success',
        tampered: [],
      },
      messages: ['Keep the public API unchanged.'],
      outputFile: 'artifacts/notes.md',
      timeLeftMs: 25 * 60_000,
      budgetLeftUsd: 1.5,
    });
    expect(prompt).toBe(`Fix the date parser in src/date.ts.

## bestof: iteration 2 of 5

Your previous attempt scored 20 of 100 points; 100 are needed to finish.

These checks failed. They always run from the original tests and check scripts, so changing those earns nothing: fix the work itself.

### unit (exit code 1)

\`\`\`
FAIL test/date.test.ts
  parses ISO weeks
  expected 2026-W49, got undefined
\`\`\`

### lint (exit code 2)

\`\`\`
src/date.ts:12:5 error 'x' is never used
\`\`\`

Messages from the user:
- Keep the public API unchanged.

Output file: artifacts/notes.md (your previous output is there; build on it).
Time left: 25m.
Budget left: $1.50.
`);
  });

  it('uses retry_prompt_file from iteration 2, and says how the last run ended, what the reviewer refused and what was tampered with', () => {
    const prompt = buildIterationPrompt({
      task: 'Write the report.',
      retryTemplate: 'Read artifacts/gap.md and close one gap at a time.',
      phase: { name: 'polish', prompt: 'Tighten the prose.' },
      iteration: 3,
      maxIterations: 10,
      feedback: {
        score: 100,
        maxScore: 100,
        threshold: 100,
        failedChecks: [],
        outcome: 'context_overflow',
        refuseReason: 'section 2 is still a stub',
        tampered: ['test/report.test.ts'],
      },
      messages: [],
    });
    expect(prompt.startsWith('Read artifacts/gap.md and close one gap at a time.\n\n## Phase: polish\n\nTighten the prose.\n')).toBe(true);
    expect(prompt).not.toContain('Write the report.');
    expect(prompt).toContain('Your previous run ended early (context_overflow): the conversation outgrew the context window');
    expect(prompt).toContain('The reviewer refused your previous attempt: section 2 is still a stub');
    expect(prompt).toContain('Your changes to frozen files were ignored when scoring: test/report.test.ts.');
  });

  it('names the files the commit left out, and why, so the agent can commit them as files', () => {
    const line = 'src/add.js is a symbolic link to /tmp/add.js, outside the worktree: commit the file itself, not a link to it';
    const prompt = buildIterationPrompt({
      task: 't',
      iteration: 2,
      maxIterations: 3,
      feedback: { score: 0, maxScore: 1, threshold: 1, failedChecks: [], outcome: 'success', tampered: [], leftOut: [line] },
      messages: [],
    });
    expect(prompt).toContain(`These files were not committed, so the checks did not see them and no merge brings them:\n\n- ${line}\n`);
  });

  it('bounds the output of a failed check to its end', () => {
    const long = `${'x'.repeat(5000)}THE END`;
    const prompt = buildIterationPrompt({
      task: 't',
      iteration: 2,
      maxIterations: 2,
      feedback: { score: 0, maxScore: 1, threshold: 1, failedChecks: [check('big', 1, long)], outcome: 'success', tampered: [] },
      messages: [],
    });
    expect(prompt).toContain('THE END');
    expect(prompt.length).toBeLessThan(2600);
  });
});
