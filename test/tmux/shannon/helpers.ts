/**
 * The shannon provider's tests: one provider over the fake interactive Claude Code
 * (test/fixtures/bin/fake-claude-tui) in a temp git repo, its requests, and the fake's log.
 * Every provider made here is closed after the test.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { TmuxSession } from '../../../src/process/tmux.js';
import { tmuxSocketOf } from '../../../src/providers/shannon/paths.js';
import { createShannonProvider, SHANNON_DEFAULTS } from '../../../src/providers/shannon/provider.js';
import type { ShannonSection } from '../../../src/providers/shannon/options.js';
import type { Provider, ProviderRequest, ProviderResult } from '../../../src/providers/types.js';
import type { ProviderSettings } from '../../../src/spec/schema.js';
import { PROJECT_ROOT } from '../../helpers/cli.js';
import { tempRepos } from '../../helpers/temp-repo.js';

export const FAKE = join(PROJECT_ROOT, 'test/fixtures/bin/fake-claude-tui');
export const { repo, tempDir, onCleanup } = tempRepos();
const open: Provider[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((provider) => provider.close()));
});

export interface LogLine {
  readonly pid: number;
  readonly event: string;
  readonly [key: string]: unknown;
}

export interface Setup {
  readonly provider: Provider;
  readonly worktree: string;
  readonly runDir: string;
  readonly logFile: string;
  readonly activity: string[];
  request(iteration: number, prompt: string, extra?: Partial<ProviderRequest>): ProviderRequest;
  log(): LogLine[];
  session(): TmuxSession;
}

export function setup(
  options: { env?: Record<string, string>; section?: Partial<ShannonSection>; settings?: Partial<ProviderSettings>; prices?: boolean } = {},
): Setup {
  const worktree = repo().dir;
  const runDir = tempDir();
  const logFile = join(runDir, 'fake.log');
  const settings: ProviderSettings = { kind: 'shannon', args: [], env: {}, timeout: 60_000, isolate_config: false, ...options.settings };
  const provider = createShannonProvider({
    binary: FAKE,
    settings,
    section: { ...SHANNON_DEFAULTS, startup_timeout: 30_000, idle_timeout: 30_000, ...options.section },
    ...(options.prices ? { prices: { 'claude-opus-5-5': { input: 3, output: 15 } } } : {}),
  });
  open.push(provider);
  const activity: string[] = [];
  return {
    provider,
    worktree,
    runDir,
    logFile,
    activity,
    request(iteration, prompt, extra = {}) {
      const artifactsDir = join(runDir, 'candidates', 'c1', `iteration-${iteration}`);
      mkdirSync(artifactsDir, { recursive: true });
      return {
        prompt,
        cwd: worktree,
        model: undefined,
        iteration,
        candidateId: 'c1',
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdefghijklmn',
          BESTOF_RUN: 'test-run',
          FAKE_TUI_LOG: logFile,
          FAKE_TUI_START_MS: '100',
          ...options.env,
        },
        timeoutMs: 60_000,
        artifactsDir,
        signal: new AbortController().signal,
        onActivity: (text) => activity.push(text),
        ...extra,
      };
    },
    log: () =>
      existsSync(logFile)
        ? readFileSync(logFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as LogLine)
        : [],
    session: () => ({ socket: tmuxSocketOf(runDir), name: 'c1' }),
  };
}

export const prompts = (log: LogLine[]) => log.filter((l) => l.event === 'prompt').map((l) => [l.source, l.text]);
export const pids = (log: LogLine[]) => [...new Set(log.map((l) => l.pid))];
export const sessionIds = (log: LogLine[]) => [...new Set(log.filter((l) => l.event === 'start').map((l) => l.sessionId))];

export function expectSuccess(result: ProviderResult, text: string): void {
  expect({ outcome: result.outcome, message: result.message, text: result.text }).toEqual({ outcome: 'success', message: undefined, text });
}
