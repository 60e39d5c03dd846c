/**
 * What the planner (src/engine/plan/plan.ts) will ask for, started before it asks, so that the wait
 * overlaps another: the sandbox probe, a bwrap process, runs while `validate` loads the planner's
 * modules and while planRun's git calls run; the modules of the candidates' agent kinds load while
 * git answers. Both are cached per process (src/process/sandbox.ts, src/providers/definitions.ts):
 * planRun gets the answers started here, so the plan, its problems and its warnings are the same.
 */
import { probeSandbox } from '../process/sandbox.js';
import { loadDefinition } from '../providers/definitions.js';
import type { ProviderOverride, Spec } from '../spec/schema.js';

/** Starts the sandbox probe, unless the spec turns the sandbox off (then planRun never probes). */
export function startSandboxProbe(spec: Spec): void {
  if (spec.sandbox.mode === 'off') return;
  // A probe that fails is planRun's to report, from the same cached promise.
  void probeSandbox().catch(() => undefined);
}

/**
 * Starts loading the provider modules of the candidates' agents: the kinds of the
 * `[[parallel.providers]]` entries the candidates are given (the first `candidates` of them), or of
 * `[provider]`. Never a kind planRun would not load: the reviewer's and the voters' are left to it.
 */
export function startLoadingAgentKinds(spec: Spec): void {
  const entries: readonly ProviderOverride[] = spec.parallel.providers.length > 0 ? spec.parallel.providers : [{}];
  const used = entries.slice(0, spec.parallel.candidates ?? entries.length);
  for (const kind of new Set(used.map((entry) => entry.kind ?? spec.provider.kind))) {
    // A module that fails to load is prepareAgent's to report, from the same cached promise.
    void loadDefinition(kind).catch(() => undefined);
  }
}
