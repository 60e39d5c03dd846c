/**
 * The table of provider kinds, each definition loaded on its first use (what a provider and its
 * definition are: ./registry.ts). A provider's module brings its stream parser, its classifier
 * and, for shannon, tmux; `bestof validate` of a spec whose agents are scripts needs none of the
 * CLIs', so the planner prepares agents through here and loads only the kinds the spec names
 * (scripts/bench-startup.mjs). ./registry.ts is the same table with every definition loaded,
 * for what creates providers.
 */
import { err } from '../result.js';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import type { PreparedAgent, PrepareOptions, PrepareResult, Provider, ProviderDefinition, ProviderSection } from './types.js';

/** Every provider this version can run, by kind. A kind missing here is refused by prepareAgent. */
export const DEFINITION_LOADERS: { readonly [K in ProviderKind]?: () => Promise<ProviderDefinition<K>> } = {
  claude: async () => (await import('./claude.js')).claudeDefinition,
  codex: async () => (await import('./codex.js')).codexDefinition,
  gemini: async () => (await import('./gemini.js')).geminiDefinition,
  // Interactive Claude Code in tmux.
  shannon: async () => (await import('./shannon/definition.js')).shannonDefinition,
  command: async () => (await import('./command.js')).commandDefinition,
  script: async () => (await import('./script.js')).scriptDefinition,
};

const loading = new Map<string, Promise<ProviderDefinition>>();
/** The definitions loaded so far, for the synchronous install-hint look-up. */
const loaded = new Map<string, ProviderDefinition>();

/** The definition of `kind`, loaded once; undefined when this version has no such provider. */
export function loadDefinition(kind: string): Promise<ProviderDefinition | undefined> {
  if (!Object.hasOwn(DEFINITION_LOADERS, kind)) return Promise.resolve(undefined);
  let definition = loading.get(kind);
  if (!definition) {
    const load = DEFINITION_LOADERS[kind as ProviderKind] as () => Promise<ProviderDefinition>;
    definition = load().then((d) => {
      loaded.set(kind, d);
      return d;
    });
    loading.set(kind, definition);
  }
  return definition;
}

/** The install hint of the provider whose CLI is called `program` ("codex"), among those loaded. */
export function loadedInstallHintFor(program: string): string | undefined {
  return loaded.get(program)?.installHint;
}

/**
 * Checks that a candidate's agent can start and resolves its paths (see ./registry.ts).
 * `key` is the dotted spec key for messages; `scripts` caches parsed script files.
 */
export async function prepareAgent(settings: ProviderSettings, options: PrepareOptions): Promise<PrepareResult> {
  const definition = await loadDefinition(settings.kind);
  if (!definition) {
    return err(
      `${options.key}.kind: the "${settings.kind}" provider is not available in this version of bestof; use kind = "claude", "codex", "gemini", "command" (any CLI) or "script"`,
    );
  }
  // A prepare asks for the install hint of the program it was given (`kind = "command"` with
  // `command = "codex"` gets codex's): that program's definition, if it names one, is loaded first.
  if (settings.command !== undefined) await loadDefinition(settings.command);
  return definition.prepare(settings, { ...options, installHintFor: loadedInstallHintFor });
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
