/**
 * What the voters judge, per eligible candidate: its diff against base (a plain `git diff`, no
 * log, so no commit message to start with) or the content of `[vote] output_file` in its scored
 * commit; run through the spec's formatter (so that style is no fingerprint), cut at
 * `max_material` the same way for every candidate, then normalised (src/vote/anonymise.ts).
 * Its check results go beside it as short lines, normalised too.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { diffText } from '../../git/history/diff.js';
import { showFile } from '../../git/running/show.js';
import { runShell } from '../../process/run-process.js';
import { normaliseMaterial, type AnonymiseContext } from '../../vote/anonymise.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import { worktreesRoot, type RunPlan } from '../plan/plan.js';
import type { CandidateState } from '../record/run-state.js';
import type { MaterialInfo } from '../../vote/record.js';
import { plural } from '../words.js';

export interface Material {
  readonly text: string;
  readonly info: MaterialInfo;
}

/** Everything that names a candidate, a provider, a model or a place of this run. */
export function anonymiseContext(plan: RunPlan): AnonymiseContext {
  const voters = plan.spec.vote.voters;
  return {
    runId: plan.runId,
    branchPrefix: plan.spec.git.branch_prefix,
    candidateIds: plan.candidates.map((c) => c.id),
    providerKinds: [...new Set([...plan.candidates.map((c) => c.settings.kind), ...voters.map((v) => v.kind)])],
    models: [...new Set([...plan.candidates.map((c) => c.model), ...voters.map((v) => v.model)].filter((m): m is string => m !== undefined))],
    providerLabels: plan.candidates.map((c) => c.label),
    // The record keeps no session ids of its own; the normaliser replaces any UUID anyway.
    sessionIds: [],
    worktrees: plan.candidates.map((c) => c.worktree),
    worktreesRoot: worktreesRoot(plan.repoRoot),
    runDir: plan.runDir,
    repoRoot: plan.repoRoot,
    home: process.env.HOME || homedir(),
  };
}

/** "tests: pass (3/3 points)", one line per check of the candidate's final scoring. */
export function checkLines(c: CandidateState): string {
  const checks: readonly CheckOutcome[] = c.iterations.find((it) => it.iteration === c.iteration)?.checks ?? [];
  if (checks.length === 0) return `score ${c.score ?? 0} of ${c.maxScore}`;
  return checks.map((k) => `${k.name}: ${k.passed ? 'pass' : k.timedOut ? 'timed out' : 'fail'} (${k.points}/${plural(k.maxPoints, 'point')})`).join('\n');
}

async function rawMaterial(plan: RunPlan, commit: string, signal: AbortSignal): Promise<string> {
  const { vote } = plan.spec;
  if (vote.material === 'file' && vote.output_file !== undefined) {
    const shown = await showFile(plan.repoRoot, commit, vote.output_file, { signal });
    return shown.ok ? shown.value : `(no ${vote.output_file}: the candidate did not write it)`;
  }
  return diffText(plan.repoRoot, plan.baseCommit, commit, { signal });
}

/** The formatter reads the material on stdin and writes it on stdout; a failure leaves it as it was, recorded. */
async function format(plan: RunPlan, text: string, signal: AbortSignal): Promise<{ text: string; error?: string }> {
  const command = plan.spec.vote.formatter;
  if (command === undefined) return { text };
  const run = await runShell(command, { cwd: plan.repoRoot, env: process.env, input: text, signal, timeoutMs: 60_000, maxBufferTail: 8 * 1024 * 1024 });
  if (run.ok) return { text: run.stdout };
  const why = run.timedOut ? 'timed out after 60s' : (run.spawnError ?? `exited with ${run.exitCode ?? run.signal}: ${run.stderr.trim().slice(-300)}`);
  return { text, error: `[vote] formatter ${JSON.stringify(command)} ${why}; the material went unformatted` };
}

export async function gatherMaterials(plan: RunPlan, eligible: readonly CandidateState[], signal: AbortSignal): Promise<Map<string, Material>> {
  const ctx = anonymiseContext(plan);
  const max = plan.spec.vote.max_material;
  const out = new Map<string, Material>();
  for (const c of eligible) {
    const raw = await rawMaterial(plan, c.commit as string, signal);
    const formatted = await format(plan, raw, signal);
    const cut = max !== undefined && formatted.text.length > max;
    const text = cut ? `${formatted.text.slice(0, max)}\n[... cut at ${max} characters, the same for every candidate]` : formatted.text;
    const normalised = normaliseMaterial(text, ctx);
    const checks = normaliseMaterial(checkLines(c), ctx).text;
    out.set(c.id, {
      text: normalised.text,
      info: {
        candidate: c.id,
        length: normalised.text.length,
        cut,
        changes: normalised.changes,
        ...(formatted.error !== undefined ? { formatterError: formatted.error } : {}),
        checks,
        digest: createHash('sha256').update(normalised.text).digest('hex'),
      },
    });
  }
  return out;
}
