/**
 * `script`: the built-in deterministic agent. It performs the steps of a script file
 * (see ./script-steps.ts) in the candidate's worktree, so the demo and the tests run the
 * whole engine (worktrees, checks, selection, merge) without a model or a network.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAgentProcess } from '../process/sandbox.js';
import { err, ok } from '../result.js';
import { parseDuration } from '../spec/duration.js';
import { requestRedactor } from './cli-provider.js';
import { loadScript, stepsForIteration, type Script, type ScriptStep } from './script-steps.js';
import type { Outcome, Provider, ProviderDefinition, ProviderRequest, ProviderResult, TokenUsage } from './types.js';

/** Built into bestof: nothing to install, no credentials; prepare parses the script file once per plan. */
export const scriptDefinition: ProviderDefinition<'script'> = {
  kind: 'script',
  async prepare(settings, context) {
    const path = resolve(context.specDir, settings.script ?? '');
    const cached = context.scripts.get(path);
    if (cached) return ok({ script: cached });
    const loaded = await loadScript(path);
    if (!loaded.ok) return err(`${context.key}.script: ${loaded.error}`);
    context.scripts.set(path, loaded.value);
    return ok({ script: loaded.value });
  },
  create(_settings, agent) {
    if (!agent.script) throw new Error('bug: a script candidate without its script');
    return createScriptProvider(agent.script);
  },
};

class StepFailure {
  constructor(
    readonly outcome: Outcome,
    readonly message: string,
    readonly retryAfterMs?: number,
  ) {}
}

/** How often each `fail ... times = N` step has failed, per provider (one provider per candidate). */
type FailureCounts = Map<ScriptStep, number>;

export function createScriptProvider(script: Script): Provider {
  const failures: FailureCounts = new Map();
  return {
    kind: 'script',
    run: (request) => runScript(script, request, failures),
    // Runs in-process and its `run` steps end with the run: nothing to release.
    close: async () => {},
  };
}

async function runScript(script: Script, request: ProviderRequest, failures: FailureCounts): Promise<ProviderResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let costUsd = 0;
  let text = '';
  let turns = 0;
  const finish = (outcome: Outcome, message?: string, retryAfterMs?: number): ProviderResult => ({
    outcome,
    text,
    usage: { ...usage } satisfies TokenUsage,
    costUsd,
    costEstimated: false,
    sessionId: undefined,
    turns,
    durationMs: performance.now() - started,
    ...(message === undefined ? {} : { message }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

  const redact = requestRedactor(request);
  await writeFile(resolve(request.artifactsDir, 'prompt.md'), redact ? redact(request.prompt) : request.prompt).catch(() => undefined);
  for (const step of stepsForIteration(script, request.iteration)) {
    if (signal.aborted) break;
    turns += 1;
    try {
      await performStep(step, request, signal, failures);
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof StepFailure) return finish(error.outcome, error.message, error.retryAfterMs);
      return finish('crashed', `script step ${turns} failed: ${(error as Error).message}`);
    }
    if (step.say !== undefined) {
      text = expandPlaceholders(step.say, request);
      request.onActivity(text);
    }
    if (step.usage) {
      usage.input += step.usage.input;
      usage.output += step.usage.output;
      usage.cacheRead += step.usage.cache_read;
      usage.cacheWrite += step.usage.cache_write;
    }
    costUsd += step.cost_usd ?? 0;
  }
  if (request.signal.aborted) return finish('cancelled', 'cancelled');
  if (timeout.aborted) return finish('timeout', `the script did not finish within ${request.timeoutMs} ms`);
  return finish('success');
}

/** `{iteration}` and `{candidate}` in `write` content and `say` text. */
function expandPlaceholders(text: string, request: ProviderRequest): string {
  return text.replaceAll('{iteration}', String(request.iteration)).replaceAll('{candidate}', request.candidateId);
}

/** Paths in a script are relative to the worktree and may not leave it. */
function insideWorktree(cwd: string, path: string): string {
  const full = resolve(cwd, path);
  const rel = relative(cwd, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new StepFailure('crashed', `script path leaves the worktree: ${path}`);
  }
  return full;
}

async function performStep(step: ScriptStep, request: ProviderRequest, signal: AbortSignal, failures: FailureCounts): Promise<void> {
  const { cwd } = request;
  if (step.write !== undefined) {
    const path = insideWorktree(cwd, step.write);
    request.onActivity(`write ${step.write}`);
    await mkdir(dirname(path), { recursive: true });
    await rm(path, { force: true, recursive: true });
    await writeFile(path, expandPlaceholders(step.content ?? '', request));
  } else if (step.replace !== undefined) {
    const path = insideWorktree(cwd, step.replace);
    request.onActivity(`edit ${step.replace}`);
    const before = await readFile(path, 'utf8');
    if (!before.includes(step.find ?? '')) throw new StepFailure('crashed', `replace: "${step.find}" not found in ${step.replace}`);
    await writeFile(path, before.split(step.find ?? '').join(step.with ?? ''));
  } else if (step.delete !== undefined) {
    request.onActivity(`delete ${step.delete}`);
    await rm(insideWorktree(cwd, step.delete), { force: true, recursive: true });
  } else if (step.symlink !== undefined) {
    const path = insideWorktree(cwd, step.symlink);
    request.onActivity(`link ${step.symlink} -> ${step.target}`);
    await rm(path, { force: true, recursive: true });
    await mkdir(dirname(path), { recursive: true });
    await symlink(step.target ?? '', path);
  } else if (step.run !== undefined) {
    request.onActivity(`$ ${step.run}`);
    // A step's command stands for what an agent runs: it runs in the agent's sandbox.
    const result = await runAgentProcess(
      'bash',
      ['-c', step.run],
      {
        cwd,
        env: request.env,
        signal,
        logFile: resolve(request.artifactsDir, 'output.log'),
        ...(request.logRedactor ? { logRedactor: request.logRedactor() } : {}),
      },
      request.sandbox,
    );
    if (!result.ok && !signal.aborted) {
      throw new StepFailure('crashed', `\`${step.run}\` exited with ${result.exitCode ?? result.signal ?? result.spawnError}`);
    }
  } else if (step.sleep !== undefined) {
    await sleep(parseDuration(step.sleep) ?? 0, undefined, { signal }).catch(() => undefined);
  } else if (step.fail !== undefined) {
    const failed = failures.get(step) ?? 0;
    if (step.times !== undefined && failed >= step.times) return;
    failures.set(step, failed + 1);
    const retryAfterMs = step.retry_after !== undefined ? parseDuration(step.retry_after) : undefined;
    throw new StepFailure(step.fail as Outcome, step.message ?? `the script ended with ${step.fail}`, retryAfterMs);
  }
}
