/**
 * The shared run of a real agent CLI (claude, codex, gemini): build the argv, give it a fresh
 * config folder when the spec asks, spawn it in the worktree through runProcess (timeout and
 * cancel kill the whole process tree), inside the request's sandbox when there is one (with a
 * HOME of its own, seeded with the CLI's login: ./agent-home.ts), parse its JSON stream line
 * by line as it arrives, and classify the outcome. Each CLI's file supplies the argv, the
 * parser and the classifier.
 */
import type { Env } from '../env.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../process/run-process.js';
import { runAgentProcess } from '../process/sandbox.js';
import type { ProcessResult } from '../process/types.js';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import { seedAgentHome, type ConfigRoot } from './agent-home.js';
import type { ClassifyContext } from './classify-common.js';
import { isolatedConfigDir, prepareIsolatedConfig, type IsolateConfig } from './isolated-config.js';
import type { PriceTable } from './prices.js';
import type { Outcome, Provider, ProviderDescription, ProviderRequest, ProviderResult } from './types.js';
import { removeTree } from '../owned-tree.js';

/** A prompt longer than this goes through stdin: one argv string is limited to 128 KiB on Linux. */
export const MAX_PROMPT_ARG_BYTES = 100_000;

export interface CliCall {
  /** Arguments after the binary. */
  readonly args: readonly string[];
  /** Written to stdin, which is then closed; undefined: stdin is /dev/null. */
  readonly input?: string;
  /** Positions in `args` that hold the prompt, replaced by "<prompt>" in records. */
  readonly promptIndex?: number;
}

export interface StreamParser<S> {
  readonly state: S;
  push(line: string): void;
}

export interface CliOptions {
  /** Absolute path of the CLI, resolved by prepareAgent. */
  readonly binary: string;
  readonly settings: ProviderSettings;
  /** `[providers.<kind>.prices]` of the spec, over configs/prices.toml. */
  readonly prices?: PriceTable | undefined;
}

export interface CliAdapter<S> {
  readonly kind: ProviderKind;
  /** The CLI's name in messages. */
  readonly cli: string;
  readonly installHint: string;
  /** Variables removed from the child's environment. */
  readonly dropEnv?: readonly string[];
  /** Inside the sandbox: what the CLI needs in its own HOME to log in (paths relative to HOME; copied when they exist). */
  readonly homeSeed: readonly string[];
  /** The variable that moves the CLI's config folder out of HOME, if any. */
  readonly configRoot?: ConfigRoot;
  /** Variables set only inside the sandbox. */
  readonly sandboxEnv?: Readonly<Record<string, string>>;
  /** `isolate_config = true`: what the CLI needs in its fresh config folder (./isolated-config.ts). */
  readonly isolateConfig: IsolateConfig;
  buildCall(settings: ProviderSettings, request: CallInput): CliCall;
  createParser(onActivity: (text: string) => void): StreamParser<S>;
  classify(state: S, process: ProcessResult, ctx: ClassifyContext, request: ProviderRequest, note: (text: string) => void): ProviderResult;
  /**
   * Checked after every line: an outcome that is already certain while the CLI keeps retrying
   * (a refused key). bestof then stops the CLI and reports it, instead of waiting minutes.
   */
  earlyStop?(state: S): { outcome: Outcome; message: string } | undefined;
}

/** What an argv depends on besides the spec. */
export interface CallInput {
  readonly prompt: string;
  readonly model: string | undefined;
  /** A fresh session id (uuid) for CLIs that accept one. */
  readonly sessionId: string;
  /** The call runs in bestof's sandbox: the CLI's own prompts and sandbox default to off (the sandbox is the boundary). */
  readonly sandboxed: boolean;
}

export function createCliProvider<S>(adapter: CliAdapter<S>, options: CliOptions): Provider {
  let description: Promise<ProviderDescription> | undefined;
  return {
    kind: adapter.kind,
    run: (request) => runCli(adapter, options, request),
    describe: () => (description ??= describeCli(adapter, options)),
    // One process per run, ended with the run (or killed by its signal): nothing outlives it.
    close: async () => {},
  };
}

