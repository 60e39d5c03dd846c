import { describe, expect, it } from 'vitest';
import { costOf, estimateCost, findPrice, parsePriceFile, pricesFor } from '../../src/providers/prices.js';

describe('prices', () => {
  it('configs/prices.toml parses and has the codex and gemini tables', () => {
    expect(findPrice(pricesFor('codex', undefined), 'gpt-5')).toMatchObject({ input: 1.25, output: 10 });
    expect(findPrice(pricesFor('gemini', undefined), 'gemini-2.5-flash')).toMatchObject({ input: 0.3 });
  });

  it('finds the exact name, else the longest listed name the model extends with "-"', () => {
    const table = { 'gpt-5': { input: 1, output: 2 }, 'gpt-5-mini': { input: 3, output: 4 } };
    expect(findPrice(table, 'gpt-5-mini-2026-01-01')).toBe(table['gpt-5-mini']);
    expect(findPrice(table, 'gpt-5-codex')).toBe(table['gpt-5']);
    expect(findPrice(table, 'gpt-5.5')).toBeUndefined();
  });

  it('the spec overrides the table model by model', () => {
    const table = pricesFor('codex', { 'gpt-5': { input: 9, output: 9 }, 'gpt-new': { input: 1, output: 1 } });
    expect(table['gpt-5']).toEqual({ input: 9, output: 9 });
    expect(table['gpt-5-mini']).toBeDefined();
    expect(table['gpt-new']).toBeDefined();
  });

  it('costs per million tokens; cache prices default to the input price', () => {
    expect(costOf({ input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 }, { input: 1, output: 2, cache_read: 0.1 })).toBeCloseTo(
      1 + 2 + 0.1 + 1,
    );
  });

  it('estimateCost adds the models it knows and names the ones it does not', () => {
    const usage = { input: 1000, output: 1000, cacheRead: 0, cacheWrite: 0 };
    const none = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    const result = estimateCost({ a: { input: 1, output: 1 } }, [
      { model: 'a', usage },
      { model: 'b', usage },
      { model: 'idle', usage: none },
    ]);
    expect(result).toEqual({ costUsd: 0.002, missing: ['b'] });
  });

  it('a price without input or output is an error that names it', () => {
    expect(() => parsePriceFile('[codex]\n"m" = { input = 1 }\n')).toThrow(/codex\."m" needs numbers `input` and `output`/);
  });
});
