/**
 * Writing report.html: at the end of every run (the CLI's run session), after a winner is
 * chosen in the compare view (../after-run.ts), and on `bestof show --html`. The diffs come
 * from git, so this is async, and it may fail (a repo moved, a full disk): the caller turns a
 * failure into a warning. A report never makes a run fail.
 *
 * What the page needs beyond the run's state comes from the run's frozen copy of its spec
 * (spec.toml in the run folder): the tie-break order, to name the one that decided, and the
 * agents' `env` tables, whose secret values are redacted like the run's own record (with those of
 * the repository's git config, read again from state.repo).
 */
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { RunState } from '../../engine/record/run-state.js';
import { readGitConfigSecrets } from '../../engine/sandbox/git-config-secrets.js';
import { REPORT_HTML_FILE, SPEC_FILE } from '../../engine/record/run-folder.js';
import { collectSecrets, type SecretSet } from '../../engine/sandbox/secrets.js';
import { err, ok, type Result } from '../../result.js';
import { TIE_BREAKS, type TieBreak } from '../../spec/schema.js';
import { collectRunDiffs } from './collect-diffs.js';
import { renderRunHtml } from './run-html.js';
import { DEFAULT_TIE_BREAK } from './verdict.js';

export interface WriteRunHtmlOptions {
  /** Where to write. @default <run folder>/report.html */
  readonly file?: string;
  /** The run's secrets. @default bestof's environment, the run spec's `env` tables (runSpecContext) and the repository's git config */
  readonly secrets?: SecretSet;
  /** The spec's `select.tie_break`. @default read from the run's spec.toml */
  readonly tieBreak?: readonly TieBreak[];
  readonly signal?: AbortSignal;
}

export interface RunSpecContext {
  readonly tieBreak: readonly TieBreak[];
  /** Every `env` table of the spec (the provider's, each parallel provider's, the reviewer's, the jury's). */
  readonly agentEnvs: readonly Record<string, string>[];
}

function envTables(value: unknown, found: Record<string, string>[]): Record<string, string>[] {
  if (Array.isArray(value)) for (const item of value) envTables(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'env' && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
        found.push(Object.fromEntries(Object.entries(inner).filter((e): e is [string, string] => typeof e[1] === 'string')));
      } else envTables(inner, found);
    }
  }
  return found;
}

/** The tie-break order and the agents' env tables from the run's spec.toml; the defaults when it cannot be read. */
export function runSpecContext(runDir: string): RunSpecContext {
  try {
    const data = parse(readFileSync(join(runDir, SPEC_FILE), 'utf8')) as { select?: { tie_break?: unknown } };
    const raw = data.select?.tie_break;
    const tieBreak = Array.isArray(raw) && raw.every((k) => (TIE_BREAKS as readonly unknown[]).includes(k)) ? (raw as TieBreak[]) : DEFAULT_TIE_BREAK;
    return { tieBreak, agentEnvs: envTables(data, []) };
  } catch {
    return { tieBreak: DEFAULT_TIE_BREAK, agentEnvs: [] };
  }
}

/** Writes the run's report.html (or `options.file`); the path written, or why it could not be. */
export async function writeRunHtml(runDir: string, state: RunState, options: WriteRunHtmlOptions = {}): Promise<Result<string>> {
  const file = options.file ?? join(runDir, REPORT_HTML_FILE);
  try {
    const context = runSpecContext(runDir);
    const gitConfig =
      options.secrets === undefined && state.repo !== '' ? await readGitConfigSecrets(state.repo, options.signal ? { signal: options.signal } : {}) : [];
    const secrets = options.secrets ?? collectSecrets({ environment: process.env, agentEnvs: context.agentEnvs, gitConfig });
    const diffs = await collectRunDiffs(state, options.signal ? { signal: options.signal } : {});
    const html = renderRunHtml(state, diffs, { secrets, tieBreak: options.tieBreak ?? context.tieBreak });
    await writeFile(file, html).catch(async (error: unknown) => {
      // A file cut short (a full disk) is no report: gone rather than half there.
      await rm(file, { force: true }).catch(() => undefined);
      throw error;
    });
    return ok(file);
  } catch (error) {
    return err(`report.html of run ${state.runId} was not written to ${file}: ${(error as Error).message}`);
  }
}
