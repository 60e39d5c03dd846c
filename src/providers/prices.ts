/**
 * Cost estimates from tokens, for the CLIs that report no cost (Codex, Gemini CLI). The
 * built-in table is configs/prices.toml; a spec's `[providers.<kind>.prices."<model>"]`
 * entries override it model by model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { packageRoot } from '../package-root.js';
import { isObject } from './stream-lines.js';
import type { TokenUsage } from './types.js';

/** USD per million tokens (the shape of `[providers.<kind>.prices."<model>"]` in a spec). */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cache_read?: number | undefined;
  readonly cache_write?: number | undefined;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

let builtIn: Readonly<Record<string, PriceTable>> | undefined;

/** Parses a prices file: `[<kind>]` tables of `"<model>" = { input, output, cache_read?, cache_write? }`. */
export function parsePriceFile(source: string): Record<string, PriceTable> {
  const data = parse(source);
  const tables: Record<string, PriceTable> = {};
  for (const [kind, models] of Object.entries(data)) {
    if (!isObject(models)) continue;
    const table: Record<string, ModelPrice> = {};
    for (const [model, price] of Object.entries(models)) {
      if (!isObject(price) || typeof price.input !== 'number' || typeof price.output !== 'number') {
        throw new Error(`prices.toml: ${kind}."${model}" needs numbers \`input\` and \`output\` (USD per million tokens)`);
      }
      table[model] = {
        input: price.input,
        output: price.output,
        cache_read: typeof price.cache_read === 'number' ? price.cache_read : undefined,
        cache_write: typeof price.cache_write === 'number' ? price.cache_write : undefined,
      };
    }
    tables[kind] = table;
  }
  return tables;
}

/** The built-in prices of one provider kind, merged with the spec's overrides. */
export function pricesFor(kind: string, overrides: PriceTable | undefined): PriceTable {
  builtIn ??= parsePriceFile(readFileSync(join(packageRoot(), 'configs', 'prices.toml'), 'utf8'));
  return { ...(builtIn[kind] ?? {}), ...(overrides ?? {}) };
}

/** The price of a model: the exact name, else the longest listed name it extends with "-". */
export function findPrice(table: PriceTable, model: string): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    if (model.startsWith(`${name}-`) && (best === undefined || name.length > best.length)) best = name;
  }
  return best === undefined ? undefined : table[best];
}

export function costOf(usage: TokenUsage, price: ModelPrice): number {
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  return (
    usage.input * perToken(price.input) +
    usage.output * perToken(price.output) +
    usage.cacheRead * perToken(price.cache_read ?? price.input) +
    usage.cacheWrite * perToken(price.cache_write ?? price.input)
  );
}

/**
 * The estimated cost of tokens spent on each model; `missing` names the models without a price
 * (they add nothing to `costUsd`, and make the cost unknown: src/engine/record/cost-known.ts) so the caller can say so.
 */
export function estimateCost(table: PriceTable, perModel: readonly { model: string; usage: TokenUsage }[]): { costUsd: number; missing: string[] } {
  let costUsd = 0;
  const missing: string[] = [];
  for (const { model, usage } of perModel) {
    const spent = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    if (spent === 0) continue;
    const price = findPrice(table, model);
    if (price) costUsd += costOf(usage, price);
    else missing.push(model);
  }
  return { costUsd, missing };
}

/** The activity line that says a model had no price. */
export function missingPriceNote(kind: string, models: readonly string[]): string {
  return `no price for ${models.map((m) => `"${m}"`).join(', ')} in configs/prices.toml: its cost is unknown (shown as "–", and ranked after every known cost); add [providers.${kind}.prices."${models[0]}"] to the spec`;
}
