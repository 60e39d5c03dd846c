/**
 * `script`: the built-in deterministic agent. It performs the steps of a script file
 * (see ./script-steps.ts) in the candidate's worktree, so the demo and the tests run the
 * whole engine (worktrees, checks, selection, merge) without a model or a network.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runShell } from '../process/run-process.js';
import { parseDuration } from '../spec/duration.js';
import { stepsForIteration, type Script, type ScriptStep } from './script-steps.js';
import type { Outcome, Provider, ProviderRequest, ProviderResult, TokenUsage } from './types.js';

class StepFailure {
  constructor(
    readonly outcome: Outcome,
    readonly message: string,
  ) {}
}

export function createScriptProvider(script: Script): Provider {
  return {
    kind: 'script',
    run: (request) => runScript(script, request),
  };
}

async function runScript(script: Script, request: ProviderRequest): Promise<ProviderResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let costUsd = 0;
  let text = '';
  let turns = 0;
  const finish = (outcome: Outcome, message?: string): ProviderResult => ({
    outcome,
    text,
    usage: { ...usage } satisfies TokenUsage,
    costUsd,
    costEstimated: false,
    sessionId: undefined,
    turns,
    durationMs: performance.now() - started,
    ...(message === undefined ? {} : { message }),
  });

  await writeFile(resolve(request.artifactsDir, 'prompt.md'), request.prompt).catch(() => undefined);
  for (const step of stepsForIteration(script, request.iteration)) {
    if (signal.aborted) break;
    turns += 1;
    try {
      await performStep(step, request, signal);
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof StepFailure) return finish(error.outcome, error.message);
      return finish('crashed', `script step ${turns} failed: ${(error as Error).message}`);
    }
    if (step.say !== undefined) {
      text = step.say;
      request.onActivity(step.say);
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

/** Paths in a script are relative to the worktree and may not leave it. */
function insideWorktree(cwd: string, path: string): string {
  const full = resolve(cwd, path);
  const rel = relative(cwd, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new StepFailure('crashed', `script path leaves the worktree: ${path}`);
  }
  return full;
}

async function performStep(step: ScriptStep, request: ProviderRequest, signal: AbortSignal): Promise<void> {
  const { cwd } = request;
  if (step.write !== undefined) {
    const path = insideWorktree(cwd, step.write);
    request.onActivity(`write ${step.write}`);
    await mkdir(dirname(path), { recursive: true });
    await rm(path, { force: true, recursive: true });
    await writeFile(path, step.content ?? '');
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
    const result = await runShell(step.run, {
      cwd,
      env: request.env,
      signal,
      logFile: resolve(request.artifactsDir, 'output.log'),
    });
    if (!result.ok && !signal.aborted) {
      throw new StepFailure('crashed', `\`${step.run}\` exited with ${result.exitCode ?? result.signal ?? result.spawnError}`);
    }
  } else if (step.sleep !== undefined) {
    await sleep(parseDuration(step.sleep) ?? 0, undefined, { signal }).catch(() => undefined);
  } else if (step.fail !== undefined) {
    throw new StepFailure(step.fail as Outcome, step.message ?? `the script ended with ${step.fail}`);
  }
}
