/**
 * Providers as data: what a provider is, and the reader of the one table of provider kinds (./table.ts).
 *
 * A provider is the agent behind a candidate (or a reviewer): it turns one request (prompt,
 * worktree, environment, timeout, signal) into one ProviderResult whose `outcome` says what
 * happened (success, rate_limited, auth_error, timeout, ...). It never throws for anything
 * the agent did. See ./types.ts.
 *
 * Each kind lives in one file (claude.ts, codex.ts, gemini.ts, shannon/definition.ts, command.ts,
 * script.ts) that exports its ProviderDefinition:
 *   kind         the `kind` of the spec; it is also its key in PROVIDER_TABLE.
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
 * The kinds are the rows of one table, PROVIDER_TABLE in ./table.ts. A kind's row holds how to
 * load its file and what the other layers ask of the kind without loading it (ProviderTraits:
 * whether it reports its cost, its default label, whether its prompt is a program argument, whether
 * a person can attach to it). A provider's module brings its stream parser, its classifier and, for
 * shannon, tmux; `bestof validate` of a spec whose agents are scripts needs none of the CLIs', so
 * this module loads a kind's file on its first use, once (scripts/bench-startup.mjs), and the
 * traits, which the dashboard and the reports read for any run, are plain data beside the loader.
 * This module is the table's only reader: the kind list, the install hints, prepareAgent,
 * createProvider and the traits all come from it.
 *
 * Adding a provider: write its file with its definition, add its row to PROVIDER_TABLE, and run
 * `npm run gen:spec`. The spec layer imports nothing of ours, so the spec's list of kinds
 * (src/spec/provider-kinds.ts) is generated from the table's rows (scripts/lib/provider-kinds.mjs;
 * test/spec/provider-kinds.test.ts fails while it is stale), and a row the list lacks does not compile. Nothing outside
 * src/providers tests a kind by name; what a layer needs to know of a kind is a trait of its row
 * (test/providers/fake-kind.test.ts adds a kind by its row alone and runs it through the engine).
 *
 * Outcomes are classified inside the provider: classify-claude.ts, classify-codex.ts and
 * classify-gemini.ts (on top of classify-common.ts) for the CLIs, exit codes in command.ts,
 * the steps in script.ts. What the loop then does with each outcome is the engine's
 * exhaustive table (src/engine/loop/outcome-policy.ts).
 *
 * `Provider.close()` releases what a provider keeps between runs (a session, a terminal). The
 * engine calls it when a candidate ends, on cancel and on crash paths; it is idempotent, so a
 * second call is harmless. The providers here keep nothing, so theirs do nothing.
 */
import { err } from '../result.js';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import { PROVIDER_TABLE, type ProviderEntry, type ProviderTraits } from './table.js';
import type { PreparedAgent, PrepareOptions, PrepareResult, Provider, ProviderDefinition, ProviderSection } from './types.js';

export type { PreparedAgent, PrepareOptions, PrepareResult } from './types.js';
export { PROVIDER_TABLE, type ProviderEntry, type ProviderTraits } from './table.js';

/** The kinds of the table, in its order. */
export const AVAILABLE_PROVIDERS: readonly ProviderKind[] = Object.keys(PROVIDER_TABLE) as ProviderKind[];

/** The row of `kind`, or undefined when this version has no such provider (a name from a run folder of another version). */
function entryOf(kind: string): ProviderEntry | undefined {
  return Object.hasOwn(PROVIDER_TABLE, kind) ? (PROVIDER_TABLE[kind as ProviderKind] as ProviderEntry) : undefined;
}

/** The traits of `kind`; a kind this version does not know has the defaults. */
export function traitsOf(kind: string): ProviderTraits {
  return entryOf(kind) ?? {};
}

/** Whether `kind`'s agent reports what it spent (see ProviderTraits.reportsCost). */
export function reportsCost(kind: string): boolean {
  return traitsOf(kind).reportsCost ?? true;
}

/** Whether a person can attach to `kind`'s agent (see ProviderTraits.attachable). */
export function isAttachable(kind: string): boolean {
  return traitsOf(kind).attachable ?? false;
}

const loading = new Map<string, Promise<ProviderDefinition>>();
/** The definitions loaded so far, for the synchronous install-hint look-up and createProvider. */
const loaded = new Map<string, ProviderDefinition>();

/** The definition of `kind`, loaded once; undefined when this version has no such provider. */
export function loadDefinition(kind: string): Promise<ProviderDefinition | undefined> {
  const entry = entryOf(kind);
  if (!entry) return Promise.resolve(undefined);
  let definition = loading.get(kind);
  if (!definition) {
    definition = entry.load().then((d) => {
      loaded.set(kind, d);
      return d;
    });
    loading.set(kind, definition);
  }
  return definition;
}

/** Every definition of the table, loaded: for whoever needs every kind at once (the providers' tests). */
export async function loadAllDefinitions(): Promise<{ readonly [K in ProviderKind]: ProviderDefinition<K> }> {
  const all = await Promise.all(AVAILABLE_PROVIDERS.map(async (kind) => [kind, await loadDefinition(kind)] as const));
  return Object.fromEntries(all) as { readonly [K in ProviderKind]: ProviderDefinition<K> };
}

/** The install hint of the provider whose CLI is called `program` ("codex"), among those loaded. */
export function installHintFor(program: string): string | undefined {
  return loaded.get(program)?.installHint;
}

/** `"claude", "codex" or "script"`: the kinds of the table, for messages. */
function kindList(): string {
  const quoted = AVAILABLE_PROVIDERS.map((kind) => `"${kind}"`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

/**
 * Checks that a candidate's agent can start and resolves its paths (see the module doc).
 * `key` is the dotted spec key for messages; `scripts` caches parsed script files.
 */
export async function prepareAgent(settings: ProviderSettings, options: PrepareOptions): Promise<PrepareResult> {
  const definition = await loadDefinition(settings.kind);
  if (!definition) return err(`${options.key}.kind: the "${settings.kind}" provider is not available in this version of bestof; use kind = ${kindList()}`);
  // A prepare asks for the install hint of the program it was given (`kind = "command"` with
  // `command = "codex"` gets codex's): that program's definition, if it names one, is loaded first.
  if (settings.command !== undefined) await loadDefinition(settings.command);
  return definition.prepare(settings, { ...options, installHintFor });
}

/**
 * The Provider for one candidate or reviewer. `section` is the spec's `[providers.<kind>]` table for
 * `settings.kind` (`spec.providers[settings.kind]`), undefined when the spec has none. Its kind's
 * definition is the one prepareAgent loaded for `agent`: a run loads only the kinds its spec names.
 */
export function createProvider(settings: ProviderSettings, agent: PreparedAgent, section: ProviderSection | undefined): Provider {
  const definition = loaded.get(settings.kind);
  // prepareAgent refuses kinds this version cannot run, and loads the others: reaching this is a bug.
  if (!definition) throw new Error(`bug: provider "${settings.kind}" was not prepared before it was created`);
  return definition.create(settings, agent, section);
}
