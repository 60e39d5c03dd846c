/**
 * Debian's Chromium for the report tier, through playwright-core (which downloads no browser of
 * its own): a fresh profile per launch, no network features, and every request the page makes
 * recorded, so that a test can say that nothing left the page. Without the browser the tier
 * skips with a message, except under CI, where a missing browser is a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';

export const CHROMIUM = process.env.BESTOF_CHROMIUM ?? '/usr/bin/chromium';

/** Where the tier's screenshots go (under .cache/, which git ignores). */
export const OUTPUT_DIR = process.env.BESTOF_TEST_OUTPUT ?? join(PROJECT_ROOT, '.cache', 'test-output', 'report-tier');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `describe` when Chromium is there; else a skip that says why, or under CI a failing test that says how to install it. */
export function describeInChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  const install = `install it with \`apt-get install -y chromium\` (or point BESTOF_CHROMIUM at a Chromium binary)`;
  if (process.env.CI) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`the report tier needs Chromium at ${CHROMIUM}, and it is missing: ${install}; .ci/run installs it`);
      });
    });
    return;
  }
  process.stderr.write(`report tier: skipped: no Chromium at ${CHROMIUM}; ${install}\n`);
  describe.skip(name, body);
}

export interface OpenedPage {
  readonly page: Page;
  /** Every URL the page requested, in order. */
  readonly requests: string[];
  /** Errors thrown by the page's scripts, and errors it logged (a script the Content-Security-Policy refused). */
  readonly errors: string[];
  close(): Promise<void>;
}

/** Opens `file` in a fresh headless Chromium profile. */
export async function openInChromium(file: string): Promise<OpenedPage> {
  const profile = mkdtempSync(join(tmpdir(), 'bestof-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`file://${file}`);
  return {
    page,
    requests,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot in the tier's output folder; its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = join(OUTPUT_DIR, name);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Only the page itself (file:) and data: URLs: nothing that leaves the machine. */
export function leavingRequests(requests: readonly string[]): string[] {
  return requests.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'));
}
