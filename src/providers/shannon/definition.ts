/**
 * The `shannon` provider's definition (see ../definitions.ts): prepare checks tmux, the Claude Code
 * program (a candidate's own `command`, else `[shannon] command`, else `claude` on PATH), the
 * login, and that bestof's own build is there for the hook command; create makes the Provider
 * (./provider.ts).
 *
 * `[shannon]` reaches prepare as the context's `shannon` (the planner passes the spec's); without
 * it the section's defaults hold.
 */
import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import { probeTmux } from '../../process/tmux.js';
import { err, ok } from '../../result.js';
import { claudeDefinition } from '../claude.js';
import type { PreparedAgent, PrepareContext, PrepareResult, ProviderDefinition } from '../types.js';
import { hookCommandUsable } from './hook-settings.js';
import { createShannonProvider, SHANNON_DEFAULTS } from './provider.js';
import type { ShannonSection } from './options.js';

const TMUX_HINT = 'install tmux (Debian/Ubuntu: `apt-get install tmux`; Fedora: `dnf install tmux`; macOS: `brew install tmux`)';

/** What prepare resolves: the program, and the `[shannon]` section the provider runs with. */
interface ShannonAgent extends PreparedAgent {
  readonly shannon: ShannonSection;
}

export const shannonDefinition: ProviderDefinition<'shannon'> = {
  kind: 'shannon',
  installHint: `${claudeDefinition.installHint ?? 'install Claude Code'}; and ${TMUX_HINT}`,
  async prepare(settings, context): Promise<PrepareResult> {
    const section = sectionOf(context);
    const { key } = context;
    const env = { ...process.env, ...settings.env };
    const tmux = await probeTmux(env);
    if (!tmux.ok)
      return err(
        `${key}: kind = "shannon" runs Claude Code in tmux, and ${tmux.error.replace(/^tmux is not on PATH: /, 'tmux is not on PATH; ')}; or use kind = "claude" (headless, no tmux)`,
      );
    if (!hookCommandUsable())
      return err(`${key}: kind = "shannon" needs bestof's build (dist/) for its hook command; run \`npm run build\` in the bestof folder`);

    // A path in [shannon] is the spec's, checked here so the message names that key.
    let command = settings.command ?? section.command;
    if (settings.command === undefined && command.includes('/')) {
      command = resolve(context.specDir, command);
      try {
        await access(command, constants.X_OK);
      } catch {
        return err(`shannon.command: ${command} does not exist or is not executable; ${claudeDefinition.installHint ?? ''}`);
      }
    }
    // Claude Code's own checks: the program, a login, settings it refuses.
    const claude = await claudeDefinition.prepare({ ...settings, kind: 'claude', command, isolate_config: false }, context);
    if (!claude.ok && / not found/.test(claude.error) && !command.includes('/')) {
      // claude's message names the claude CLI; here the program comes from a key of the spec: name it.
      const where = settings.command === undefined ? 'shannon.command' : `${key}.command`;
      return err(
        `${where}: "${command}" (the Claude Code program of kind = "shannon") is not on PATH; set ${where} to its path, or ${claudeDefinition.installHint ?? 'install Claude Code'}`,
      );
    }
    if (!claude.ok) return claude;
    const agent: ShannonAgent = { ...claude.value, shannon: section };
    return ok(agent);
  },
  create(settings, agent, section) {
    if (!agent.command) throw new Error('bug: a shannon candidate without its program');
    const shannon = 'shannon' in agent ? (agent as ShannonAgent).shannon : SHANNON_DEFAULTS;
    return createShannonProvider({ binary: agent.command, settings, section: shannon, prices: section?.prices });
  },
};

function sectionOf(context: PrepareContext): ShannonSection {
  return context.shannon ?? SHANNON_DEFAULTS;
}
