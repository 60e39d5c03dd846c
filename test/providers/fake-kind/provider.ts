/**
 * A provider kind that exists only in the tests: the one file a new provider is. Its agent does
 * the task in one turn (writes the files the loop harness's five checks look for) and reports
 * no cost. test/providers/fake-kind.test.ts adds its row to the provider table.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { err, ok } from '../../../src/result.js';
import type { ProviderKind } from '../../../src/spec/schema.js';
import { ZERO_USAGE, type ProviderDefinition } from '../../../src/providers/types.js';

/** Its name in the spec; not one of the spec language's kinds, so typed as one by hand. */
export const FAKE_KIND = 'fake' as ProviderKind;

/** The prompts the fake agents were given, in order. */
export const fakePrompts: string[] = [];

export const fakeDefinition: ProviderDefinition = {
  kind: FAKE_KIND,
  installHint: 'nothing to install: the fake agent is part of the tests',
  // Like a real prepare: only looks, and names the spec key of what cannot work.
  prepare: async (settings, context) => (settings.model === 'unavailable' ? err(`${context.key}.model: the fake agent has no model "unavailable"`) : ok({})),
  create: (settings) => ({
    kind: settings.kind,
    async run(request) {
      fakePrompts.push(request.prompt);
      for (let k = 1; k <= 5; k++) await writeFile(join(request.cwd, `p${k}`), `fake iteration ${request.iteration}\n`);
      return { outcome: 'success', text: 'done', usage: ZERO_USAGE, costUsd: 0, costEstimated: false, sessionId: undefined, turns: 1, durationMs: 1 };
    },
    close: async () => {},
  }),
};
