/**
 * Durations have one rule: a string ("90s", "15m", "2h", "1h30m", "500ms") or a bare number of
 * seconds; and a duration that is a limit (a timeout, a wall-clock limit, the bench's
 * time_limit) is more than 0, since a limit of 0 would stop everything at once. The one wait,
 * `loop.rate_limit_backoff`, may be 0. The loader, the reference and the JSON Schemas say the same.
 */
import { parse, stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { benchJsonSchemaText, loadBenchSpec } from '../../src/bench/bench-spec.js';
import { loadSpec } from '../../src/spec/load.js';
import { DURATIONS_TEXT, specJsonSchema, specReferenceMarkdown } from '../../src/spec/reference.js';
import { EVERY_ENTRY, listSpecKeys } from '../../src/spec/schema-walk.js';
import { validateJsonSchema } from './json-schema-subset.js';
import { writeSpec } from './helpers.js';

const LIMITS = [
  'loop.duration',
  'loop.run_duration',
  'provider.timeout',
  'parallel.providers[].timeout',
  'checks.items[].timeout',
  'review.timeout',
  'vote.timeout',
  'select.distinguish.timeout',
  'select.distinguish.test_timeout',
  'setup.timeout',
  'shannon.startup_timeout',
  'shannon.idle_timeout',
  'shannon.hold_timeout',
];

/** A spec holding `value` at the key `pattern` (one entry for a list, with the keys an entry needs). */
function specWith(pattern: readonly string[], value: unknown): { data: Record<string, unknown>; path: string } {
  const data: Record<string, unknown> = { prompt: { text: 'x' } };
  let table = data;
  let path = '';
  pattern.forEach((segment, index) => {
    if (index === pattern.length - 1) {
      table[segment] = value;
      path += path === '' ? segment : `.${segment}`;
      return;
    }
    if (segment === EVERY_ENTRY) return;
    if (pattern[index + 1] === EVERY_ENTRY) {
      const entry: Record<string, unknown> = segment === 'items' ? { name: 't', command: 'true' } : {};
      table[segment] = [entry];
      table = entry;
      path += `${path === '' ? '' : '.'}${segment}[0]`;
    } else {
      // `[select.distinguish]` needs its tester.
      const inner =
        (table[segment] as Record<string, unknown> | undefined) ?? (segment === 'distinguish' ? { provider: { kind: 'command', command: 'true' } } : {});
      table[segment] = inner;
      table = inner;
      path += path === '' ? segment : `.${segment}`;
    }
  });
  return { data, path };
}

describe('durations', () => {
  it('every duration of the run spec is a limit but loop.rate_limit_backoff', () => {
    const durations = listSpecKeys().filter((key) => key.isDuration);
    expect(
      durations
        .filter((key) => key.isLimit)
        .map((key) => key.name)
        .sort(),
    ).toEqual([...LIMITS].sort());
    expect(durations.filter((key) => !key.isLimit).map((key) => key.name)).toEqual(['loop.rate_limit_backoff']);
  });

  describe.each(LIMITS)('%s', (name) => {
    const key = listSpecKeys().find((k) => k.name === name);

    it.each([0, '0s', '0ms', '0h0m', 0.0001])('refuses %j, saying why and what to do', async (zero) => {
      if (key === undefined) throw new Error(`no key ${name}`);
      const { data, path } = specWith(key.pattern, zero);
      const { specPath } = writeSpec(stringify(data));
      const result = await loadSpec(specPath);
      if (result.ok) throw new Error(`${name} = ${JSON.stringify(zero)} was accepted`);
      expect(result.error).toHaveLength(1);
      expect(result.error[0]).toMatchObject({ key: path });
      const got = JSON.stringify(zero).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(result.error[0]?.message).toMatch(
        new RegExp(`^expected a duration of more than 0, got ${got}: a limit of 0 would .+; remove the key for (the default|no limit)`),
      );
      expect(result.error[0]?.line).toBeDefined();
    });

    it('takes a bare number of seconds above 0', async () => {
      if (key === undefined) throw new Error(`no key ${name}`);
      const load = async (value: unknown) => loadSpec(writeSpec(stringify(specWith(key.pattern, value).data)).specPath);
      const accepted = await load(1.5);
      expect(accepted.ok ? 'ok' : accepted.error.map((p) => p.message).join('\n')).toBe('ok');
      expect((await load(0)).ok).toBe(false);
    });
  });

  it('says the default a removed key would give', async () => {
    const { specPath } = writeSpec('[prompt]\ntext = "x"\n[shannon]\nhold_timeout = "0s"\n');
    const result = await loadSpec(specPath);
    if (result.ok) throw new Error('expected a problem');
    expect(result.error[0]?.message).toBe(
      'expected a duration of more than 0, got "0s": a limit of 0 would let every turn end before its iteration is scored; remove the key for the default (20m)',
    );
  });

  it("lets loop.rate_limit_backoff be 0 (a wait, not a limit) while the loop's limits may not", async () => {
    for (const zero of ['0', '"0s"']) {
      const { specPath } = writeSpec(`[prompt]\ntext = "x"\n[loop]\nrate_limit_backoff = ${zero}\n`);
      const result = await loadSpec(specPath);
      if (!result.ok) throw new Error(result.error.map((p) => p.message).join('\n'));
      expect(result.value.spec.loop.rate_limit_backoff).toBe(0);
      const limited = await loadSpec(writeSpec(`[prompt]\ntext = "x"\n[loop]\nrate_limit_backoff = ${zero}\nduration = ${zero}\n`).specPath);
      expect(limited.ok ? [] : limited.error.map((p) => p.key)).toEqual(['loop.duration']);
    }
  });

  it("refuses the bench spec's time_limit of 0", async () => {
    const { specPath } = writeSpec('time_limit = "0s"\n[[tasks]]\nid = "t"\nspec = "t.toml"\n[[agents]]\nid = "a"\nkind = "claude"\n');
    const result = await loadBenchSpec(specPath);
    if (result.ok) throw new Error('time_limit = "0s" was accepted');
    expect(result.error.map((p) => `${p.line}:${p.column} ${p.key} ${p.message}`)).toEqual([
      '1:14 time_limit expected a duration of more than 0, got "0s": a limit of 0 would start no trial at all; remove the key for no limit',
    ]);
  });

  it('the reference says what a duration is, and marks the limits', () => {
    const reference = specReferenceMarkdown();
    expect(DURATIONS_TEXT).toContain('or a bare number of seconds');
    expect(reference).toContain(DURATIONS_TEXT);
    expect(reference).toContain('| `timeout` | duration > 0 | `"15m"` |');
    expect(reference).toContain('| `loop.rate_limit_backoff` | duration | `"10s"` |');
  });

  describe('the JSON Schemas', () => {
    const spec = specJsonSchema();
    const bench = JSON.parse(benchJsonSchemaText()) as Record<string, unknown>;
    const withTimeout = (timeout: unknown): unknown => ({ prompt: { text: 'x' }, provider: { timeout } });

    it.each([0, '0s', '0ms', ' 0h0m ', '0.0s'])('refuse a limit of %j', (zero) => {
      expect(validateJsonSchema(spec, withTimeout(zero))).toEqual(['$.provider.timeout: matches none of the allowed forms']);
      expect(validateJsonSchema(bench, { time_limit: zero, tasks: [{ id: 't', spec: 't.toml' }], agents: [{ id: 'a', kind: 'claude' }] })).toEqual([
        '$.time_limit: matches none of the allowed forms',
      ]);
    });

    it.each([1, 0.5, '1ms', '0.5s', '0h30m', '1h0m', '10', '90s'])('accept a limit of %j, and a wait of 0', (limit) => {
      expect(validateJsonSchema(spec, withTimeout(limit))).toEqual([]);
      expect(validateJsonSchema(spec, { prompt: { text: 'x' }, loop: { rate_limit_backoff: 0, duration: limit } })).toEqual([]);
      expect(validateJsonSchema(spec, { prompt: { text: 'x' }, loop: { rate_limit_backoff: '0s', duration: '0s' } })).toEqual([
        '$.loop.duration: matches none of the allowed forms',
      ]);
    });

    it('match what the loader reads', async () => {
      // Every form the JSON Schema takes for a limit loads, and the other way round; 0 neither.
      const verdicts: string[] = [];
      for (const written of ['1', '0.5', '"1ms"', '"0.5s"', '"0h30m"', '"0s"', '0', '"0h0m"', '"0.0s"']) {
        const { specPath } = writeSpec(`[prompt]\ntext = "x"\n[provider]\ntimeout = ${written}\n`);
        const loaded = await loadSpec(specPath);
        const value = (parse(`v = ${written}`) as { v: unknown }).v;
        expect(loaded.ok, written).toBe(validateJsonSchema(spec, withTimeout(value)).length === 0);
        if (!loaded.ok) verdicts.push(written);
      }
      expect(verdicts).toEqual(['"0s"', '0', '"0h0m"', '"0.0s"']);
    });
  });
});