async function runCli<S>(adapter: CliAdapter<S>, options: CliOptions, request: ProviderRequest): Promise<ProviderResult> {
  const env = await childEnv(adapter, options.settings, request);
  const sandboxed = request.sandbox !== undefined;
  const call = adapter.buildCall(options.settings, { prompt: request.prompt, model: request.model, sessionId: crypto.randomUUID(), sandboxed });
  await recordInvocation(options, request, call);

  const parser = adapter.createParser(request.onActivity);
  const stopEarly = new AbortController();
  let early: { outcome: Outcome; message: string } | undefined;
  const isolatedDir = options.settings.isolate_config ? [isolatedConfigDir(adapter.kind, request.artifactsDir)] : [];
  const ran = await runAgentProcess(
    options.binary,
    call.args,
    {
      cwd: request.cwd,
      env,
      timeoutMs: request.timeoutMs,
      signal: AbortSignal.any([request.signal, stopEarly.signal]),
      logFile: join(request.artifactsDir, 'output.log'),
      ...(request.logRedactor ? { logRedactor: request.logRedactor() } : {}),
      onStdoutLine: (line) => {
        parser.push(line);
        if (early === undefined && adapter.earlyStop) {
          early = adapter.earlyStop(parser.state);
          if (early) stopEarly.abort();
        }
      },
      ...(call.input !== undefined ? { input: call.input } : {}),
    },
    request.sandbox,
    { writable: isolatedDir },
  );
  const ctx: ClassifyContext = { cli: adapter.cli, timeoutMs: request.timeoutMs, installHint: adapter.installHint };
  if (early && !request.signal.aborted) {
    // bestof stopped the CLI itself: the outcome is the one it saw coming, not "cancelled".
    const { retryAfterMs: _ignored, ...rest } = adapter.classify(parser.state, { ...ran, canceled: false }, ctx, request, request.onActivity);
    request.onActivity(`stopped ${adapter.cli}: ${early.message}`);
    return { ...rest, outcome: early.outcome, message: early.message };
  }
  return adapter.classify(parser.state, ran, ctx, request, request.onActivity);
}

/** The request's environment minus the CLI's unwanted variables, plus the isolated config folder. */
async function childEnv<S>(adapter: CliAdapter<S>, settings: ProviderSettings, request: ProviderRequest): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = { ...request.env };
  for (const name of adapter.dropEnv ?? []) delete env[name];
  if (request.sandbox) {
    Object.assign(env, adapter.sandboxEnv);
    // An isolated config never reads the user's login: nothing to seed then.
    const seed = settings.isolate_config ? { files: [] } : { files: adapter.homeSeed, configRoot: adapter.configRoot };
    Object.assign(env, await seedAgentHome(request.sandbox.home, seed, env));
  }
  if (settings.isolate_config) {
    const isolated = await prepareIsolatedConfig(adapter.kind, adapter.isolateConfig, {
      artifactsDir: request.artifactsDir,
      env,
      maxTurns: settings.max_turns,
    });
    Object.assign(env, isolated.env);
    request.onActivity(isolated.note);
  }
  return env;
}

/** A redactor of the run's secrets (src/engine/sandbox/secrets.ts `SecretSet.redact`): values and shapes. */
export type Redact = (text: string) => string;

/**
 * The run's redactor, when the engine hands one to the call. ProviderRequest has no field for it
 * yet (src/providers/types.ts is not this file's); until it has, the argv rules of redactArgs
 * still hold and prompt.md is written as is.
 */
export function requestRedactor(request: ProviderRequest): Redact | undefined {
  return request.redact;
}

/** prompt.md and invocation.json (the argv with the prompt and secrets redacted) in the run folder. */
async function recordInvocation(options: CliOptions, request: ProviderRequest, call: CliCall): Promise<void> {
  const redact = requestRedactor(request);
  const invocation = {
    binary: options.binary,
    argv: redactArgs(call.args, { promptIndex: call.promptIndex, redact }),
    model: request.model ?? null,
    isolateConfig: options.settings.isolate_config,
    sandboxed: request.sandbox !== undefined,
  };
  await writeFile(join(request.artifactsDir, 'prompt.md'), redact ? redact(request.prompt) : request.prompt).catch(() => undefined);
  await writeFile(join(request.artifactsDir, 'invocation.json'), `${JSON.stringify(invocation, null, 2)}\n`).catch(() => undefined);
}

/** A flag or variable name whose value is a secret: one of its words is a key, a token, a password... (`--api-key`, `--auth-token`; not `--max-tokens`). */
const SECRET_NAME_WORD =
  /^(key|apikey|token|secret|secrets|password|passwd|passphrase|pass|pwd|auth|credential|credentials|cookie|pat|bearer)$|(key|token|secret|password)$/i;
