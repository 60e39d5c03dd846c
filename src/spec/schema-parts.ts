/**
 * The building blocks of the spec's schema (./schema.ts): value types (durations, amounts,
 * counts), the keys of one agent (`[provider]` and each `[[parallel.providers]]` entry), the
 * per-kind settings, a check, a phase and a voter. The same rules as schema.ts hold: every key
 * has its `.meta({ description })`, on the outermost wrapper.
 */
import { type KindInSpec, PROVIDER_KIND_FACTS } from './provider-kinds.js';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { parseSize } from './size.js';

/** What a key's `.meta()` may say besides zod's own `description` and `title`. */
export interface SpecKeyMeta {
  readonly description?: string;
  /** The heading of a top-level table in the reference ("the task"). */
  readonly title?: string;
  /** The default as the reference shows it, where the schema has no default value to show. */
  readonly defaultText?: string;
  /**
   * The file rule the loader applies to the key's path (or to each path of a list):
   * - `existing-file`: relative to the spec's folder, must be a file that exists;
   * - `existing-folder`: relative to the spec's folder, must be a folder that exists;
   * - `inside-repo`: relative to the repo root, must not leave the repo (no absolute path, no `..` out);
   * - `repo-pathspec`: a git pathspec glob of the repo, must not leave it with `..` (a leading `/`
   *   is the repo root, as src/checks/frozen.ts reads it; `:` magic is git's to check).
   */
  readonly pathRule?: 'existing-file' | 'existing-folder' | 'inside-repo' | 'repo-pathspec';
  /** A table with free keys: what its keys name, for the reference (`providers.<kind>`). */
  readonly keyName?: string;
}

declare module 'zod' {
  // Typed `.meta()` for the fields above (zod's documented way to extend its metadata).
  interface GlobalMeta extends Omit<SpecKeyMeta, 'description' | 'title'> {}
}

const DURATION_EXPECTED = 'expected a duration like "90s", "15m" or "2h", or a number of seconds';

/**
 * What a duration may be written as: a string ("90s", "15m", "2h", "1h30m", "500ms") or a bare
 * number of seconds (`timeout = 90`). reference.ts describes the two to JSON Schema by their
 * identity: `durationInput` for a wait that may be 0, `limitInput` for a limit, which may not.
 */
export const durationInput = z.union([z.string(), z.number()], { error: DURATION_EXPECTED });
export const limitInput = z.union([z.string(), z.number()], { error: DURATION_EXPECTED });

/**
 * A wait ("10s"), parsed to milliseconds; 0 is a wait like any other (no wait). Defaults are
 * given with `.prefault("10s")` (an input, parsed like any other) so the docs show them as written.
 */
export const wait = durationInput.transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `${DURATION_EXPECTED}, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return ms;
});

/**
 * A limit ("15m"), parsed to milliseconds, more than 0. A limit of 0 is refused rather than
 * read as "no limit": it would cut every call at once, and a reader cannot tell which of the
 * two the writer meant. `zeroWould` says what 0 would do to this key ("stop every agent call
 * at once"), `withoutKey` what leaving the key out gives ("the default (15m)", "no limit").
 */
export function limit(zeroWould: string, withoutKey: string) {
  return limitInput.transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `${DURATION_EXPECTED}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    if (ms <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration of more than 0, got ${JSON.stringify(value)}: a limit of 0 would ${zeroWould}; remove the key for ${withoutKey}`,
      });
      return z.NEVER;
    }
    return ms;
  });
}

/** A limit with a default, written as an input ("15m") so the docs show it as written. */
export function limitOr(defaultValue: string, zeroWould: string) {
  return limit(zeroWould, `the default (${defaultValue})`).prefault(defaultValue);
}

/** Sizes as `parseSize` reads them, for editors (the JSON Schema): "10MB", "500 KB", "1.5g", "off". */
const SIZE_PATTERN = '^\\s*([oO][fF][fF]|\\d+(\\.\\d+)?\\s*([bB]|[kKmMgG]([iI]?[bB])?)?)\\s*$';
const SIZE_EXPECTED = 'expected a size like "10MB" or "500KB", a number of bytes, or "off"';

/** What a size may be written as: the pattern and the minimum are for the JSON Schema (zod copies `.meta()` there). */
export const sizeInput = z.union([z.string().meta({ pattern: SIZE_PATTERN }), z.number().meta({ minimum: 1 })], { error: SIZE_EXPECTED });

/**
 * A size ("10MB", "500KB", a number of bytes), parsed to bytes; `"off"` is no limit (undefined).
 * `0` is refused rather than read as "off": as a limit it would leave out every file, and a
 * reader cannot tell which of the two the writer meant.
 */
export const size = sizeInput.transform((value, ctx): number | undefined => {
  const bytes = parseSize(value);
  if (bytes === 'off') return undefined;
  if (bytes === undefined || bytes === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${SIZE_EXPECTED}, got ${JSON.stringify(value)}${bytes === 0 ? ' (0 would leave out every file; "off" is no limit)' : ''}`,
    });
    return z.NEVER;
  }
  return bytes;
});

