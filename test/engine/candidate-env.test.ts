/** The agents' environment: what it adds to the user's so that tools installed in the user's HOME work in the sandbox. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { candidateEnv } from '../../src/engine/candidate-env.js';
import type { CandidatePlan, RunPlan } from '../../src/engine/plan.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const plan = { runId: 'r1', runKey: 'k1' } as RunPlan;
const candidate = { id: 'c1', index: 1, port: 3001, settings: { env: {} } } as unknown as CandidatePlan;

afterEach(() => vi.unstubAllEnvs());

describe('candidateEnv: RUSTUP_HOME', () => {
  it("points rustup's proxies at the user's ~/.rustup (the sandbox gives the agent a HOME of its own)", () => {
    const home = makeTempDir('bestof-home-');
    mkdirSync(join(home, '.rustup'));
    vi.stubEnv('HOME', home);
    vi.stubEnv('RUSTUP_HOME', undefined);
    expect(candidateEnv(plan, candidate).RUSTUP_HOME).toBe(join(home, '.rustup'));
  });

  it("keeps the user's own RUSTUP_HOME, and adds none without a ~/.rustup", () => {
    const home = makeTempDir('bestof-home-');
    vi.stubEnv('HOME', home);
    vi.stubEnv('RUSTUP_HOME', undefined);
    expect(candidateEnv(plan, candidate)).not.toHaveProperty('RUSTUP_HOME');
    mkdirSync(join(home, '.rustup'));
    vi.stubEnv('RUSTUP_HOME', '/opt/rustup');
    expect(candidateEnv(plan, candidate).RUSTUP_HOME).toBe('/opt/rustup');
  });
});