/** Headers whose value is a credential. */
const SECRET_HEADER = /^(proxy-)?authorization$|^cookie$|^set-cookie$|api-?key|auth|token|secret|session/i;
const SECRET_VALUE = /^(sk-|sk_|AIza|ya29\.|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abps]-|AKIA|ASIA)/;
/** A URL with a password: `scheme://user:pass@host`. */
const URL_CREDENTIALS = /(:\/\/)[^\s/?#@:]+:[^\s/?#@]+@/g;
const HEADER_FLAGS = new Set(['--header', '-H']);

function isSecretFlagName(name: string): boolean {
  return name.split(/[-_.]+/).some((word) => SECRET_NAME_WORD.test(word));
}

/** `Name: value` with the value redacted when the header carries a credential; undefined for any other text. */
function redactHeader(header: string): string | undefined {
  const colon = /^\s*([\w-]+)\s*:/.exec(header);
  return colon && SECRET_HEADER.test(colon[1]!) ? `${colon[0]} <redacted>` : undefined;
}

export interface RedactArgsOptions {
  /** The position of the prompt in `args`: shown as "<prompt>". */
  readonly promptIndex?: number | undefined;
  /** The run's redactor: every arg holding a secret value (or shape) of the run is redacted by it too. */
  readonly redact?: Redact | undefined;
}

/**
 * The argv for records: the prompt as "<prompt>"; the value after a secret flag (`--api-key x`,
 * `--token=x`), of an auth header (`-H "Authorization: Bearer x"`), of a `NAME=value` whose name
 * is secret, a token with a known prefix, and a URL's credentials, as "<redacted>"; and whatever
 * the run's redactor finds in the rest.
 */
export function redactArgs(args: readonly string[], options: RedactArgsOptions = {}): string[] {
  const { promptIndex, redact } = options;
  return args.map((arg, index) => {
    if (index === promptIndex) return '<prompt>';
    const previous = index > 0 ? args[index - 1]! : '';
    if (HEADER_FLAGS.has(previous)) {
      const header = redactHeader(arg);
      if (header !== undefined) return header;
    }
    const flag = /^(--?[\w][\w.-]*)$/.exec(previous);
    // `--no-auth --verbose`: a flag after a flag is no value.
    if (flag && !HEADER_FLAGS.has(previous) && !arg.startsWith('--') && isSecretFlagName(flag[1]!.replace(/^-+/, ''))) return '<redacted>';
    const assignment = /^(--?)?([\w.-]+)=(.*)$/s.exec(arg);
    if (assignment) {
      const [, dashes = '', name = ''] = assignment;
      if (dashes !== '' && (name === 'header' || name === 'H')) {
        const header = redactHeader(assignment[3]!);
        if (header !== undefined) return `${dashes}${name}=${header}`;
      } else if (isSecretFlagName(name)) {
        return `${dashes}${name}=<redacted>`;
      }
    }
    if (SECRET_VALUE.test(arg)) return '<redacted>';
    const clear = arg.replace(URL_CREDENTIALS, '$1<redacted>@');
    return redact ? redact(clear) : clear;
  });
}

/** `<binary> --version`, asked once per binary however many candidates use it (an answer that did not come is asked again). */
const versions = new Map<string, Promise<string | undefined>>();

/**
 * The CLI's version, for the report and bench.json. A loaded machine can take many seconds to
 * start a CLI (Gemini CLI needs about 2 s of CPU for `--version`), hence the generous limit; the
 * engine asks while the agent's first call runs, so nobody waits for it.
 *
 * `isolate`: the candidate runs with `isolate_config = true`, whose promise is that the user's
 * own config folders are neither read nor written. Some CLIs write there even for `--version`
 * (Codex its `~/.codex/tmp/arg0`, Gemini CLI `~/.gemini/projects.json.*.tmp`), so the question
 * is asked with a throwaway HOME and config folders, removed after.
 */
export function cliVersion(binary: string, env: Env, options: { readonly isolate?: boolean } = {}): Promise<string | undefined> {
  const key = `${options.isolate ? 'isolated' : 'own'}\u0000${binary}`;
  let version = versions.get(key);
  if (!version) {
    version = askVersion(binary, env, options.isolate === true);
    versions.set(key, version);
    void version.then((v) => {
      if (v === undefined) versions.delete(key);
    });
  }
  return version;
}

async function askVersion(binary: string, env: Env, isolate: boolean): Promise<string | undefined> {
  const home = isolate ? await mkdtemp(join(tmpdir(), 'bestof-version-')) : undefined;
  const isolated = home
    ? {
        HOME: home,
        CODEX_HOME: join(home, '.codex'),
        GEMINI_CLI_HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
      }
    : {};
  try {
    const result = await runProcess(binary, ['--version'], {
      cwd: home ?? process.cwd(),
      env: { ...env, ...isolated },
      timeoutMs: 60_000,
      maxBufferTail: 4096,
    });
    return result.ok ? result.stdout.trim().split('\n')[0]?.trim() || undefined : undefined;
  } finally {
    if (home) await removeTree(home).catch(() => undefined);
  }
}

async function describeCli<S>(adapter: CliAdapter<S>, options: CliOptions): Promise<ProviderDescription> {
  const call = adapter.buildCall(options.settings, { prompt: '<prompt>', model: options.settings.model, sessionId: '<session-id>', sandboxed: false });
  return {
    kind: adapter.kind,
    binary: options.binary,
    version: await cliVersion(options.binary, { ...process.env, ...options.settings.env }, { isolate: options.settings.isolate_config }),
    // The engine redacts this description with the run's secrets when it records it (candidate.provider).
    argv: redactArgs(call.args, { promptIndex: call.promptIndex }),
    model: options.settings.model,
  };
}