/**
 * A NUL byte (TOML's `\u0000`) in a string that becomes a program's argument or environment (a
 * command, an argument, an `env` value, a path): no program can be given one, so the run would
 * fail at the first start of it; refused here, with its position.
 */
const NUL_BYTE = 'holds a NUL byte (\\u0000), which no program can be given: remove it';
const noNulByte = (text: string): boolean => !text.includes('\0');
/** A string that may be handed to a program (see NUL_BYTE). */
export const programString = z.string().refine(noNulByte, NUL_BYTE);

export const nonEmpty = z.string().trim().min(1, 'expected a non-empty string').refine(noNulByte, NUL_BYTE);
export const usd = z.number().nonnegative('expected an amount in USD of 0 or more');
export const count = (min: number) => z.number().int('expected a whole number').min(min, `expected a whole number of at least ${min}`);

/**
 * The provider kinds of the spec language, in the order they are listed, with what the spec itself
 * checks of them: generated from the provider table (src/providers/table.ts, a row per kind), which
 * the spec layer may not import. Adding a provider is its file and its row, then `npm run gen:spec`.
 */
const KINDS = PROVIDER_KIND_FACTS;

export const PROVIDER_KINDS = Object.keys(KINDS) as (keyof typeof KINDS)[];
export const providerKind = z.enum(PROVIDER_KINDS);
export type ProviderKind = z.infer<typeof providerKind>;

/**
 * The problem of an agent of `kind` that lacks the key its kind needs (`kind = "command"` without
 * its program), or undefined. `has` says whether the agent's settings give that key.
 */
export function missingKindKey(
  kind: ProviderKind,
  has: (key: 'command' | 'script') => boolean,
): { readonly key: string; readonly message: string } | undefined {
  const needs = (KINDS as Readonly<Record<ProviderKind, KindInSpec>>)[kind].needs;
  if (!needs || has(needs.key)) return undefined;
  return { key: needs.key, message: `kind = "${kind}" needs \`${needs.key} = "${needs.example}"\`` };
}

