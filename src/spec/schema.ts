/**
 * The spec language: one zod schema, the single source of truth for the TOML keys,
 * their types, their defaults and the error messages. Every table is strict, so a
 * typo in a key is an error instead of a silently ignored setting.
 *
 * Sections that later features give behaviour to (review, vote, shannon, bench) are
 * part of the language already, so that specs written today keep their meaning.
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';

/** A duration string ("90s", "15m", "2h"), parsed to milliseconds. */
const duration = z
  .union([z.string(), z.number()], { error: 'expected a duration like "90s", "15m" or "2h"' })
  .transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected a duration like "90s", "15m" or "2h", got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return ms;
  });

const nonEmpty = z.string().trim().min(1, 'expected a non-empty string');
const usd = z.number().nonnegative('expected an amount in USD of 0 or more');
const count = (min: number) => z.number().int('expected a whole number').min(min, `expected a whole number of at least ${min}`);

export const PROVIDER_KINDS = ['claude', 'codex', 'gemini', 'shannon', 'command', 'script'] as const;
export const providerKind = z.enum(PROVIDER_KINDS);
export type ProviderKind = z.infer<typeof providerKind>;

export const MERGE_MODES = ['merge', 'squash', 'ff', 'branch', 'pr', 'none'] as const;
export const TIE_BREAKS = ['score', 'cost', 'diff_size', 'duration', 'votes', 'iterations'] as const;

/**
 * Settings of one agent. `[provider]` holds the defaults; every `[[parallel.providers]]`
 * entry overrides some of them for the candidates it is given to.
 */
const providerFields = {
  kind: providerKind,
  /** Model name passed to the CLI (`--model`, `-m`); the CLI's own default when unset. */
  model: nonEmpty.optional(),
  /** A label for the UI and the report, e.g. "claude-opus"; default: kind and model. */
  label: nonEmpty.optional(),
  /** Extra CLI arguments, appended after the ones bestof builds. */
  args: z.array(z.string()),
  /** Extra environment for the agent process. */
  env: z.record(z.string(), z.string()),
  /** Wall-clock limit of one agent invocation; the whole process tree is killed past it. */
  timeout: duration,
  /** true: a fresh CLI config folder per run (CI); false: the user's own login and settings. */
  isolate_config: z.boolean(),
  /** kind = "command": the program to run; `args` may use {prompt} {prompt_file} {cwd} {model} {iteration} {candidate}. */
  command: nonEmpty.optional(),
  /** kind = "script": the scripted-steps file (relative to the spec). */
  script: nonEmpty.optional(),
  /** claude/gemini: the most agent turns per invocation. */
  max_turns: count(1).optional(),
  /** claude: permission mode (default "acceptEdits" plus allowed tools inside the worktree). */
  permission_mode: nonEmpty.optional(),
  /** claude: text for --append-system-prompt. */
  append_system_prompt: z.string().optional(),
  /** codex: sandbox mode ("workspace-write", "danger-full-access", ...) or "bypass". */
  sandbox: nonEmpty.optional(),
  /** gemini: "yolo" or an --approval-mode value. */
  approval_mode: nonEmpty.optional(),
  /** codex: `-c key=value` overrides. */
  config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
} as const;

const providerDefaults = z
  .strictObject({
    ...providerFields,
    kind: providerKind.default('claude'),
    args: providerFields.args.default([]),
    env: providerFields.env.default({}),
    timeout: duration.default(15 * 60_000),
    isolate_config: providerFields.isolate_config.default(false),
  })
  .prefault({});

/** One `[[parallel.providers]]` entry: every key optional, falling back to `[provider]`. */
const providerOverride = z.strictObject({
  ...providerFields,
  kind: providerKind.optional(),
  args: providerFields.args.optional(),
  env: providerFields.env.optional(),
  timeout: duration.optional(),
  isolate_config: z.boolean().optional(),
});

const pricePerMillion = z.strictObject({
  input: usd,
  output: usd,
  cache_read: usd.optional(),
  cache_write: usd.optional(),
});

/** `[providers.<kind>]`: limits and prices that apply to every candidate of that kind. */
const providerKindSettings = z.strictObject({
  /** How many invocations of this provider may run at once, across all candidates. */
  max_concurrency: count(1).optional(),
  /** USD per million tokens by model name, to estimate cost where the CLI does not report it. */
  prices: z.record(z.string(), pricePerMillion).optional(),
});

