/**
 * What every provider (claude, codex, gemini, shannon, command, script) promises the engine.
 * A provider turns one request into one ProviderResult and never throws for anything the
 * agent did: a crash, a timeout or a rate limit is an `outcome`, and every outcome has its
 * own branch in the engine. "The process exited" is never taken to mean success.
 */
import type { Env } from '../env.js';
import type { LogRedactor } from '../process/types.js';
import type { SandboxLayout } from '../process/sandbox.js';
import type { Result } from '../result.js';
import type { ProviderKind, ProviderSettings, Spec } from '../spec/schema.js';
import type { Outcome } from './outcomes.js';
import type { Script } from './script-steps.js';

export { OUTCOMES, type Outcome } from './outcomes.js';

export interface TokenUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

export const ZERO_USAGE: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export interface ProviderResult {
  readonly outcome: Outcome;
  /** The agent's final answer (or the tail of its output). */
  readonly text: string;
  readonly usage: TokenUsage;
  readonly costUsd: number;
  /** true when the cost was computed from tokens and a price table, not reported by the CLI. */
  readonly costEstimated: boolean;
  readonly sessionId: string | undefined;
  readonly turns: number;
  readonly durationMs: number;
  /** For failures: what happened and what to do, in one line for the user. */
  readonly message?: string;
  /** rate_limited / usage_limit: how long the provider asked to wait, when it said. */
  readonly retryAfterMs?: number;
}

export interface ProviderRequest {
  readonly prompt: string;
  /** The candidate's worktree: the agent works here and nowhere else. */
  readonly cwd: string;
  readonly model: string | undefined;
  readonly iteration: number;
  readonly candidateId: string;
  /** The full environment of the agent process (inherited + spec env + BESTOF_* vars); HOME is replaced inside the sandbox. */
  readonly env: Env;
  readonly timeoutMs: number;
  /** A folder of the run folder for this candidate and iteration: prompt, raw output. */
  readonly artifactsDir: string;
  readonly signal: AbortSignal;
  /** Live activity (a tool call, a line of assistant text) for the UI. */
  readonly onActivity: (text: string) => void;
  /** The run's secret redaction, for what the provider writes into the run folder (prompt.md, invocation.json). @default nothing redacted */
  readonly redact?: ((text: string) => string) | undefined;
  /** The run's secret redaction for the raw log (output.log): a new redactor per process. @default none */
  readonly logRedactor?: (() => LogRedactor) | undefined;
  /**
   * The bubblewrap sandbox the agent's processes run in (see src/process/sandbox.ts), filled
   * by the engine per candidate; undefined: no sandbox (`[sandbox] mode = "off"`, or no bwrap).
   * Its `workdir` is replaced by `cwd`. The CLIs' autonomy defaults depend on it.
   */
  readonly sandbox?: SandboxLayout | undefined;
}

export interface Provider {
  readonly kind: ProviderKind;
  run(request: ProviderRequest): Promise<ProviderResult>;
  /** The real CLI providers (claude, codex, gemini) describe what they run; see ProviderDescription. */
  describe?(): Promise<ProviderDescription>;
  /**
   * Releases what the provider keeps between runs (a session, a terminal). The engine calls it
   * once a candidate (or reviewer) is done with the provider: when it ends, on cancel and on
   * crash paths. It is idempotent and never rejects; a run in flight is ended by its signal,
   * not by close().
   */
  close(): Promise<void>;
}

/**
 * What a provider runs, for the report (reproducibility): the CLI's version, the argv with
 * the prompt and secrets replaced by placeholders, and the model. Computed once per provider.
 */
export interface ProviderDescription {
  readonly kind: ProviderKind;
  /** Absolute path of the CLI. */
  readonly binary: string;
  /** First line of `<cli> --version`, or undefined when it could not be read. */
  readonly version: string | undefined;
  readonly argv: readonly string[];
  /** The model asked for, or undefined for the CLI's own default. */
  readonly model: string | undefined;
}

/** What prepareAgent resolved for one candidate's agent, before anything runs. */
export interface PreparedAgent {
  readonly script?: Script;
  /** Absolute path of the program to run. */
  readonly command?: string;
}

/** The agent is ready, or a one-line problem that names the spec key and says how to fix it. */
export type PrepareResult = Result<PreparedAgent>;

/** What the planner passes to prepareAgent. */
export interface PrepareOptions {
  /** The spec file's folder: relative paths (`command`, `script`) are resolved from it. */
  readonly specDir: string;
  /** The dotted spec key of these settings, for messages ("parallel.providers[1]"). */
  readonly key: string;
  /** Parsed script files by absolute path, shared by the candidates of one plan. */
  readonly scripts: Map<string, Script>;
  /** The agents will run in bestof's sandbox (the CLIs' autonomy defaults depend on it). @default false */
  readonly sandboxed?: boolean;
  /** The spec's `[shannon]` section (the shannon provider's program and limits). @default its defaults */
  readonly shannon?: Spec['shannon'];
}

/** What a definition's prepare gets besides the planner's options. */
export interface PrepareContext extends PrepareOptions {
  /** The install hint of a provider whose CLI is called `program`, if bestof knows it. */
  readonly installHintFor: (program: string) => string | undefined;
}

/** The spec's `[providers.<kind>]` table (limits and prices for every candidate of that kind). */
export type ProviderSection = Spec['providers'][ProviderKind];

/**
 * Everything bestof knows about one provider kind, loaded from its row of ./table.ts.
 * See the module doc of ./definitions.ts for how the parts are used.
 */
export interface ProviderDefinition<K extends ProviderKind = ProviderKind> {
  readonly kind: K;
  /** How to get the agent (install and log in), appended to "not found" messages; the only copy. */
  readonly installHint?: string;
  /**
   * Before a run: can this agent start? The binary is found, the script parses, credentials
   * are there, and no setting is one that cannot work. Only looks; never starts the agent.
   */
  prepare(settings: ProviderSettings, context: PrepareContext): Promise<PrepareResult>;
  /** The provider for one candidate, from what prepare resolved; throws only for bugs. */
  create(settings: ProviderSettings, agent: PreparedAgent, section: ProviderSection | undefined): Provider;
}