/** "`claude`, `codex`, `shannon` (a note) or `script`": the kinds, for a key's description. */
function kindsInWords(): string {
  const words = PROVIDER_KINDS.map((kind) => {
    const { note } = KINDS[kind] as KindInSpec;
    return note ? `\`${kind}\` (${note})` : `\`${kind}\``;
  });
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

export const MERGE_MODES = ['merge', 'squash', 'ff', 'branch', 'pr', 'none'] as const;
export const TIE_BREAKS = ['score', 'cost', 'diff_size', 'duration', 'votes', 'iterations'] as const;

/** `[select] stop_others`: whether the other candidates stop once one that can win reaches the threshold (src/engine/loop/others-stop.ts). */
export const stopOthers = z.enum(['on_threshold', 'never']).default('never').meta({
  description:
    '`"on_threshold"`: once a candidate reaches `loop.score_threshold` and could win (no frozen path changed, `min_score` reached, …), the others finish the step they are in and start no new iteration (their work is kept on their branches); `"never"`: every candidate runs its own loop to its end',
});

/**
 * Settings of one agent. `[provider]` holds the defaults; every `[[parallel.providers]]`
 * entry overrides some of them for the candidates it is given to. The descriptions live
 * here, once, for both.
 */
const providerFields = {
  kind: providerKind.meta({ description: kindsInWords() }),
  model: nonEmpty.optional().meta({ description: '`--model` / `-m`; for `command`, `{model}`', defaultText: "the CLI's default" }),
  label: nonEmpty.optional().meta({ description: 'name in the output and the report', defaultText: 'kind and model' }),
  command: nonEmpty.optional().meta({
    description:
      'the program: for `command` required; for `claude`/`codex`/`gemini` another binary than the one on PATH (a path relative to the spec, or a name on PATH)',
    defaultText: "the CLI's name",
  }),
  args: z.array(programString).meta({
    description:
      'arguments; for `command`, a template with `{prompt}` `{prompt_file}` `{cwd}` `{model}` `{iteration}` `{candidate}` (default: `["{prompt}"]`; one argument holds at most 128 KiB on Linux, so a longer prompt needs `{prompt_file}`, a file that holds it)',
  }),
  env: z.record(programString, programString).meta({
    description:
      'extra environment for the agent; it also gets the environment of bestof, `BESTOF_RUN`, `BESTOF_CANDIDATE`, `BESTOF_INDEX` and `PORT` (inside the sandbox, `HOME` is its own)',
  }),
  timeout: limit('stop every agent call at once', 'the default')
    .optional()
    .meta({ description: 'limit of one agent call; the process tree is killed past it' }),
  script: nonEmpty.optional().meta({ description: '`kind = "script"`: the steps file (see docs/providers.md, "Script files")', pathRule: 'existing-file' }),
  isolate_config: z.boolean().meta({
    description:
      '`true`: a fresh config folder per candidate in the run folder, with the minimal settings the CLI needs (said in the output); `false`: your own login and settings, never modified',
  }),
  max_turns: count(1).optional().meta({ description: 'Claude `--max-turns`; Gemini only with `isolate_config = true` (it has no flag for it)' }),
  permission_mode: nonEmpty.optional().meta({
    description:
      "Claude Code `--permission-mode`. In bestof's sandbox the default lets the agent run every tool (a shell, the tests) unattended, bestof setting `IS_SANDBOX=1`; without it, edits inside the worktree run unattended and other tools (shell) are denied and shown",
    defaultText: '`"bypassPermissions"` in the sandbox, else `"acceptEdits"`',
  }),
  append_system_prompt: z.string().optional().meta({ description: 'Claude `--append-system-prompt`' }),
  sandbox: nonEmpty.optional().meta({
    description:
      'Codex `--sandbox`; `"bypass"` turns off its approvals and sandbox (in bestof\'s sandbox Codex\'s own one fails every write once bubblewrap is installed)',
    defaultText: '`"bypass"` in the sandbox, else `"workspace-write"`',
  }),
  approval_mode: nonEmpty.optional().meta({
    description: 'Gemini `--approval-mode`; `"yolo"` allows every tool, `"auto_edit"` edits only',
    defaultText: '`"yolo"` in the sandbox, else `"auto_edit"`',
  }),
  config: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .meta({ description: 'Codex `-c key=value` overrides' }),
} as const;

export const providerDefaults = z
  .strictObject({
    ...providerFields,
    kind: providerFields.kind.default('claude'),
    args: providerFields.args.default([]),
    env: providerFields.env.default({}),
    timeout: limitOr('15m', 'stop every agent call at once').meta({ description: 'limit of one agent call; the process tree is killed past it' }),
    isolate_config: providerFields.isolate_config.default(false),
  })
  .prefault({})
  .meta({
    title: 'the agents',
    description:
      "`[provider]` holds the defaults of every candidate's agent; each `[[parallel.providers]]` entry overrides some of them, and the entries are cycled over the candidates. An agent runs in its worktree with stdin closed.",
  });

/** One `[[parallel.providers]]` entry: every key optional, falling back to `[provider]`. */
export const providerOverride = z.strictObject({
  ...providerFields,
  kind: providerFields.kind.optional(),
  args: providerFields.args.optional(),
  env: providerFields.env.optional(),
  isolate_config: providerFields.isolate_config.optional(),
});

const pricePerMillion = z.strictObject({
  input: usd.meta({ description: 'USD per million input tokens' }),
  output: usd.meta({ description: 'USD per million output tokens' }),
  cache_read: usd.optional().meta({ description: 'USD per million tokens read from the prompt cache' }),
  cache_write: usd.optional().meta({ description: 'USD per million tokens written to the prompt cache' }),
});

export const providerKindSettings = z.strictObject({
  max_concurrency: count(1).optional().meta({ description: 'at most this many calls of this agent kind at once', defaultText: 'unlimited' }),
  prices: z.record(z.string(), pricePerMillion).optional().meta({
    description: 'USD per million tokens by model, to estimate the cost of Codex and Gemini (Claude reports its own); estimated costs are marked so',
    defaultText: '`configs/prices.toml`',
    keyName: 'model',
  }),
});

/** The machine reports a check may name (`report`): src/checks/test-report/. */
export const TEST_REPORT_KINDS = ['junit', 'tap', 'go-json'] as const;
export type TestReportKind = (typeof TEST_REPORT_KINDS)[number];

/** A check's role in `bestof bench` (SWE-bench's): what "resolved" means for a task. A run scores every kind the same, but never runs an `oracle`. */
export const CHECK_KINDS = ['score', 'fail_to_pass', 'pass_to_pass', 'oracle'] as const;

export const check = z.strictObject({
  name: nonEmpty.meta({ description: 'unique name, shown in the dashboard and the report' }),
  command: nonEmpty.meta({ description: "a shell command (bash) of the spec author's, run in the candidate's worktree; exit 0 passes" }),
  score: z.number().nonnegative('expected points of 0 or more').default(1).meta({ description: 'points for passing' }),
  timeout: limitOr('10m', 'fail the check at once').meta({ description: 'the check fails past this' }),
  from_iteration: count(1).default(1).meta({ description: 'curriculum: the check counts from this iteration on' }),
  kind: z.enum(CHECK_KINDS).default('score').meta({
    description:
      '`bestof bench`: `"fail_to_pass"` (the task is resolved only when it passes) or `"pass_to_pass"` (it must still pass); `"score"` only scores. A task without roles is resolved when every check passes. `"oracle"`: never scored nor shown to a candidate; `bestof bench` runs it itself on every candidate\'s final commit after the trial, to measure how often each selection policy picks a right one (docs/bench.md); `bestof run` ignores it',
  }),
  report: z.enum(TEST_REPORT_KINDS).optional().meta({
    description:
      'the machine report the check\'s runner writes, read test by test: `"junit"` (JUnit XML files the check writes into `$BESTOF_REPORT_DIR`), `"tap"` (TAP on stdout) or `"go-json"` (`go test -json` on stdout). The check then also runs on `base` as the run starts, and passes only when it exits 0 and its report holds every test of base, each passing: those that passed on base and those that failed there (the task\'s targets). A missing test is never read as skipped',
    defaultText: 'none: the exit code decides',
  }),
  expect: nonEmpty.optional().meta({
    description:
      'with `kind = "oracle"` and `report`: a JSON file `{"tests": ["name", ...]}` (relative to the spec file\'s folder) naming the tests that must pass, by their names in the report; `bestof bench`\'s oracle then passes when every one of them is in the report and passed, whatever the exit code and the other tests (a test missing from the report fails it)',
    defaultText: 'none: the exit code decides',
    pathRule: 'existing-file',
  }),
  partial: z.boolean().optional().meta({
    defaultText: '`false`',
    description:
      'with `report`: score × passed / expected (the tests base ran) instead of all or nothing; the tests still failing are named in the next prompt',
  }),
  hidden: nonEmpty.optional().meta({
    description:
      "a folder of files no agent ever sees (relative to the spec file's folder, outside the repo; files and folders only, no links), laid into the scoring tree at `into` only while this check runs; the sandbox hides it from the agents, and the agents are told only how many tests of it failed",
    pathRule: 'existing-folder',
  }),
  into: nonEmpty.optional().meta({
    description:
      "with `hidden`: where its files appear in the scoring tree, relative to the repo root: a place that base does not have and setup does not make (the hidden files never replace a file the agents see); a candidate's commit that puts something there fails the check",
    pathRule: 'inside-repo',
  }),
  show_output: z
    .boolean()
    .optional()
    .meta({ defaultText: '`false`', description: "with `hidden`: the check's output goes into the next prompt as any check's does" }),
});

export const phase = z
  .strictObject({
    name: nonEmpty.meta({ description: "the phase's name (shown per iteration)" }),
    file: nonEmpty
      .optional()
      .meta({ description: "a file with the phase's instructions, added to the task (set `file` or `text`)", pathRule: 'existing-file' }),
    text: nonEmpty.optional().meta({ description: "the phase's instructions, added to the task (set `file` or `text`)" }),
    iterations: count(1).default(1).meta({ description: 'iterations of this phase' }),
    model: nonEmpty.optional().meta({ description: 'the model for this phase', defaultText: "the agent's" }),
    score_threshold: z.number().nonnegative().optional().meta({ description: 'the phase ends early once the score reaches this' }),
  })
  .refine((p) => p.file !== undefined || p.text !== undefined, { message: 'a phase needs `file` or `text`' });

export const voter = z.strictObject({
  kind: providerKind.meta({ description: "the voter's provider kind" }),
  model: nonEmpty.optional().meta({ description: "the voter's model" }),
  script: nonEmpty.optional().meta({ description: '`kind = "script"`: its steps file', pathRule: 'existing-file' }),
  command: nonEmpty.optional().meta({ description: '`kind = "command"`: its program' }),
  args: z.array(programString).default([]).meta({ description: '`kind = "command"`: its argv template' }),
});
