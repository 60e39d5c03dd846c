/**
 * The plan's judges besides the checks: `[review]` (its agent prepared) and a `[vote]` jury (each
 * voter that cannot start is bad input, said before anything is made). `[select.distinguish]`'s
 * tester is planned in ./distinguish-plan.ts.
 */
import { prepareAgent } from '../../providers/definitions.js';
import type { PreparedAgent } from '../../providers/types.js';
import { resolveSpecPath } from '../../spec/load.js';
import type { ProviderSettings, Spec } from '../../spec/schema.js';
import type { PlanContext } from './plan-context.js';

export interface ReviewPlan {
  readonly settings: ProviderSettings;
  readonly agent: PreparedAgent;
  readonly promptFile?: string;
  readonly score: number;
  readonly timeoutMs: number;
}

/** `[review]`, when enabled, with its agent prepared. */
export async function planReview(context: PlanContext): Promise<ReviewPlan | undefined> {
  const { spec, specDir, scripts, sandboxed, problems } = context;
  if (!spec.review?.enabled) return undefined;
  // The reviewer is its own agent: it shares [provider]'s timeout and env, never its program or script.
  const settings: ProviderSettings = {
    ...spec.provider,
    kind: spec.review.kind,
    model: spec.review.model,
    script: spec.review.script,
    command: spec.review.command,
    args: spec.review.args,
    label: 'review',
  };
  const prepared = await prepareAgent(settings, { specDir, key: 'review', scripts, sandboxed, shannon: spec.shannon });
  if (!prepared.ok) {
    problems.push(prepared.error);
    return undefined;
  }
  return {
    settings,
    agent: prepared.value,
    ...(spec.review.prompt_file ? { promptFile: resolveSpecPath(specDir, spec.review.prompt_file) } : {}),
    score: spec.review.score,
    timeoutMs: spec.review.timeout,
  };
}

/** A jury voter that cannot start is bad input, said now, not when the vote comes (its provider is made then). */
export async function checkVoters(context: PlanContext): Promise<void> {
  const { spec, specDir, scripts, sandboxed, problems } = context;
  if (!spec.vote.enabled) return;
  for (const index of spec.vote.voters.keys()) {
    const prepared = await prepareAgent(juryVoterSettings(spec, index), { specDir, key: `vote.voters[${index}]`, scripts, sandboxed, shannon: spec.shannon });
    if (!prepared.ok) problems.push(prepared.error);
  }
}

/** The settings of `[vote] voters[index]`, a jury voter (`j<index+1>`): like the reviewer, [provider]'s timeout and env, never its program or script. */
export function juryVoterSettings(spec: Spec, index: number): ProviderSettings {
  const voter = spec.vote.voters[index];
  if (!voter) throw new Error(`bug: no vote.voters[${index}]`);
  return { ...spec.provider, kind: voter.kind, model: voter.model, script: voter.script, command: voter.command, args: voter.args, label: `j${index + 1}` };
}
