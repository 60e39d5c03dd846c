/**
 * Providers as data: the table of provider kinds this version can run.
 *
 * A provider is the agent behind a candidate (or a reviewer): it turns one request (prompt,
 * worktree, environment, timeout, signal) into one ProviderResult whose `outcome` says what
 * happened (success, rate_limited, auth_error, timeout, ...). It never throws for anything
 * the agent did. See ./types.ts.
 *
 * Each kind lives in one file (claude.ts, codex.ts, gemini.ts, command.ts, script.ts) that
 * exports its ProviderDefinition:
 *   kind         the `kind` of the spec; it is also its key in PROVIDERS below.
 *   installHint  how to install and log in, appended to "not found" messages; the only copy.
 *   prepare      before a run, without starting anything: the binary is on PATH or the
 *                script parses, credentials are there (each file has its own check, built
 *                from ./credentials.ts), no setting is one that cannot work. It returns the
 *                PreparedAgent (the resolved path or parsed script), or the problem with its
 *                spec key. The planner reports every problem before any work starts.
 *   create       the Provider for one candidate, from the settings, the PreparedAgent and the
 *                spec's `[providers.<kind>]` table (prices for cost estimates).
 * The real CLIs share their prepare and create through ./cli-definition.ts and their run
 * through ./cli-provider.ts (spawn, parse the JSON stream, classify).
 *
 * Adding a provider: write its file with its definition, and add one line to the table of
 * ./definitions.ts. Nothing else switches on the kind: PROVIDERS, AVAILABLE_PROVIDERS,
 * prepareAgent and createProvider all read that table.
 *
 * Outcomes are classified inside the provider: classify-claude.ts, classify-codex.ts and
 * classify-gemini.ts (on top of classify-common.ts) for the CLIs, exit codes in command.ts,
 * the steps in script.ts. What the loop then does with each outcome is the engine's
 * exhaustive table (src/engine/outcome-policy.ts).
 *
 * `Provider.close()` releases what a provider keeps between runs (a session, a terminal). The
 * engine calls it when a candidate ends, on cancel and on crash paths; it is idempotent, so a
 * second call is harmless. The providers here keep nothing, so theirs do nothing.
 */
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import { DEFINITION_LOADERS, loadDefinition } from './definitions.js';
import type { PreparedAgent, Provider, ProviderDefinition, ProviderSection } from './types.js';

export type { PreparedAgent, PrepareOptions, PrepareResult } from './types.js';
export { prepareAgent } from './definitions.js';

/**
 * Every provider this version can run, by kind, loaded: the table of ./definitions.ts (shannon,
 * interactive Claude Code in tmux, lives in ./shannon/). The planner prepares agents through
 * ./definitions.ts, which loads only the kinds a spec names; what creates providers (a run)
 * imports this module, which loads them all before anything uses it.
 */
export const PROVIDERS = Object.fromEntries(
  await Promise.all(Object.keys(DEFINITION_LOADERS).map(async (kind) => [kind, await loadDefinition(kind)] as const)),
) as { readonly [K in ProviderKind]?: ProviderDefinition<K> };

export const AVAILABLE_PROVIDERS: readonly ProviderKind[] = Object.keys(PROVIDERS) as ProviderKind[];

function definitionOf(kind: string): ProviderDefinition | undefined {
  return Object.hasOwn(PROVIDERS, kind) ? PROVIDERS[kind as ProviderKind] : undefined;
}

/** The install hint of the provider whose CLI is called `program` ("codex"), if any. */
export function installHintFor(program: string): string | undefined {
  return definitionOf(program)?.installHint;
}

/**
 * The Provider for one candidate or reviewer. `section` is the spec's `[providers.<kind>]`
 * table for `settings.kind` (`spec.providers[settings.kind]`), undefined when the spec has none.
 */
export function createProvider(settings: ProviderSettings, agent: PreparedAgent, section: ProviderSection | undefined): Provider {
  const definition = definitionOf(settings.kind);
  // prepareAgent refuses kinds this version cannot run, so reaching this is a bug.
  if (!definition) throw new Error(`bug: provider "${settings.kind}" is not available`);
  return definition.create(settings, agent, section);
}