const check = z.strictObject({
  name: nonEmpty,
  /** A shell command of the spec author's, run in the candidate's worktree; exit 0 = pass. */
  command: nonEmpty,
  score: z.number().nonnegative('expected points of 0 or more').default(1),
  timeout: duration.default(10 * 60_000),
  /** Curriculum: the check counts from this iteration on. */
  from_iteration: count(1).default(1),
});

const phase = z
  .strictObject({
    name: nonEmpty,
    file: nonEmpty.optional(),
    text: nonEmpty.optional(),
    iterations: count(1).default(1),
    model: nonEmpty.optional(),
    score_threshold: z.number().nonnegative().optional(),
  })
  .refine((p) => p.file !== undefined || p.text !== undefined, { message: 'a phase needs `file` or `text`' });

const voter = z.strictObject({ kind: providerKind, model: nonEmpty.optional() });

export const specSchema = z
  .strictObject({
    /** Name of the run, used in run ids and branch names. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected letters, digits, ".", "_" or "-" (it becomes part of branch names)')
      .max(60, 'expected at most 60 characters')
      .default('bestof'),
    /** The git repo to work on, relative to the spec file; default: the repo that holds the spec. */
    repo: nonEmpty.optional(),
    /** The commit every worktree starts from. */
    base: nonEmpty.default('HEAD'),

    prompt: z
      .strictObject(
        {
          text: nonEmpty.optional(),
          file: nonEmpty.optional(),
          retry_prompt_file: nonEmpty.optional(),
          output_file: nonEmpty.optional(),
        },
        { error: (issue) => (issue.input === undefined ? 'the task is required: add a [prompt] table with `text = "..."` or `file = "prompt.md"`' : undefined) },
      )
      .refine((p) => p.text !== undefined || p.file !== undefined, {
        message: 'the task is required: set `text = "..."` or `file = "prompt.md"`',
      })
      .refine((p) => !(p.text !== undefined && p.file !== undefined), {
        message: 'set either `text` or `file`, not both',
      }),

    loop: z
      .strictObject({
        /** Default: 1, or the sum of the `[[prompts]]` phases' iterations. */
        max_iterations: count(1).max(100, 'expected at most 100 (the hard limit of iterations)').optional(),
        score_threshold: z.number().nonnegative().optional(),
        allow_regression: z.boolean().default(true),
        checkpoint: z.boolean().default(true),
        /** Wall-clock limit per candidate. */
        duration: duration.optional(),
        /** Wall-clock limit of the whole run. */
        run_duration: duration.optional(),
        /** First wait after a rate limit; it doubles (with jitter) at each further one. */
        rate_limit_backoff: duration.default(10_000),
        /** Rate-limit waits in a row before a candidate gives up. */
        max_rate_limit_waits: count(0).default(8),
      })
      .prefault({}),

    budget: z
      .strictObject({
        max_total_cost_usd: usd.optional(),
        max_candidate_cost_usd: usd.optional(),
        warn_at_usd: usd.optional(),
      })
      .prefault({}),

    breaker: z
      .strictObject({
        same_failure_iterations: count(1).default(3),
        error_iterations: count(1).default(3),
        no_diff_iterations: count(1).default(3),
      })
      .prefault({}),

    provider: providerDefaults,
    providers: z.partialRecord(providerKind, providerKindSettings).default({}),

    parallel: z
      .strictObject({
        /** N; default: one per `[[parallel.providers]]` entry, or 3. */
        candidates: count(1).max(64, 'expected at most 64 candidates').optional(),
        max_concurrency: count(1).default(4),
        providers: z.array(providerOverride).default([]),
      })
      .prefault({}),

    prompts: z.array(phase).default([]),

    checks: z
      .strictObject({
        /** Paths (git pathspec globs) restored from `base` before every check run. */
        frozen: z.array(nonEmpty).default([]),
        items: z.array(check).default([]),
      })
      .prefault({}),

    review: z
      .strictObject({
        enabled: z.boolean().default(true),
        kind: providerKind.default('claude'),
        model: nonEmpty.optional(),
        /** kind = "script": the reviewer's steps file; kind = "command": its program and argv template. */
        script: nonEmpty.optional(),
        command: nonEmpty.optional(),
        args: z.array(z.string()).default([]),
        prompt_file: nonEmpty.optional(),
        score: z.number().nonnegative().default(0),
        timeout: duration.default(10 * 60_000),
      })
      .optional(),

    vote: z
      .strictObject({
        enabled: z.boolean().default(false),
        cross_review: z.boolean().default(true),
        method: z.enum(['borda', 'approval', 'plurality']).default('borda'),
        weight: z.number().min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').default(0.5),
        voters: z.array(voter).default([]),
      })
      .prefault({}),

    select: z
      .strictObject({
        /** A candidate below this score never wins. */
        min_score: z.number().nonnegative().default(0),
        tie_break: z.array(z.enum(TIE_BREAKS)).default(['score', 'cost', 'diff_size', 'duration']),
        merge: z.enum(MERGE_MODES).default('merge'),
        /** Branch to merge into; default: the branch checked out in the repo. */
        into: nonEmpty.optional(),
      })
      .prefault({}),

    setup: z
      .strictObject({
        commands: z.array(nonEmpty).default([]),
        copy: z.array(nonEmpty).default([]),
        base_port: count(1).max(65_000).default(4100),
        timeout: duration.default(10 * 60_000),
      })
      .prefault({}),

    git: z
      .strictObject({
        auto_commit: z.boolean().default(true),
        branch_prefix: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'expected a git branch prefix such as "bestof"')
          .default('bestof'),
        keep_worktrees: z.boolean().default(false),
      })
      .prefault({}),

    /** Interactive Claude in tmux (reserved for the shannon provider). */
    shannon: z
      .strictObject({
        command: nonEmpty.default('claude'),
        startup_timeout: duration.default(60_000),
        idle_timeout: duration.default(120_000),
      })
      .prefault({}),

    /** `bestof bench`: repeat the run and write machine-readable results for CI. */
    bench: z
      .strictObject({
        repeat: count(1).default(1),
        junit: nonEmpty.optional(),
        output: nonEmpty.optional(),
      })
      .prefault({}),
  })
  .superRefine((spec, ctx) => {
    const names = new Set<string>();
    spec.checks.items.forEach((item, index) => {
      if (names.has(item.name)) {
        ctx.addIssue({ code: 'custom', path: ['checks', 'items', index, 'name'], message: `duplicate check name "${item.name}": names must be unique` });
      }
      names.add(item.name);
    });
    const entries = spec.parallel.providers.length > 0 ? spec.parallel.providers : [{}];
    entries.forEach((entry, index) => {
      const kind = entry.kind ?? spec.provider.kind;
      const path = spec.parallel.providers.length > 0 ? ['parallel', 'providers', index] : ['provider'];
      if (kind === 'command' && !(entry.command ?? spec.provider.command)) {
        ctx.addIssue({ code: 'custom', path: [...path, 'command'], message: 'kind = "command" needs `command = "path/to/agent"`' });
      }
      if (kind === 'script' && !(entry.script ?? spec.provider.script)) {
        ctx.addIssue({ code: 'custom', path: [...path, 'script'], message: 'kind = "script" needs `script = "path/to/steps.toml"`' });
      }
    });
    if (!spec.git.auto_commit) {
      // Committing every iteration is what keeps a candidate's work safe (crash, timeout,
      // Ctrl-C) and what the frozen checks score, so it cannot be turned off.
      ctx.addIssue({
        code: 'custom',
        path: ['git', 'auto_commit'],
        message: 'auto_commit = false is not supported: bestof commits every iteration so that no work is lost and the checks score exactly what was committed; remove the key',
      });
    }
  });

/** The spec as the TOML says it, before defaults (what `bestof init` writes). */
export type SpecInput = z.input<typeof specSchema>;
/** The spec with every default filled in: what the engine reads. */
export type Spec = z.output<typeof specSchema>;
export type CheckSpec = Spec['checks']['items'][number];
export type ProviderSettings = Spec['provider'];
export type ProviderOverride = Spec['parallel']['providers'][number];
export type PhaseSpec = Spec['prompts'][number];
export type MergeMode = Spec['select']['merge'];
export type TieBreak = Spec['select']['tie_break'][number];
