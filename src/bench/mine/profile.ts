/**
 * What `bestof bench mine` takes from the repo's own spec: the check that counts its tests by name
 * (a `report` check: the visible check of every task, and the command validation and the hidden
 * oracle run), the paths the checks keep as in base, `editable`, `[setup]` and `[sandbox]`. From the
 * repo's bestof.toml when it has one (the file on disk at the root, as `bestof run` reads it), else
 * from what `bestof init` would write there (src/checks/probe-at.ts). The tables are copied into the
 * task specs as the user wrote them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'smol-toml';
import { parseDuration } from '../../spec/duration.js';
import { probeAt } from '../../checks/probe-at.js';
import { TEST_REPORT_KINDS, type TestReportKind } from '../../spec/schema-parts.js';
import { starterSpec } from '../../spec/starter.js';
import { err, ok, type Result } from '../../result.js';
import type { SuiteCheck } from './suite.js';

type Table = Record<string, unknown>;

export interface MineProfile {
  /** Where the settings came from, for the reports: "bestof.toml" or "bestof init". */
  readonly source: string;
  /** The check, as a `[[checks.items]]` table. */
  readonly check: Table;
  readonly suite: SuiteCheck;
  readonly frozen: readonly string[];
  readonly protected: readonly string[];
  readonly editable: readonly string[];
  /** `[setup]` and `[sandbox]` as written (copied into the tasks), when present. */
  readonly setup: Table | undefined;
  readonly sandbox: Table | undefined;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export async function mineProfile(root: string, checkName: string | undefined): Promise<Result<MineProfile>> {
  const specPath = join(root, 'bestof.toml');
  let raw: Table;
  let source: string;
  if (existsSync(specPath)) {
    try {
      raw = parse(readFileSync(specPath, 'utf8')) as Table;
    } catch (error) {
      return err(`${specPath} is not valid TOML (${(error as Error).message.split('\n')[0]}); \`bestof validate\` says where`);
    }
    source = 'bestof.toml';
  } else {
    raw = parse(starterSpec({ name: basename(root) || 'repo', probe: await probeAt(root) })) as Table;
    source = 'bestof init';
  }
  const checks = (raw.checks ?? {}) as Table;
  const items = Array.isArray(checks.items) ? (checks.items as Table[]) : [];
  const check = checkName !== undefined ? items.find((item) => item.name === checkName) : items.find((item) => typeof item.report === 'string');
  const from = source === 'bestof.toml' ? specPath : `what \`bestof init\` finds in ${root}`;
  if (check === undefined) {
    const names = items.map((item) => `\`${String(item.name)}\`${typeof item.report === 'string' ? ` (report ${item.report})` : ''}`);
    return err(
      checkName !== undefined
        ? `no check named "${checkName}" in ${from}${names.length > 0 ? ` (its checks: ${names.join(', ')})` : ''}`
        : `mining needs a check that reports its tests by name (report = "junit", "tap" or "go-json"), and ${from} has none${names.length > 0 ? ` (its checks: ${names.join(', ')})` : ''}: add one to bestof.toml (docs/checks.md has one for each runner) or name it with --check`,
    );
  }
  const report = check.report;
  if (typeof report !== 'string' || !(TEST_REPORT_KINDS as readonly string[]).includes(report) || typeof check.command !== 'string') {
    return err(
      `check "${String(check.name)}" of ${from} has no report (report = "junit", "tap" or "go-json"): mining counts tests by name; add its report (docs/checks.md)`,
    );
  }
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const setup = raw.setup as Table | undefined;
  return ok({
    source,
    check,
    suite: {
      command: check.command,
      report: report as TestReportKind,
      timeoutMs: (typeof check.timeout === 'string' || typeof check.timeout === 'number' ? parseDuration(check.timeout) : undefined) ?? DEFAULT_TIMEOUT_MS,
      setup: strings(setup?.commands),
    },
    frozen: strings(checks.frozen),
    protected: strings(checks.protected),
    editable: strings(checks.editable),
    setup,
    sandbox: raw.sandbox as Table | undefined,
  });
}
