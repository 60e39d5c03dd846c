/** The built-in price table (configs/prices.toml) as the prefix lookup reads it: newer model ids must not land on an older model's price. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPrice, missingPriceNote, pricesFor } from '../../src/providers/prices.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

const price = (kind: string, model: string) => {
  const found = findPrice(pricesFor(kind, undefined), model);
  return found ? [found.input, found.output] : undefined;
};

describe('configs/prices.toml', () => {
  it('says when and against what it was checked', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'configs', 'prices.toml'), 'utf8')).toMatch(/^# checked on 2026-12-03 against "Pricing"/);
  });

  it("prices Opus 4.6 to 5 at $5 / $25, not at Opus 4's $15 / $75, and Opus 4.1 still at $15 / $75", () => {
    for (const model of ['claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5', 'claude-opus-4-5-20251101'])
      expect(price('shannon', model), model).toEqual([5, 25]);
    expect(price('shannon', 'claude-opus-4-1-20250805')).toEqual([15, 75]);
    expect(price('shannon', 'claude-opus-5-5')).toEqual([4, 20]);
  });

  it('prices the Claude 5 Sonnet and Haiku at their own rates, and the GPT-5.2 to 5.4 ids that matched no row', () => {
    expect(price('shannon', 'claude-sonnet-5')).toEqual([2, 10]);
    expect(price('shannon', 'claude-sonnet-5-5')).toEqual([2, 10]);
    expect(price('shannon', 'claude-sonnet-4-5')).toEqual([3, 15]);
    expect(price('shannon', 'claude-haiku-5-5')).toEqual([0.1, 0.5]);
    expect(price('shannon', 'claude-haiku-4-5')).toEqual([1, 5]);
    expect(price('codex', 'gpt-5.2-codex')).toEqual([1.75, 14]);
    expect(price('codex', 'gpt-5.3-codex')).toEqual([1.75, 14]);
    expect(price('codex', 'gpt-5.4')).toEqual([2.5, 15]);
  });

  it('the activity line for a missing price says the cost is unknown, not $0', () => {
    expect(missingPriceNote('gemini', ['gemini-9'])).toBe(
      'no price for "gemini-9" in configs/prices.toml: its cost is unknown (shown as "–", and ranked after every known cost); add [providers.gemini.prices."gemini-9"] to the spec',
    );
  });
});
