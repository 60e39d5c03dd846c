/**
 * The spec language: one zod schema, the single source of truth for the TOML keys, their
 * types, their defaults, their descriptions and the error messages. Every table is strict,
 * so a typo in a key is an error instead of a silently ignored setting.
 *
 * Every key carries `.meta({ description })`: the spec reference (docs/spec.md) and
 * configs/bestof.schema.json are generated from it (`npm run gen:spec`, see reference.ts).
 * Put `.meta()` on the outermost wrapper (after `.optional()` / `.default()`), so the walker in
 * schema-walk.ts and zod's JSON Schema both see it.
 *
 * Sections that later features give behaviour to (vote, shannon, bench) are part of the
 * language already, so that specs written today keep their meaning.
 */
import { z } from 'zod';
import {
  check,
  count,
  limit,
  limitOr,
  MERGE_MODES,
  missingKindKey,
  nonEmpty,
  phase,
  programString,
  providerDefaults,
  providerKind,
  providerKindSettings,
  providerOverride,
  size,
  stopOthers,
  TIE_BREAKS,
  usd,
  voter,
  wait,
} from './schema-parts.js';
import { distinguish } from './schema-distinguish.js';
import { checkKeyProblems } from './check-key-rules.js';

export { durationInput, limitInput, MERGE_MODES, PROVIDER_KINDS, providerKind, TIE_BREAKS, type ProviderKind, type SpecKeyMeta } from './schema-parts.js';

