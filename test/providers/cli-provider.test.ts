import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retryAfterFromText } from '../../src/providers/classify-common.js';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { redactArgs } from '../../src/providers/cli-provider.js';
import { codexModel, sandboxArgs, tomlValue } from '../../src/providers/codex.js';
import { approvalArgs } from '../../src/providers/gemini.js';
import type { ProviderSettings } from '../../src/spec/schema.js';

const base: ProviderSettings = { kind: 'codex', args: [], env: {}, timeout: 1000, isolate_config: false };

describe('argv pieces', () => {
  it('redacts the prompt and secret-looking values, keeps the rest', () => {
    expect(redactArgs(['exec', '-c', 'api_key="x"', '-c', 'model="gpt-5"', 'sk-abc', '--', 'the prompt'], { promptIndex: 7 })).toEqual([
      'exec',
      '-c',
      'api_key=<redacted>',
      '-c',
      'model="gpt-5"',
      '<redacted>',
      '--',
      '<prompt>',
    ]);
  });

  it('redacts auth headers, secret flags (next arg or =value) and URL credentials', () => {
    expect(
      redactArgs([
        '--header',
        'Authorization: Bearer abc.def-123',
        '-H',
        'x-api-key: k-123456',
        '-H',
        'Content-Type: application/json',
        '--header=Cookie: session=abcdef',
        '--api-key',
        'plainvalue1',
        '--token=plainvalue2',
        '--password',
        'hunter2',
        '--max-tokens',
        '4096',
        '--no-auth',
        '--verbose',
        'https://user:pa55@example.com/repo.git',
        'ssh://git@example.com/repo.git',
        'GITHUB_TOKEN=plainvalue3',
        'ghp_0123456789abcdef0123456789abcdef0123',
      ]),
    ).toEqual([
      '--header',
      'Authorization: <redacted>',
      '-H',
      'x-api-key: <redacted>',
      '-H',
      'Content-Type: application/json',
      '--header=Cookie: <redacted>',
      '--api-key',
      '<redacted>',
      '--token=<redacted>',
      '--password',
      '<redacted>',
      '--max-tokens',
      '4096',
      '--no-auth',
      '--verbose',
      'https://<redacted>@example.com/repo.git',
      'ssh://git@example.com/repo.git',
      'GITHUB_TOKEN=<redacted>',
      '<redacted>',
    ]);
  });

  it("redacts every arg that holds one of the run's secret values, with the run's redactor", () => {
    const secret = 'svc-token-0123456789';
    const redact = createSecretSet([['FAKE_SERVICE_TOKEN', secret]]).redact;
    expect(redactArgs(['--endpoint', `https://api.example.com/?k=${secret}`, `--label=${secret}`, 'plain'], { redact })).toEqual([
      '--endpoint',
      'https://api.example.com/?k=<redacted:FAKE_SERVICE_TOKEN>',
      '--label=<redacted:FAKE_SERVICE_TOKEN>',
      'plain',
    ]);
    expect(redactArgs(['--label', secret])).toEqual(['--label', secret]);
  });

  it('codex -c values are TOML: strings quoted (with escapes), numbers and booleans bare', () => {
    expect(tomlValue('a "b"')).toBe('"a \\"b\\""');
    expect(tomlValue(3)).toBe('3');
    expect(tomlValue(false)).toBe('false');
  });

  it('codex sandbox: workspace-write by default, "bypass" turns off approvals and sandbox', () => {
    expect(sandboxArgs(undefined)).toEqual(['--sandbox', 'workspace-write']);
    expect(sandboxArgs('read-only')).toEqual(['--sandbox', 'read-only']);
    expect(sandboxArgs('bypass')).toEqual(['--dangerously-bypass-approvals-and-sandbox']);
  });

  it('gemini approval: auto_edit by default, yolo as --yolo', () => {
    expect(approvalArgs(undefined)).toEqual(['--approval-mode', 'auto_edit']);
    expect(approvalArgs('yolo')).toEqual(['--yolo']);
    expect(approvalArgs('plan')).toEqual(['--approval-mode', 'plan']);
  });
});

describe('the codex model for pricing', () => {
  it('the spec model, then -c model, then the top-level model of CODEX_HOME/config.toml', () => {
    const home = mkdtempSync(join(tmpdir(), 'bestof-codex-home-'));
    try {
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, 'config.toml'), 'model = "gpt-5-codex"\n[profiles.x]\nmodel = "o3"\n');
      expect(codexModel(base, 'gpt-5', { CODEX_HOME: home })).toBe('gpt-5');
      expect(codexModel({ ...base, config: { model: 'o4-mini' } }, undefined, { CODEX_HOME: home })).toBe('o4-mini');
      expect(codexModel(base, undefined, { CODEX_HOME: home })).toBe('gpt-5-codex');
      expect(codexModel(base, undefined, { CODEX_HOME: join(home, 'none') })).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('retryAfterFromText', () => {
  it.each([
    ['Please retry in 45.5s.', 45_500],
    ['try again in 20 seconds', 20_000],
    ['Try again in 5 minutes', 300_000],
    ['retry in 250ms', 250],
    ['This request would exceed your rate limit.', undefined],
  ])('%s', (text, ms) => expect(retryAfterFromText(text)).toBe(ms));
});
