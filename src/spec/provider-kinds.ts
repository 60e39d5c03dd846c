/**
 * GENERATED from src/providers/table.ts by scripts/lib/provider-kinds.mjs (`npm run gen:spec`): do not edit.
 * The provider kinds of the spec language, in the table's order, and what the spec checks of each.
 */

/** What the spec language says of one provider kind (a row's `spec` field in the provider table). */
export interface KindInSpec {
  /** Said after its name where the kinds are listed. */
  readonly note?: string;
  /** The key its agents cannot do without, and an example value for the message that asks for it. */
  readonly needs?: { readonly key: 'command' | 'script'; readonly example: string };
}

export const PROVIDER_KIND_FACTS = {
  claude: {},
  codex: {},
  gemini: {},
  shannon: { note: 'interactive Claude Code in tmux' },
  command: { needs: { key: 'command', example: 'path/to/agent' } },
  script: { needs: { key: 'script', example: 'path/to/steps.toml' } },
} as const satisfies Readonly<Record<string, KindInSpec>>;
