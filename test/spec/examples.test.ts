/**
 * The specs of docs/your-repo.md, "Using bestof on a Node, Python, Rust or Go repo" (configs/examples/):
 * each, copied as written to the root of a tiny real repo of its kind as bestof.toml, loads and
 * passes `bestof validate` there (its frozen paths match files, its agents' programs exist).
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSpecProblems } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { NO_EDITABLE_WARNING } from '../../src/engine/plan/plan.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { REPO_FIXTURES } from './repo-fixtures.js';

const { repo } = tempRepos();

const EXAMPLES = ['node', 'python', 'rust', 'go'] as const;

describe('configs/examples for each kind of repo', () => {
  it.each(EXAMPLES)('%s.toml loads and validates as written', async (kind) => {
    const r = repo(REPO_FIXTURES[kind]);
    const path = join(r.dir, 'bestof.toml');
    copyFileSync(join(PROJECT_ROOT, 'configs', 'examples', `${kind}.toml`), path);
    const loaded = await loadSpec(path);
    if (!loaded.ok) throw new Error(formatSpecProblems(loaded.error));
    const { spec } = loaded.value;
    expect(spec.name).toBe(`${kind}-fix`);
    expect(spec.parallel.providers.map((p) => p.kind)).toEqual(['command', 'command']);
    expect(spec.checks.frozen.length).toBeGreaterThan(0);
    expect(spec.checks.protected.length).toBeGreaterThan(0);
    expect(spec.setup.link).toEqual(kind === 'node' ? ['node_modules'] : []);
    const validate = await runCli(['validate'], { cwd: r.dir });
    // The node and rust examples name their code's folder; the python and go ones leave it to the
    // user (a package of their own, code at the root), and validate says what that risks.
    expect(validate.stderr).toBe(kind === 'node' || kind === 'rust' ? '' : `warning: ${NO_EDITABLE_WARNING}\n`);
    expect(validate.code).toBe(0);
  });
});
