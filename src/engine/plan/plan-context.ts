import type { Script } from '../../providers/script-steps.js';
import type { Spec } from '../../spec/schema.js';

/** What every step of planRun shares: the spec, and the problems found so far (each said with its spec key). */
export interface PlanContext {
  readonly spec: Spec;
  readonly specDir: string;
  /** Script files already read, by path: candidates that share one read it once. */
  readonly scripts: Map<string, Script>;
  /** Whether the agents run in bubblewrap: their defaults (permission modes) depend on it. */
  readonly sandboxed: boolean;
  readonly problems: string[];
}
