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
import type { ProviderKind } from '../spec/schema.js';
import { DEFINITION_LOADERS, loadDefinition } from './definitions.js';
import type { ProviderDefinition } from './types.js';

export type { PreparedAgent, PrepareOptions, PrepareResult } from './types.js';
export { createProvider, prepareAgent } from './definitions.js';

/**
 * Every provider this version can run, by kind, loaded: the table of ./definitions.ts (shannon,
 * interactive Claude Code in tmux, lives in ./shannon/). A run prepares and creates its agents
 * through ./definitions.ts, which loads only the kinds its spec names; this module loads them all
 * when it is imported, for whoever needs every kind at once (the providers' tests, the list of
 * available kinds).
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
