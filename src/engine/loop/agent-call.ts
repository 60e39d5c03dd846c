/**
 * The agent call of an iteration: the provider run under its concurrency limit and the
 * sandbox, waits for rate and usage limits as the outcome table says, and the watch over the
 * shared git dir around it (a change an agent made there is undone and flags the candidate).
 */
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchGitDir } from '../../git/guards/guard.js';
import type { TamperedPath } from '../../checks/frozen.js';
import type { ProviderResult } from '../../providers/types.js';
import { timeLeft, type LoopState } from './loop-state.js';
import { OUTCOME_POLICY, planWait } from './outcome-policy.js';
import { agentGitScratchDir, agentSandbox } from '../sandbox/agent-sandbox.js';
import { agentGitDirs } from '../../git/guards/agent-git-dirs.js';
import { prepareAgentGitScratch } from '../../git/guards/agent-git-scratch.js';
import { createActivitySampler, type ActivitySampler } from './activity-sampler.js';
import { stopOutOfTime, type Stop } from './stop-rules.js';
import type { LoopContext } from './loop-context.js';

export interface ProviderCall {
  /** The last call's result (after any waits). */
  readonly result: ProviderResult;
  /** What every call of this iteration cost together. */
  readonly costUsd: number;
  /** Set when the outcome ends the candidate (OUTCOME_POLICY: stop, a wait it cannot make, out of time). */
  readonly stop?: Stop;
}

/**
 * The agent call of an iteration; what follows each outcome is OUTCOME_POLICY's `call`:
 * go on, go on unless the time is up, wait and call again inside the same iteration, or stop.
 */
