/**
 * The report pages' Content-Security-Policy: the page's own scripts run by the hash of their exact
 * text, and no other script can (no 'unsafe-inline' for scripts). That the pages' scripts still
 * work under it, in a real browser, is the report tier's (test/report-tier: no console error).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../src/report/html/page.js';

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

function policyOf(html: string): string {
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  expect(policy, 'the page has a policy').toBeDefined();
  return policy as string;
}

function directive(policy: string, name: string): string[] {
  const found = policy
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name);
  return found?.slice(1) ?? [];
}

describe("the report pages' Content-Security-Policy", () => {
  it("allows exactly the page's own scripts, each by the hash of the text inside its element", () => {
    const html = renderPage({ title: 't', body: '<p>x</p>', scripts: ['var lib = 1;'], script: 'document.title = "</script>";' });
    const texts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
    expect(texts).toHaveLength(2);
    expect(directive(policyOf(html), 'script-src')).toEqual(texts.map(sha256));
  });

  it('never allows inline scripts at large, and no script at all on a page without one', () => {
    const withScripts = policyOf(renderPage({ title: 't', body: '', script: 'void 0;' }));
    expect(directive(withScripts, 'script-src')).not.toContain("'unsafe-inline'");
    expect(directive(policyOf(renderPage({ title: 't', body: '' })), 'script-src')).toEqual(["'none'"]);
    expect(directive(withScripts, 'default-src')).toEqual(["'none'"]);
  });
});
