/**
 * Adding a provider is one file and one row of the provider table (src/providers/table.ts). This
 * test adds a kind that way, a file (./fake-kind/provider.ts) and its row (the mock below, the
 * same row a real kind has: a loader and its traits), and runs it through the real planner and a
 * whole run of the engine: prepared, created, called, scored, its label and its unknown cost read
 * from its row. The spec's list of kinds is generated from the table's rows by `npm run gen:spec`
 * (test/spec/provider-kinds.test.ts adds this row to the table's text and finds the kind in the
 * list); here the test stands in for the regenerated list by giving the parsed spec its kind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planRun } from '../../src/engine/plan/plan.js';
import { executeRun } from '../../src/engine/run/run.js';
import { AVAILABLE_PROVIDERS, isAttachable, reportsCost } from '../../src/providers/definitions.js';
import { specSchema, type Spec, type SpecInput } from '../../src/spec/schema.js';
import { FIVE_CHECKS, makeLoopProject, type LoopProject } from '../engine/loop-harness.js';
import { FAKE_KIND, fakePrompts } from './fake-kind/provider.js';

vi.mock('../../src/providers/table.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/providers/table.js')>();
  return {
    ...real,
    PROVIDER_TABLE: {
      ...real.PROVIDER_TABLE,
      // The one line: the kind's file, loaded on first use, and what the other layers ask of it.
      fake: {
        load: async () => (await import('./fake-kind/provider.js')).fakeDefinition,
        reportsCost: false,
        label: (s: { model?: string }) => `fake-agent${s.model ? `@${s.model}` : ''}`,
      },
    },
  };
});

let project: LoopProject;
beforeEach(() => {
  project = makeLoopProject();
  fakePrompts.length = 0;
});
afterEach(() => project.cleanup());

/** A spec of two candidates of the fake kind, through the real schema. */
function fakeSpec(model?: string): Spec {
  const parsed = specSchema.parse({
    name: 'fake-kind',
    repo: project.repo.dir,
    prompt: { text: 'Make the checks pass.' },
    provider: { kind: 'command', command: 'true' },
    parallel: { candidates: 2 },
    select: { merge: 'branch' },
    checks: { items: FIVE_CHECKS },
  } as SpecInput);
  return { ...parsed, provider: { ...parsed.provider, kind: FAKE_KIND, command: undefined, ...(model ? { model } : {}) } };
}

const plan = (spec: Spec) => planRun({ spec, specPath: `${project.outside}/spec.toml`, specDir: project.outside, source: '' });

describe('a provider added by its file and one row of the table', () => {
  it('is a kind of the table, with the traits of its row and the defaults for the rest', () => {
    expect(AVAILABLE_PROVIDERS).toContain(FAKE_KIND);
    expect(reportsCost(FAKE_KIND)).toBe(false);
    expect(isAttachable(FAKE_KIND)).toBe(false);
  });

  it('runs through the planner and the engine: prepared, created, called, scored, and its row read', async () => {
    const planned = await plan(fakeSpec());
    if (!planned.ok) throw new Error(planned.error.join('; '));
    expect(planned.value.candidates.map((c) => [c.provider, c.label])).toEqual([
      [FAKE_KIND, 'fake-agent'],
      [FAKE_KIND, 'fake-agent'],
    ]);

    const state = await executeRun(planned.value, { signal: new AbortController().signal });
    expect(fakePrompts).toHaveLength(2);
    expect(fakePrompts[0]).toContain('Make the checks pass.');
    expect(state.status).toBe('winner');
    for (const c of Object.values(state.candidates)) {
      expect(c.provider).toBe(FAKE_KIND);
      expect(c.score).toBe(100);
      // Its row says it reports no cost: $0 spent is an unknown cost, not a free one.
      expect(c.costKnown).toBe(false);
    }
    expect(state.winner).toBeDefined();
  });

  it("its prepare's problem stops the plan, with the spec key, before anything runs", async () => {
    const planned = await plan(fakeSpec('unavailable'));
    expect(planned.ok).toBe(false);
    expect(!planned.ok && planned.error).toContain('provider.model: the fake agent has no model "unavailable"');
    expect(fakePrompts).toEqual([]);
  });
});
