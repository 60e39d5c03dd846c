/**
 * `[select.distinguish]`: tests that tell the finalists apart (src/engine/run/stages/distinguish.ts,
 * docs/distinguish.md). Its own file beside schema.ts, under the same rules: strict tables, every
 * key with its description, defaults here.
 */
import { z } from 'zod';
import { count, limitOr, nonEmpty, programString, providerKind, TEST_REPORT_KINDS, usd } from './schema-parts.js';

/** Where the tester writes its files, relative to the repo root (and where they are laid for each run). */
export const DISTINGUISH_FOLDER = 'bestof-tests';

const tester = z.strictObject({
  kind: providerKind.meta({ description: "the tester's provider kind" }),
  model: nonEmpty.optional().meta({ description: "the tester's model" }),
  script: nonEmpty.optional().meta({ description: '`kind = "script"`: its steps file', pathRule: 'existing-file' }),
  command: nonEmpty.optional().meta({ description: '`kind = "command"`: its program' }),
  args: z.array(programString).default([]).meta({ description: '`kind = "command"`: its argv template' }),
});

export const distinguish = z
  .strictObject({
    provider: tester.meta({
      description:
        'the tester agent, any kind (as a jury voter\'s: `{ kind, model }`, `{ kind = "script", script }`, `{ kind = "command", command, args }`); it works in a fresh export of `base` and never sees who wrote which diff',
    }),
    when: z.enum(['tie', 'always']).default('tie').meta({
      description:
        '`"tie"`: only when several candidates that can win share the top score (at most `max_finalists` of them); `"always"`: the top `max_finalists` candidates that can win, whatever their scores',
    }),
    max_finalists: count(2).max(8).default(4).meta({ description: 'the most candidates the tests are written for' }),
    tests: count(1).max(50).default(8).meta({ description: 'how many test files the tester is asked for (it may write fewer; more are left out)' }),
    command: nonEmpty
      .refine((c) => c.includes('{file}'), "expected a command with `{file}` in it, where the test file's path goes (python3 -m pytest -q {file})")
      .optional()
      .meta({
        description:
          "the shell command that runs one generated test file, `{file}` standing for its path relative to the repo root; exit 0 passes. Run in each finalist's scored tree (frozen paths as in base) and on base, in the checks' sandbox",
        defaultText: "from the runner of the spec's report check: `python3 -m pytest -q {file}`, `npx vitest run {file}` or `node --test {file}`",
      }),
    report: z.enum(TEST_REPORT_KINDS).optional().meta({
      description: "the machine report `command` writes (as a check's `report`): a failure's tail then names the failing tests",
      defaultText: 'none: the exit code decides',
    }),
    cross_tests: z.boolean().default(false).meta({
      description:
        "also run each finalist's own new test files (added by its commit, below a folder, names such as `*.test.*` or `test_*.py`) on the other finalists, never on its own; they join the matrix as tests written by rivals, and count as passed for their author",
    }),
    timeout: limitOr('15m', 'stop the tester at once').meta({ description: "limit of the tester's call" }),
    test_timeout: limitOr('2m', 'fail every test at once').meta({
      description: 'limit of one run of one test file; a test that times out anywhere is dropped',
    }),
    max_cost_usd: usd.optional().meta({
      description: "the most the tester's call may cost; the step is skipped when the run's `[budget]` has less than this left",
      defaultText: "no limit of its own (the run's budget still counts it)",
    }),
    seed: nonEmpty.optional().meta({
      description: "the seed of the finalists' labels in the tester's prompt; the report records it",
      defaultText: 'a new random seed per run',
    }),
  })
  .optional()
  .meta({
    title: 'distinguishing tests',
    description:
      "After the final scoring, when finalists tie (or always), a tester agent writes test files that pin down the task's behaviour where the finalists' diffs differ; every file runs on every finalist and on base, and the finalists are ranked by dual execution agreement (CodeT): a group of finalists that agree on every test scores its size times the tests it passes; the best group wins, `tie_break` inside it. Nothing the tester writes is merged. See docs/distinguish.md.",
  });

export type DistinguishSpec = NonNullable<z.output<typeof distinguish>>;
