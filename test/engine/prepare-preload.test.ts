/**
 * The run's preparation starts loading the process runner's modules (execa), so that the import
 * happens while the candidates' first git calls run and not inside the first check's process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRunContext } from '../../src/engine/run-context.js';
import { prepareRun } from '../../src/engine/run-phases/prepare.js';
import { processRunnerRequested, runProcess } from '../../src/process/run-process.js';
import { makeLoopProject, planFor, type LoopProject } from './loop-harness.js';

let project: LoopProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

describe('prepareRun', () => {
  it('starts loading the process runner before any process is started', async () => {
    project = makeLoopProject();
    const plan = await planFor(project);
    const ctx = createRunContext(plan, { signal: new AbortController().signal, listeners: [], resume: undefined });
    expect(processRunnerRequested()).toBe(false);
    await prepareRun(ctx);
    expect(processRunnerRequested()).toBe(true);
    // The preloaded runner is the one processes start with.
    const run = await runProcess('sh', ['-c', 'echo ok'], { cwd: project.outside, env: { PATH: process.env.PATH } });
    expect(run.ok).toBe(true);
    expect(run.stdout).toBe('ok\n');
  });
});
