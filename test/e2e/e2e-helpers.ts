/**
 * What the end-to-end tests with the real CLIs share: the pinned binaries, the
 * `[[parallel.providers]]` entry that points one CLI at the fake model server only, and the
 * checks on what a run leaves behind (processes, the network namespace).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/cli.js';
import type { Api } from './fake-model-server.js';

export type Cli = 'claude' | 'codex' | 'gemini';
export const CLIS: readonly Cli[] = ['claude', 'codex', 'gemini'];
export const API: Record<Cli, Api> = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' };

/** The pinned CLIs: from scripts/test-e2e.mjs, or installed here when the tests are run directly. */
export function pinnedClis(): Record<Cli, string> {
  const fromEnv = { claude: process.env.BESTOF_E2E_CLAUDE, codex: process.env.BESTOF_E2E_CODEX, gemini: process.env.BESTOF_E2E_GEMINI };
  if (fromEnv.claude && fromEnv.codex && fromEnv.gemini) return fromEnv as Record<Cli, string>;
  const out = execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'install-e2e-clis.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const paths = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => {
        const [name, , path] = line.split(' ');
        return [name, path];
      }),
  );
  return paths as Record<Cli, string>;
}

/**
 * In the network namespace of scripts/test-e2e.mjs, the interfaces this process sees (read from
 * /proc/net/dev): the tests expect only `lo`, so that a CLI that ignored its settings could reach
 * nothing. Undefined outside that namespace.
 */
export function namespaceInterfaces(): string[] | undefined {
  if (process.env.BESTOF_E2E_NETNS !== '1') return undefined;
  return readFileSync('/proc/net/dev', 'utf8')
    .split('\n')
    .slice(2)
    .map((line) => line.split(':')[0]!.trim())
    .filter(Boolean);
}

export interface CandidateOptions {
  readonly timeout?: string;
  readonly env?: Record<string, string>;
  readonly config?: Record<string, string | number | boolean>;
}

/** Where a provider entry points: the CLIs, the fake server, and the folder outside the repo for the CLIs' HOMEs. */
export interface EntryContext {
  readonly clis: Record<Cli, string>;
  readonly serverUrl: string;
  readonly outside: string;
}

/** One `[[parallel.providers]]` entry per CLI, each pointed at the fake server only. */
export function providerEntry(cli: Cli, context: EntryContext, options: CandidateOptions = {}): string {
  return tomlTable('[[parallel.providers]]', providerTable(cli, context, options));
}

/**
 * The keys of that entry (kind, the pinned binary, `isolate_config`, a `HOME` of the CLI's own
 * outside the repo, the fake server's URL and key, Codex's model provider): also a bench's
 * `[[agents]]` table, with an `id` added.
 */
export function providerTable(cli: Cli, context: EntryContext, options: CandidateOptions = {}): Record<string, unknown> {
  const home = join(context.outside, `home-${cli}`);
  mkdirSync(home, { recursive: true });
  const common = { HOME: home, ...options.env };
  const entry: Record<string, unknown> = { kind: cli, command: context.clis[cli], isolate_config: true, timeout: options.timeout ?? '150s' };
  if (cli === 'claude') {
    entry.env = { ...common, ...fakeServerEnv('claude', context.serverUrl), ...options.env };
  } else if (cli === 'codex') {
    entry.model = 'gpt-5';
    entry.env = { ...common, ...fakeServerEnv('codex', context.serverUrl) };
    // A custom model provider: it never tries WebSockets and reads its key from env_key.
    entry.config = {
      model_provider: 'fake',
      'model_providers.fake.name': 'fake',
      'model_providers.fake.base_url': `${context.serverUrl}/v1`,
      'model_providers.fake.env_key': 'FAKE_OPENAI_KEY',
      'model_providers.fake.wire_api': 'responses',
      'analytics.enabled': false,
      ...options.config,
    };
  } else {
    entry.model = 'gemini-2.5-flash';
    entry.env = { ...common, ...fakeServerEnv('gemini', context.serverUrl) };
  }
  return entry;
}

/** A TOML table (`[name]` or `[[name]]`) of plain values and inline tables. */
export function tomlTable(header: string, table: Record<string, unknown>): string {
  return `${header}\n${Object.entries(table)
    .map(([key, value]) => `${key} = ${toml(value)}`)
    .join('\n')}\n`;
}

/** The variables that send one CLI to the fake server, with a fake key (Codex's base URL is in its `config`). */
export function fakeServerEnv(cli: Cli, serverUrl: string): Record<string, string> {
  switch (cli) {
    case 'claude':
      return {
        ANTHROPIC_BASE_URL: serverUrl,
        ANTHROPIC_API_KEY: 'sk-ant-fake',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      };
    case 'codex':
      return { FAKE_OPENAI_KEY: 'sk-fake' };
    case 'gemini':
      return { GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: serverUrl };
  }
}

export function toml(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `{ ${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)} = ${toml(v)}`)
    .join(', ')} }`;
}

/** Processes whose working directory is inside `dir` (Linux /proc). */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
