/**
 * Who votes and how one is asked. By default every candidate whose agent ran votes through its
 * own provider (it never sees its own work: src/vote/order.ts recuses it); `[vote] voters`
 * names a jury instead (`j1`, `j2`…), each its own agent, prepared here like the reviewer is in
 * the plan.
 *
 * A voter is called like the reviewer (../select/review.ts): read-only, in the sandbox when there is
 * one, in an empty folder of its own outside every worktree (it needs nothing but the prompt,
 * which holds the anonymised material). The folder has a neutral name under the system's temp
 * folder: every agent CLI tells its model its working directory, and a path under the worktrees
 * root would name the run and the voter's own candidate. Its environment is the checks' (a PATH
 * no worktree can shadow) plus the agent's own `env` from the spec, the key or base URL its CLI
 * needs: a candidate votes through its own agent, a jury member with `[provider]`'s `env`.
 * A failed or timed-out call is a value: the answer is missing, and why.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProvider, prepareAgent } from '../../providers/definitions.js';
import type { Script } from '../../providers/script-steps.js';
import type { Provider } from '../../providers/types.js';
import { err, ok, type Result } from '../../result.js';
import { agentSandbox } from '../sandbox/agent-sandbox.js';
import { type BudgetLedger, VOTE_PAYER } from '../loop/budget.js';
import { checkEnv } from '../plan/candidate-env.js';
import { juryVoterSettings, type CandidatePlan, type RunPlan } from '../plan/plan.js';
import type { UnstampedEvent } from '../record/events.js';
import type { SecretSet } from '../sandbox/secrets.js';
import { voteDir } from './paths.js';
import type { VoterInfo } from '../../vote/record.js';
import { removeTree } from '../../owned-tree.js';

export interface Voter {
  readonly info: VoterInfo;
  /** The agent's `env` of the spec: its candidate's (`[[parallel.providers]]` / `[provider]`), or `[provider]`'s for a jury member. */
  readonly env: Readonly<Record<string, string>>;
  readonly provider: Provider;
  readonly model: string | undefined;
  /** Where its empty folder and HOME hang: a candidate's worktree path (only its parent is used). */
  readonly anchor: CandidatePlan;
}

/** The voters of this run, or why the jury cannot be prepared. `ran`: candidates whose agent ran. */
/**
 * What the vote's calls need of the run (src/engine/run/run-context.ts's RunContext has it all): the
 * vote sits below the run's stages and does not import their context.
 */
export interface VoteContext {
  readonly plan: RunPlan;
  readonly signal: AbortSignal;
  readonly secrets: SecretSet;
  readonly budget: BudgetLedger;
  emit(event: UnstampedEvent): void;
}

export async function createVoters(ctx: Pick<VoteContext, 'plan'>, ran: readonly CandidatePlan[]): Promise<Result<Voter[]>> {
  const { plan } = ctx;
  const { spec } = plan;
  const anchor = plan.candidates[0];
  if (!anchor) return ok([]);
  if (spec.vote.voters.length === 0) {
    return ok(
      ran.map((c) => ({
        info: { id: c.id, candidate: c.id, kind: c.settings.kind, ...(c.model !== undefined ? { model: c.model } : {}) },
        env: c.settings.env,
        provider: createProvider(c.settings, c.agent, spec.providers[c.settings.kind]),
        model: c.model,
        anchor: c,
      })),
    );
  }
  const scripts = new Map<string, Script>();
  const voters: Voter[] = [];
  for (const [i, v] of spec.vote.voters.entries()) {
    const id = `j${i + 1}`;
    const settings = juryVoterSettings(spec, i);
    const prepared = await prepareAgent(settings, {
      specDir: plan.specDir,
      key: `vote.voters[${i}]`,
      scripts,
      sandboxed: plan.sandbox.enabled,
      shannon: spec.shannon,
    });
    if (!prepared.ok) return err(prepared.error);
    voters.push({
      info: { id, kind: v.kind, ...(v.model !== undefined ? { model: v.model } : {}) },
      env: settings.env,
      provider: createProvider(settings, prepared.value, spec.providers[v.kind]),
      model: v.model,
      anchor,
    });
  }
  return ok(voters);
}

export interface Answer {
  readonly text?: string;
  readonly error?: string;
  readonly costUsd: number;
}

/** One call of one voter; `call` names its artifacts folder in the run folder (`vote/<voter>/<call>`). */
export async function askVoter(ctx: VoteContext, voter: Voter, prompt: string, call: string): Promise<Answer> {
  const { plan } = ctx;
  const place = { id: `vote-${voter.info.id}`, worktree: voter.anchor.worktree };
  const env = { ...checkEnv(plan, voter.anchor), ...voter.env };
  const artifactsDir = join(voteDir(plan.runDir), voter.info.id, call);
  await mkdir(artifactsDir, { recursive: true });
  // A fresh, empty folder per call (nothing one call wrote is there for the next), named for no one.
  const cwd = await mkdtemp(join(tmpdir(), 'voter-'));
  const sandbox = agentSandbox(plan, place, env, 'reviewer');
  try {
    const result = await voter.provider.run({
      prompt,
      cwd,
      model: voter.model,
      iteration: 0,
      candidateId: place.id,
      env,
      timeoutMs: plan.spec.vote.timeout,
      artifactsDir,
      signal: ctx.signal,
      onActivity: () => undefined,
      redact: ctx.secrets.redact,
      logRedactor: () => ctx.secrets.createStreamRedactor(),
      sandbox: sandbox ? { ...sandbox, workdir: cwd } : undefined,
    });
    const warning = ctx.budget.record(VOTE_PAYER, result.costUsd);
    if (warning) ctx.emit({ type: 'run.warning', message: warning });
    if (result.outcome !== 'success') {
      const why = result.outcome === 'timeout' ? `timed out after ${Math.round(plan.spec.vote.timeout / 1000)}s` : `ended with ${result.outcome}`;
      return { error: `the call ${why}${result.message ? `: ${result.message}` : ''}`, costUsd: result.costUsd };
    }
    return { text: result.text, costUsd: result.costUsd };
  } finally {
    await removeTree(cwd).catch(() => undefined);
  }
}

export async function closeVoters(voters: readonly Voter[]): Promise<void> {
  await Promise.all(voters.map((v) => v.provider.close().catch(() => undefined)));
}
