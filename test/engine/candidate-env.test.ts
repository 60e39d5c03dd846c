/** The agents' environment: what it adds to the user's so that tools installed in the user's HOME work in the sandbox. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { candidateEnv, checkEnv } from '../../src/engine/plan/candidate-env.js';
import type { CandidatePlan, RunPlan } from '../../src/engine/plan/plan.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

const plan = { runId: 'r1', runKey: 'k1', repoRoot: '/nonexistent/repo' } as RunPlan;
const candidate = { id: 'c1', index: 1, port: 3001, worktree: '/nonexistent/worktrees/r1/c1', settings: { env: {} } } as unknown as CandidatePlan;

afterEach(() => vi.unstubAllEnvs());

describe('candidateEnv: RUSTUP_HOME', () => {
  it("points rustup's proxies at the user's ~/.rustup (the sandbox gives the agent a HOME of its own)", () => {
    const home = tempDir();
    mkdirSync(join(home, '.rustup'));
    vi.stubEnv('HOME', home);
    vi.stubEnv('RUSTUP_HOME', undefined);
    expect(candidateEnv(plan, candidate).RUSTUP_HOME).toBe(join(home, '.rustup'));
  });

  it("keeps the user's own RUSTUP_HOME, and adds none without a ~/.rustup", () => {
    const home = tempDir();
    vi.stubEnv('HOME', home);
    vi.stubEnv('RUSTUP_HOME', undefined);
    expect(candidateEnv(plan, candidate)).not.toHaveProperty('RUSTUP_HOME');
    mkdirSync(join(home, '.rustup'));
    vi.stubEnv('RUSTUP_HOME', '/opt/rustup');
    expect(candidateEnv(plan, candidate).RUSTUP_HOME).toBe('/opt/rustup');
  });
});

describe('checkEnv: toolchain homes', () => {
  it("keeps the checks on the user's rustup, cargo and Go folders when their variables are unset (their HOME is a fresh one)", () => {
    const home = tempDir();
    for (const dir of ['.rustup', '.cargo', 'go']) mkdirSync(join(home, dir));
    vi.stubEnv('HOME', home);
    for (const name of ['RUSTUP_HOME', 'CARGO_HOME', 'GOPATH']) vi.stubEnv(name, undefined);
    const env = checkEnv(plan, candidate);
    expect([env.RUSTUP_HOME, env.CARGO_HOME, env.GOPATH]).toEqual([join(home, '.rustup'), join(home, '.cargo'), join(home, 'go')]);
    // The agent gets rustup's only: cargo writes its downloads into its own HOME.
    expect(candidateEnv(plan, candidate)).not.toHaveProperty('CARGO_HOME');
  });
});