export async function callProvider(
  ctx: LoopContext,
  state: LoopState,
  request: { readonly prompt: string; readonly artifactsDir: string; readonly model: string | undefined },
): Promise<ProviderCall> {
  const { emit, signal, plan, candidate } = ctx;
  let costUsd = 0;
  for (let waits = 0; ; ) {
    const left = timeLeft(state, Date.now());
    const result = await runAgent(ctx, state.iteration, request, left);
    costUsd += result.costUsd;
    recordCall(ctx, state.iteration, result);
    if (signal.aborted) return { result, costUsd };

    const policy = OUTCOME_POLICY[result.outcome].call;
    switch (policy.kind) {
      case 'proceed':
        return { result, costUsd };
      case 'proceed_unless_out_of_time': {
        const stop = left !== undefined ? stopOutOfTime(state, Date.now()) : undefined;
        return stop ? { result: { ...result, message: stop.message }, costUsd, stop } : { result, costUsd };
      }
      case 'stop':
        // A cancel needs no message: the run says it was cancelled and how to resume.
        return {
          result,
          costUsd,
          stop: policy.reason === 'cancelled' ? { reason: 'cancelled' } : { reason: policy.reason, message: result.message ?? policy.reason },
        };
      case 'wait_and_retry': {
        waits += 1;
        const decision = planWait(policy, {
          attempt: waits,
          retryAfterMs: result.retryAfterMs,
          backoffMs: plan.spec.loop.rate_limit_backoff,
          maxRateLimitWaits: plan.spec.loop.max_rate_limit_waits,
          timeLeftMs: timeLeft(state, Date.now()),
        });
        if ('giveUp' in decision) {
          const message = `${result.message ?? policy.giveUp}; ${decision.giveUp}`;
          return { result: { ...result, message }, costUsd, stop: { reason: policy.giveUp, message } };
        }
        emit({
          type: 'candidate.waiting',
          candidate: candidate.id,
          iteration: state.iteration,
          reason: policy.giveUp,
          waitMs: decision.waitMs,
          attempt: waits,
        });
        await sleep(decision.waitMs, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return { result: { ...result, outcome: 'cancelled' }, costUsd };
        continue;
      }
    }
  }
}

function runAgent(
  ctx: LoopContext,
  iteration: number,
  request: { readonly prompt: string; readonly artifactsDir: string; readonly model: string | undefined },
  timeLeftMs: number | undefined,
): Promise<ProviderResult> {
  const { candidate } = ctx;
  const timeoutMs = agentTimeout(candidate.settings.timeout, timeLeftMs);
  return ctx.limitProvider(candidate, async () => {
    const sandbox = agentSandbox(ctx.plan, candidate, ctx.agentEnv);
    // In the sandbox every git dir of the user's is read-only: the agent's git writes a scratch of its own, shown in their place.
    const git = sandbox ? agentGitDirs(candidate.worktree) : undefined;
    if (git) await prepareAgentGitScratch(agentGitScratchDir(candidate), git);
    const activity = sampledActivity(ctx, iteration, join(request.artifactsDir, 'output.log'));
    try {
      return await ctx.provider.run({
        prompt: request.prompt,
        cwd: candidate.worktree,
        model: request.model,
        iteration,
        candidateId: candidate.id,
        env: ctx.agentEnv,
        timeoutMs,
        artifactsDir: request.artifactsDir,
        signal: ctx.signal,
        onActivity: activity.onLine,
        redact: ctx.secrets.redact,
        logRedactor: () => ctx.secrets.createStreamRedactor(),
        sandbox,
      });
    } finally {
      activity.end();
    }
  });
}

/** One sampler per candidate of a run (the plan's candidate object), so that its cap holds over every call. */
const samplers = new WeakMap<LoopContext['candidate'], ActivitySampler>();

function samplerOf(candidate: LoopContext['candidate']): ActivitySampler {
  let sampler = samplers.get(candidate);
  if (!sampler) {
    sampler = createActivitySampler({ now: () => performance.now() });
    samplers.set(candidate, sampler);
  }
  return sampler;
}

/**
 * The agent's lines as `candidate.activity` events, through the candidate's sampler
 * (./activity-sampler.ts): the raw stream is in the call's output.log, the record keeps what
 * a person reads. A held line is recorded when its window ends, so the dashboard's latest
 * line is never more than a window behind the agent.
 */
function sampledActivity(ctx: LoopContext, iteration: number, outputLog: string): { onLine(text: string): void; end(): void } {
  const { candidate, emit } = ctx;
  const lines = samplerOf(candidate);
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const record = (texts: readonly string[]): void => {
    for (const text of texts) emit({ type: 'candidate.activity', candidate: candidate.id, iteration, text });
  };
  const scheduleHeld = (): void => {
    const due = lines.dueAt();
    if (timer !== undefined || due === undefined) return;
    // unref: a held line never keeps bestof alive; end() records it anyway.
    timer = setTimeout(
      () => {
        timer = undefined;
        record(lines.tick());
        scheduleHeld();
      },
      Math.max(0, Math.ceil(due - performance.now())),
    ).unref();
  };
  const where = relative(ctx.plan.runDir, outputLog) || outputLog;
  return {
    onLine(text) {
      // A line after the call ended belongs to no call: the call's record is closed.
      if (ended) return;
      record(lines.offer(text.slice(0, 500)));
      scheduleHeld();
    },
    end() {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      timer = undefined;
      record(
        lines.endCall(
          (count) => `… ${count.toLocaleString('en-US')} line${count === 1 ? '' : 's'} of output not recorded here (see ${where} in the run folder)`,
        ),
      );
    },
  };
}

function recordCall(ctx: LoopContext, iteration: number, result: ProviderResult): void {
  const warning = ctx.budget.record(ctx.candidate.id, result.costUsd);
  ctx.emit({
    type: 'provider.finished',
    candidate: ctx.candidate.id,
    iteration,
    outcome: result.outcome,
    ...(result.message === undefined ? {} : { message: result.message }),
    costUsd: result.costUsd,
    usage: result.usage,
    turns: result.turns,
    durationMs: Math.round(result.durationMs),
  });
  if (warning) ctx.emit({ type: 'run.warning', message: warning });
}

/** After the agent call (and its commit): a cancel, or a stop the outcome asked for. */
export function stopAfterCall(call: ProviderCall, aborted: boolean): Stop | undefined {
  if (aborted) return { reason: 'cancelled' };
  return call.stop;
}

export interface AgentCallWatch {
  /** Every local branch before the call: one the agent moved while it had it checked out is put back at the commit. */
  readonly branchesBefore: ReadonlyMap<string, string>;
  /**
   * Puts back what the agent changed in the shared git dir; each change is reported as a warning and
   * returned as frozen tampering. Also every local branch as the call left them (`branchesAfter`,
   * read with the replace refs the restore reads anyway: the commit step need not list them again).
   */
  restore(iteration: number): Promise<{ readonly tampered: TamperedPath[]; readonly branchesAfter: ReadonlyMap<string, string> }>;
}

/**
 * Watches the git dir around an agent call (src/git/guards/guard.ts): the sandbox makes it read-only
 * when there is one, this makes a change undone and the candidate unable to win when there is not.
 * The reviewer's call is watched too: it reads the candidate's diff, so a change it makes (told
 * to by text planted in that diff) counts against the candidate.
 */
export async function watchAgentCall(ctx: Pick<LoopContext, 'candidate' | 'emit'>, who: 'agent' | 'reviewer' = 'agent'): Promise<AgentCallWatch> {
  const { candidate } = ctx;
  // A reviewer acts on what it reads, the candidate's work: a change it makes there is the candidate's.
  const actor = who === 'agent' ? `${candidate.id}'s agent` : `the reviewer of ${candidate.id}'s work`;
  // The branches are read with the watch's replace refs: one git process, the same moment.
  const watch = await watchGitDir(candidate.worktree, { branches: true });
  return {
    branchesBefore: watch.branchesBefore ?? new Map(),
    async restore() {
      const { changes, overlapped, branchesAfter = new Map<string, string>() } = await watch.restore();
      if (changes.length === 0) return { tampered: [], branchesAfter };
      const list = changes.map((c) => `${c.path} (${c.change})`).join(', ');
      ctx.emit({
        type: 'run.warning',
        candidate: candidate.id,
        message: `the git dir changed while ${actor} ran: ${list}; bestof put it back as it was, and ${candidate.id} cannot win${overlapped ? ' (other agents ran at the same time: without the sandbox bestof cannot tell which one did it)' : ''}`,
      });
      return { tampered: changes.map((c): TamperedPath => ({ path: c.path, change: c.change, rule: 'frozen' })), branchesAfter };
    },
  };
}

/** The agent call's time limit: its provider's own, cut to the time the candidate has left (never under a second). */
export function agentTimeout(providerTimeoutMs: number, timeLeftMs: number | undefined): number {
  return timeLeftMs !== undefined ? Math.max(1000, Math.min(providerTimeoutMs, timeLeftMs)) : providerTimeoutMs;
}
