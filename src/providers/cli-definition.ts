/**
 * The definition shared by the real agent CLIs (claude, codex, gemini): prepare finds the
 * binary (`command` in the spec, else the CLI's own name on PATH), checks a login or key it
 * can use, then the settings that cannot work with this CLI; create hands the binary, the
 * settings and the spec's `[providers.<kind>] prices` to the CLI's provider.
 */
import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findOnPath } from '../process/find-on-path.js';
import { err, ok } from '../result.js';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import type { CliOptions } from './cli-provider.js';
import type { CredentialsCheck } from './credentials.js';
import type { Env } from '../env.js';
import type { PrepareContext, PrepareResult, Provider, ProviderDefinition } from './types.js';

export interface CliDefinitionParts<K extends ProviderKind> {
  readonly kind: K;
  readonly installHint: string;
  readonly missingCredentials: CredentialsCheck;
  /** A setting this CLI cannot honour, as a whole message with the spec key; checked last. */
  readonly unworkableSettings?: (settings: ProviderSettings, env: Env, key: string, sandboxed: boolean) => string | undefined;
  readonly createProvider: (options: CliOptions) => Provider;
}

export function defineCliProvider<K extends ProviderKind>(parts: CliDefinitionParts<K>): ProviderDefinition<K> {
  return {
    kind: parts.kind,
    installHint: parts.installHint,
    prepare: (settings, context) => prepareCli(parts, settings, context),
    create(settings, agent, section) {
      if (!agent.command) throw new Error(`bug: a ${parts.kind} candidate without its binary`);
      return parts.createProvider({ binary: agent.command, settings, prices: section?.prices });
    },
  };
}

async function prepareCli<K extends ProviderKind>(parts: CliDefinitionParts<K>, settings: ProviderSettings, context: PrepareContext): Promise<PrepareResult> {
  const { key } = context;
  const { kind, installHint } = parts;
  const env = { ...process.env, ...settings.env };
  let command: string | undefined;
  if (settings.command?.includes('/')) {
    command = resolve(context.specDir, settings.command);
    try {
      await access(command, constants.X_OK);
    } catch {
      return err(`${key}.command: ${command} does not exist or is not executable; ${installHint}`);
    }
  } else {
    const program = settings.command ?? kind;
    command = await findOnPath(program, env.PATH);
    if (!command) return err(`${key}: the ${kind} CLI ("${program}") was not found on PATH; ${installHint}`);
  }
  const missing = parts.missingCredentials(settings, env);
  if (missing) return err(`${key}: ${missing}`);
  const unworkable = parts.unworkableSettings?.(settings, env, key, context.sandboxed ?? false);
  if (unworkable) return err(unworkable);
  return ok({ command });
}
