/**
 * The table of provider kinds: one row per kind, the only place a kind is listed (how a provider
 * is made, and what its row holds: ./definitions.ts). A row says how to load the kind's file, on
 * its first use, and the kind's traits, which the other layers read without loading it.
 */
import { basename } from 'node:path';
import type { KindInSpec } from '../spec/provider-kinds.js';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import type { ProviderDefinition } from './types.js';

/** What the layers outside src/providers ask of a kind, answered without loading its module. */
export interface ProviderTraits {
  /**
   * The agent reports what it spent (a cost, or tokens bestof prices). false: a call that reports
   * no cost has an unknown one, shown as "–" and ranked after every known cost. @default true
   */
  readonly reportsCost?: boolean;
  /** The candidate's label when the spec gives none; undefined: `<kind>[:<model>]`. */
  readonly label?: (settings: ProviderSettings) => string | undefined;
  /**
   * The prompt reaches the agent as a program argument, which holds at most 128 KiB on Linux:
   * the planner refuses a longer prompt before the run. @default never
   */
  readonly promptAsArgument?: (settings: ProviderSettings) => boolean;
  /** A person can watch the agent's session or take it over (`bestof attach`). @default false */
  readonly attachable?: boolean;
  /**
   * The kind's name is an everyday word (command, script), not an agent's or a product's: the
   * vote's anonymiser leaves it in what the judges read instead of hiding it as a fingerprint.
   * @default false
   */
  readonly plainName?: boolean;
  /**
   * What the spec language says of the kind: a note after its name where the kinds are listed, the
   * key its agents need. Carried into src/spec/provider-kinds.ts by `npm run gen:spec` (the spec may
   * not import this table): only string literals here. @default {}
   */
  readonly spec?: KindInSpec;
}

/** One row of the table: the kind's file, loaded on first use, and its traits. */
export interface ProviderEntry<K extends ProviderKind = ProviderKind> extends ProviderTraits {
  readonly load: () => Promise<ProviderDefinition<K>>;
}

/** The table as the loader reads it; `PROVIDER_TABLE`'s own type says a row is there for every kind. */
export type ProviderTable = { readonly [K in ProviderKind]: ProviderEntry<K> };

/** Every provider this version can run, by kind: one row each, every kind of the spec required. */
export const PROVIDER_TABLE: ProviderTable = {
  claude: { load: async () => (await import('./claude.js')).claudeDefinition },
  codex: { load: async () => (await import('./codex.js')).codexDefinition },
  gemini: { load: async () => (await import('./gemini.js')).geminiDefinition },
  // Interactive Claude Code in tmux, which a person can watch or take over.
  shannon: {
    load: async () => (await import('./shannon/definition.js')).shannonDefinition,
    attachable: true,
    spec: { note: 'interactive Claude Code in tmux' },
  },
  // Any CLI: it reports no cost, its name is a plain word, its label is its program's, and `{prompt}`
  // (the default) is an argument.
  command: {
    load: async () => (await import('./command.js')).commandDefinition,
    spec: { needs: { key: 'command', example: 'path/to/agent' } },
    reportsCost: false,
    plainName: true,
    label: (s) => (s.command ? `${basename(s.command)}${s.model ? `:${s.model}` : ''}` : undefined),
    promptAsArgument: (s) => s.args.length === 0 || s.args.some((arg) => arg.includes('{prompt}')),
  },
  script: {
    load: async () => (await import('./script.js')).scriptDefinition,
    spec: { needs: { key: 'script', example: 'path/to/steps.toml' } },
    plainName: true,
    label: (s) => (s.script ? `script:${basename(s.script).replace(/\.toml$/, '')}` : undefined),
  },
};
