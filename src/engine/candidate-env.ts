/** The environments a candidate's processes get: the agent's, and the checks' (which never see the agent's extra env). */
import type { CandidatePlan, RunPlan } from './plan.js';

export function candidateEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return {
    ...process.env,
    ...candidate.settings.env,
    BESTOF_RUN: plan.runId,
    BESTOF_CANDIDATE: candidate.id,
    BESTOF_INDEX: String(candidate.index),
    BESTOF_RUN_DIR: plan.runDir,
    PORT: String(candidate.port),
  };
}

/** Environment of the checks: the user's, plus the candidate's identity and port, never the agent's extra env. */
export function checkEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return { ...process.env, BESTOF_RUN: plan.runId, BESTOF_CANDIDATE: candidate.id, BESTOF_INDEX: String(candidate.index), PORT: String(candidate.port) };
}