export const specSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected letters, digits, ".", "_" or "-" (it becomes part of branch names)')
      .max(60, 'expected at most 60 characters')
      .default('bestof')
      .meta({ description: 'name of the run, used in run ids and branch names (letters, digits, `.`, `_`, `-`)' }),
    repo: nonEmpty.optional().meta({ description: 'the git repo to work on, relative to the spec file', defaultText: 'the repo holding the spec' }),
    base: nonEmpty.default('HEAD').meta({ description: 'the commit every worktree starts from' }),

    prompt: z
      .strictObject(
        {
          text: nonEmpty.optional().meta({ description: 'the task (required, or `file`)' }),
          file: nonEmpty.optional().meta({ description: 'a file with the task', pathRule: 'existing-file' }),
          retry_prompt_file: nonEmpty
            .optional()
            .meta({ description: "the prompt for iteration 2 and later (the loop's context is appended)", pathRule: 'existing-file' }),
          output_file: nonEmpty
            .optional()
            .meta({ description: 'where the agent keeps its output, a path inside the repo; retries are told to build on it', pathRule: 'inside-repo' }),
        },
        {
          error: (issue) => (issue.input === undefined ? 'the task is required: add a [prompt] table with `text = "..."` or `file = "prompt.md"`' : undefined),
        },
      )
      .refine((p) => p.text !== undefined || p.file !== undefined, {
        message: 'the task is required: set `text = "..."` or `file = "prompt.md"`',
      })
      .refine((p) => !(p.text !== undefined && p.file !== undefined), {
        message: 'set either `text` or `file`, not both',
      })
      .meta({ title: 'the task', description: 'What every candidate is asked to do: `text` or `file`, the one key without a default.' }),

    loop: z
      .strictObject({
        max_iterations: count(1).max(100, 'expected at most 100 (the hard limit of iterations)').optional().meta({
          description: 'most iterations per candidate (a hard limit of 100 holds whatever the spec says)',
          defaultText: "`1`, or the phases' total",
        }),
        score_threshold: z.number().nonnegative().optional().meta({
          description: 'a candidate stops once its score reaches this (unless the reviewer refused)',
          defaultText: "every point (all checks and the review's LGTM)",
        }),
        allow_regression: z.boolean().default(true).meta({ description: '`false` stops a candidate whose score drops' }),
        checkpoint: z.boolean().default(true).meta({ description: '`false`: `bestof resume` refuses the run' }),
        duration: limit('stop every candidate at once', 'no limit')
          .optional()
          .meta({ description: 'wall-clock limit per candidate; its agent call is cut at the limit' }),
        run_duration: limit('stop the run at once', 'no limit')
          .optional()
          .meta({ description: 'wall-clock limit of the whole run (counted from the start, or from a resume)' }),
        rate_limit_backoff: wait.prefault('10s').meta({ description: 'first wait after a rate limit; doubles each time (±20% jitter, at most 5 minutes)' }),
        max_rate_limit_waits: count(0).default(8).meta({ description: 'rate-limit waits in a row before the candidate stops' }),
      })
      .prefault({})
      .meta({ description: "Each candidate's loop (prompt -> agent -> checks -> commit) and the rules that stop it." }),

    budget: z
      .strictObject({
        max_total_cost_usd: usd.optional().meta({ description: 'all candidates together: past it, no new iteration starts' }),
        max_candidate_cost_usd: usd.optional().meta({ description: 'per candidate: past it, that candidate starts no new iteration' }),
        warn_at_usd: usd.optional().meta({ description: "a warning line once the run's spending passes this" }),
      })
      .prefault({})
      .meta({ description: 'Spending limits in USD.' }),

    breaker: z
      .strictObject({
        same_failure_iterations: count(1).default(3).meta({ description: 'stop after the same set of failing checks N iterations in a row' }),
        error_iterations: count(1).default(3).meta({ description: 'stop after N agent errors in a row (crashed, refusal, timeout)' }),
        no_diff_iterations: count(1).default(3).meta({ description: 'stop after N iterations in a row that change nothing' }),
      })
      .prefault({})
      .meta({ description: 'Stops a candidate that is going nowhere.' }),

    provider: providerDefaults,
    providers: z
      .partialRecord(providerKind, providerKindSettings)
      .default({})
      .meta({ description: 'Limits and prices per agent kind, across all candidates: `[providers.claude]`, `[providers.codex]`, ...', keyName: 'kind' }),

    parallel: z
      .strictObject({
        candidates: count(1)
          .max(64, 'expected at most 64 candidates')
          .optional()
          .meta({ description: 'N, at most 64', defaultText: 'number of `providers` entries, or 3' }),
        max_concurrency: count(1).default(4).meta({ description: 'candidates that run at the same time' }),
        providers: z.array(providerOverride).default([]).meta({
          description:
            'the agents, one `[[parallel.providers]]` entry each, cycled over the candidates; an entry takes the keys of `[provider]` (above), all optional',
        }),
      })
      .prefault({})
      .meta({ description: 'How many candidates, and which agents they are.' }),

    prompts: z
      .array(phase)
      .default([])
      .meta({ title: 'phases', description: "Optional phases with their own prompt, iterations and model, run in order inside each candidate's loop." }),

    checks: z
      .strictObject({
        frozen: z.array(nonEmpty).default([]).meta({
          description:
            'git pathspec globs, relative to the repo root, restored from `base` before every check run and watched while the checks run (`test/**`, `scripts/check.sh`; a folder name covers what is under it); each must match a file of `base` (a typo would protect nothing); every `.gitattributes` is kept so too, whatever this list says',
          pathRule: 'repo-pathspec',
        }),
        protected: z.array(nonEmpty).default([]).meta({
          description:
            "git pathspec globs kept as in `base` like `frozen`, without the rule that each match a file of `base`: a candidate that adds, changes or deletes such a file cannot win (unless `select.allow_tampered`); for files that change what a check runs wherever they appear, such as a test runner's hooks and configuration (`**/conftest.py`, `**/*.dist-info/**`, `**/node_modules/**`)",
          pathRule: 'repo-pathspec',
        }),
        items: z.array(check).default([]).meta({ description: 'the checks, one `[[checks.items]]` entry each' }),
        editable: z.array(nonEmpty).default([]).meta({
          description:
            'an allow-list of git pathspec globs, relative to the repo root (`src/**`): changes outside it are reverted before scoring, never merged, and flag the candidate',
          defaultText: 'everything but `frozen` and `protected`',
          pathRule: 'repo-pathspec',
        }),
      })
      .prefault({})
      .meta({
        description:
          "Your commands, run against each candidate's committed work. Freeze everything your checks depend on (the tests, the check scripts, `package.json` if a check runs `npm test`), and protect the files the test runner would load if a candidate added them (`protected`): what is neither, the agents can change.",
      }),

    review: z
      .strictObject({
        enabled: z.boolean().default(true).meta({ description: "the table's presence turns the review on; `false` keeps it off" }),
        kind: providerKind.default('claude').meta({ description: "the reviewer's provider kind" }),
        model: nonEmpty.optional().meta({ description: 'its model' }),
        script: nonEmpty.optional().meta({ description: '`kind = "script"`: its steps file', pathRule: 'existing-file' }),
        command: nonEmpty.optional().meta({ description: '`kind = "command"`: its program' }),
        args: z.array(programString).default([]).meta({ description: '`kind = "command"`: its argv template' }),
        prompt_file: nonEmpty.optional().meta({
          description: "the judge's instructions (the task and the diff are appended)",
          defaultText: 'built-in code review',
          pathRule: 'existing-file',
        }),
        score: z.number().nonnegative().default(0).meta({ description: 'points for LGTM' }),
        timeout: limitOr('10m', 'stop every review call at once').meta({ description: 'limit of one review call' }),
      })
      .optional()
      .meta({
        title: 'an LLM judge',
        description:
          "Runs after the checks of every iteration, through any provider, on the candidate's diff (it may read the worktree; whatever it writes is discarded). The built-in instructions (`prompt_file` replaces them) ask it to refuse a change that passes the checks without doing the task: an early exit, a patched or silenced test framework, special-cased inputs, a switched-off linter. Its answer must end with the line `VERDICT: LGTM` or `VERDICT: REFUSE: <reason>`; only that last line counts. An answer without it is asked again once, then recorded as no verdict. LGTM earns `score` points; a REFUSE keeps the candidate going even at full score, and its reason goes into the next prompt.",
      }),

    vote: z
      .strictObject({
        enabled: z.boolean().default(false).meta({ description: 'turns the cross-review and vote on' }),
        cross_review: z.boolean().default(true).meta({ description: "candidates review each other's anonymised work before voting" }),
        method: z.enum(['borda', 'approval', 'plurality', 'pairwise']).default('borda').meta({
          description:
            'how ballots are counted; `pairwise` asks every voter about every pair, in both orders, and counts a pair only when both orders agree (Copeland)',
        }),
        weight: z
          .number()
          .min(0, 'expected a number from 0 to 1')
          .max(1, 'expected a number from 0 to 1')
          .default(0.5)
          .meta({ description: 'share of the final ranking that votes decide (0..1)' }),
        voters: z.array(voter).default([]).meta({
          description:
            'a jury (`j1`, `j2`… in the record), each `{ kind, model }` or a scripted `{ kind, script }` / `{ kind, command, args }`; default: every candidate whose agent ran votes through its own provider, never on its own work',
        }),
        material: z.enum(['diff', 'file']).default('diff').meta({
          description: "what voters judge: the candidate's diff against `base`, or the content of `output_file` in its final commit",
        }),
        output_file: nonEmpty.optional().meta({
          description: '`material = "file"`: the path, inside the repo, of the file each candidate writes (a draft)',
          pathRule: 'inside-repo',
        }),
        show_reviews: z.boolean().default(false).meta({
          description: "later voters see earlier voters' cross-reviews (anonymous, relabelled); voters then run one after another",
        }),
        formatter: nonEmpty.optional().meta({
          description: "a shell command run on each candidate's material before anonymising (it reads stdin, writes stdout), so that style is no fingerprint",
          defaultText: 'none',
        }),
        timeout: limitOr('10m', 'stop every voter call at once').meta({ description: 'limit of one voter call' }),
        seed: nonEmpty.optional().meta({
          description: "the seed of the voters' orders and the bootstrap; the report records it, and the same seed reproduces the orders",
          defaultText: 'a new random seed per run',
        }),
        max_material: size
          .prefault('200KB')
          .meta({ description: 'a longer material is cut, the same way for every candidate, and the cut is said in the prompt' }),
      })
      .refine((v) => !v.enabled || v.material !== 'file' || v.output_file !== undefined, {
        message: '`material = "file"` needs `output_file`',
        path: ['output_file'],
      })
      .prefault({})
      .meta({
        title: 'cross-review and vote',
        description:
          'After final scoring, the candidates that can win are judged blind by the candidates themselves (never their own) or by a jury; the ranking combines the check score and the vote by `weight`. See docs/vote.md.',
      }),

    select: z
      .strictObject({
        min_score: z.number().nonnegative().default(0).meta({ description: 'a candidate below this never wins' }),
        tie_break: z
          .array(z.enum(TIE_BREAKS))
          .default(['score', 'cost', 'diff_size', 'duration'])
          .meta({ description: 'order of equal scores; also `iterations`, `votes`' }),
        merge: z.enum(MERGE_MODES).default('merge').meta({ description: 'what happens to the winner (see docs/how-a-run-works.md, "Merge modes")' }),
        into: nonEmpty.optional().meta({ description: 'the branch to merge into', defaultText: 'the checked-out branch' }),
        allow_tampered: z.boolean().default(false).meta({
          description: "`true` lets a candidate that changed a frozen path win; its frozen-path changes are reverted in a commit of bestof's before the merge",
        }),
        distinguish,
        stop_others: stopOthers,
        allow_autorun: z.boolean().default(true).meta({
          description:
            '`false`: a candidate whose commit adds or changes files that run code in your checkout without being asked (`.envrc`, `.vscode/tasks.json`, git hook managers, CI workflows, `.gitmodules`, `.lfsconfig`) cannot win; either way such a winner is named in the ranking, the report and the merge line',
        }),
      })
      .prefault({})
      .meta({ description: 'How the winner is chosen and where it goes.' }),

    setup: z
      .strictObject({
        commands: z.array(nonEmpty).default([]).meta({ description: 'shell commands run once in every new worktree' }),
        copy: z
          .array(nonEmpty)
          .default([])
          .meta({ description: 'untracked files or folders copied into each worktree (inside the repo only)', pathRule: 'inside-repo' }),
        link: z.array(nonEmpty).default([]).meta({
          description:
            'untracked folders or files of the repo (e.g. `node_modules`) each worktree gets as a symbolic link to the original, shared by all candidates instead of copied: read-only to sandboxed agents, never committed (paths as in `setup.copy`: inside the repo, `*` allowed in the last segment)',
          pathRule: 'inside-repo',
        }),
        base_port: count(1).max(65_000).default(4100).meta({
          description:
            'candidate *i* gets `PORT = base_port + i`; the run of the report checks on base (as the run starts, beside the agents) gets `base_port`',
        }),
        timeout: limitOr('10m', 'stop every setup command at once').meta({ description: 'limit of each setup command' }),
      })
      .prefault({})
      .meta({ description: 'What every new worktree gets before iteration 1.' }),

    git: z
      .strictObject({
        auto_commit: z.boolean().default(true).meta({ description: 'must stay `true`: every iteration is committed so nothing is lost' }),
        branch_prefix: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'expected a git branch prefix such as "bestof"')
          .default('bestof')
          .meta({ description: 'branches are `<prefix>/<run>/<candidate>`' }),
        keep_worktrees: z.boolean().default(false).meta({ description: 'keep the worktrees after the run (`bestof clean` removes them later)' }),
        worktrees: z.enum(['plain', 'copy-on-write']).default('plain').meta({
          description:
            '`"copy-on-write"`: one checkout of `base` shared by every candidate, each with an overlayfs layer of its own, so a candidate costs what it changes, not what the repo holds (Linux 5.11+, no root: bestof runs itself in a user and mount namespace; where that cannot be done it says so and uses plain worktrees). `"plain"`: one `git worktree add` per candidate',
        }),
        max_file_size: size.prefault('10MB').meta({
          description:
            'a file an agent adds or grows past this size is left out of its commits, and a warning names it: once committed, a file stays in `.git` for good (a file the repo already holds at that size may still be edited). A size such as `"10MB"` or `"500KB"` (1 KB = 1024 bytes), a number of bytes, or `"off"`',
        }),
      })
      .prefault({})
      .meta({ description: 'Branches and worktrees.' }),

    sandbox: z
      .strictObject({
        mode: z.enum(['auto', 'required', 'off']).default('auto').meta({
          description:
            '`auto`: bubblewrap when it works, else one warning line that says what is not protected; `required`: refuse to run without it; `off`: no sandbox',
        }),
        checks: z.boolean().default(true).meta({
          description:
            "when the agents run in the sandbox, the checks (and `[setup]` commands run again before them) run in one too: they can write the worktree, a private `/tmp` and a fresh HOME, read the git dirs and toolchain homes, and see nothing else of yours; `false` runs them as you, outside it (for a check that reads files of your HOME by their full path, uses a socket in `/tmp`, or writes a toolchain cache); either way a check's HOME is a fresh folder of its own, so `~` in a check is not yours",
        }),
        hide: z.array(nonEmpty).default([]).meta({
          description:
            "more folders no sandboxed process (agent or check) sees, relative to the spec file's folder: a folder of answers or keys outside the repo that the agents must not read (`bestof bench` puts a task's oracle folders here)",
          pathRule: 'existing-folder',
        }),
        check_network: z.enum(['own', 'shared']).default('own').meta({
          description:
            "the network of a check in the sandbox. `own`: a network of its own with only a loopback, so that a port one candidate's tests listen on never meets another's, and nothing running beside it (a rival's agent or check) can hold or answer on its ports; no Internet, and no TCP to servers on your machine (Unix sockets still work). `shared`: your machine's network, for a check that talks to a local database over TCP or to the Internet. The `[setup]` commands run again before the checks always get the shared network (an install downloads)",
        }),
      })
      .prefault({})
      .meta({
        description:
          'Every agent process (candidate and reviewer), and by default every check, runs in a bubblewrap sandbox (Linux): it can write its own worktree, a private `/tmp` and a HOME of its own, and nothing else; see docs/protection.md.',
      }),

    shannon: z
      .strictObject({
        command: nonEmpty.default('claude').meta({
          description:
            'the Claude Code program of `kind = "shannon"` candidates: a name on PATH or a path relative to the spec (a candidate\'s own `command` wins)',
        }),
        startup_timeout: limitOr('60s', 'fail every session before it shows its prompt').meta({
          description: 'limit for the session to show its prompt; past it the call fails with the screen it is stuck on',
        }),
        idle_timeout: limitOr('2m', 'fail every turn at once').meta({
          description: 'a turn whose screen does not change and whose hooks do not fire for this long fails with the screen (a dialog no hook sees)',
        }),
        hold_timeout: limitOr('20m', 'let every turn end before its iteration is scored').meta({
          description:
            'how long the Stop hook is held while bestof scores the iteration; scoring that takes longer lets the turn end, and the next prompt is typed instead',
        }),
      })
      .prefault({})
      .meta({
        title: 'interactive Claude Code in tmux',
        description:
          'The `shannon` provider: Claude Code interactive in a tmux session per candidate, one turn per iteration, driven through its hooks; `bestof attach` watches it (see docs/providers.md).',
      }),
  })
  .superRefine((spec, ctx) => {
    const names = new Set<string>();
    spec.checks.items.forEach((item, index) => {
      if (names.has(item.name)) {
        ctx.addIssue({ code: 'custom', path: ['checks', 'items', index, 'name'], message: `duplicate check name "${item.name}": names must be unique` });
      }
      names.add(item.name);
      for (const problem of checkKeyProblems(item)) ctx.addIssue({ code: 'custom', path: ['checks', 'items', index, problem.key], message: problem.message });
    });
    const entries = spec.parallel.providers.length > 0 ? spec.parallel.providers : [{}];
    entries.forEach((entry, index) => {
      const kind = entry.kind ?? spec.provider.kind;
      const path = spec.parallel.providers.length > 0 ? ['parallel', 'providers', index] : ['provider'];
      const missing = missingKindKey(kind, (key) => Boolean(entry[key] ?? spec.provider[key]));
      if (missing) ctx.addIssue({ code: 'custom', path: [...path, missing.key], message: missing.message });
    });
    if (!spec.git.auto_commit) {
      // Committing every iteration is what keeps a candidate's work safe (crash, timeout,
      // Ctrl-C) and what the frozen checks score, so it cannot be turned off.
      ctx.addIssue({
        code: 'custom',
        path: ['git', 'auto_commit'],
        message:
          'auto_commit = false is not supported: bestof commits every iteration so that no work is lost and the checks score exactly what was committed; remove the key',
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
