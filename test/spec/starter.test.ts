import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatSpecProblems } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { installedSchemaUrl, starterSpec } from '../../src/spec/starter.js';
import { writeSpec } from './helpers.js';

describe('starterSpec', () => {
  it('loads without problems as written', async () => {
    const { specPath } = writeSpec(starterSpec({ name: 'fix-date-parser' }));
    const result = await loadSpec(specPath);
    if (!result.ok) throw new Error(formatSpecProblems(result.error));
    const { spec } = result.value;
    expect(spec.name).toBe('fix-date-parser');
    expect(spec.prompt.text).toContain('Describe the task');
    expect(spec.parallel.candidates).toBe(3);
    expect(spec.parallel.providers.map((p) => p.kind)).toEqual(['claude', 'codex', 'gemini']);
    // Without a look at a repo (src/spec/repo-probe.ts) nothing is guessed: one check to replace, no frozen path.
    expect(spec.checks.frozen).toEqual([]);
    expect(spec.checks.items.map((c) => c.name)).toEqual(['test']);
    expect(spec.checks.items[0]?.command).toContain('put your test command here');
    expect(spec.select.merge).toBe('branch');
  });

  it('still loads when every commented-out setting is switched on', async () => {
    // Uncomment `# key = value` lines and `# [table]` headers, but not the prose comments.
    const uncommented = starterSpec({ name: 'all-on' })
      .split('\n')
      .map((line) => line.replace(/^# ((?:\[{1,2}[a-z_.]+\]{1,2}|[a-z_]+ = ).*)$/, '$1'))
      .join('\n')
      // A task is either text or a file: keep the file.
      .replace(/^text = """[\s\S]*?"""\n/m, '');
    const { specPath } = writeSpec(uncommented, {
      'prompt.md': 'task',
      'retry.md': 'retry',
      'review.md': 'review',
      'prompts/implement.md': 'implement',
    });
    const result = await loadSpec(specPath);
    if (!result.ok) throw new Error(`${formatSpecProblems(result.error)}\n\n${uncommented}`);
    expect(result.value.spec.review?.prompt_file).toBe('review.md');
    // init suggests an allow-list of what agents may change.
    expect(result.value.spec.checks.editable).toEqual(['src/**']);
    expect(result.value.spec.vote.enabled).toBe(true);
    expect(result.value.spec.prompts).toHaveLength(1);
    expect(result.value.spec.parallel.providers.map((p) => p.kind)).toEqual(['claude', 'codex', 'gemini', 'command']);
    expect(result.value.spec.parallel.providers[0]?.permission_mode).toBe('acceptEdits');
  });

  it('makes any name a valid run name', async () => {
    const { specPath } = writeSpec(starterSpec({ name: 'My App (v2)' }));
    const result = await loadSpec(specPath);
    if (!result.ok) throw new Error(formatSpecProblems(result.error));
    expect(result.value.spec.name).toBe('My-App-v2-');
  });

  it('comments every setting it writes, also the checks found in a repo', () => {
    const probe = {
      kinds: ['node' as const],
      checks: [
        { name: 'test', command: 'npm test', source: 'package.json "test" script' },
        { name: 'lint', command: 'npm run lint', source: 'package.json "lint" script' },
      ],
      frozen: ['test/**'],
      testsFrozen: true,
      protected: ['**/.npmrc'],
      link: ['node_modules'],
      editable: ['src/**'],
    };
    for (const toml of [starterSpec({ name: 'x' }), starterSpec({ name: 'x', probe })]) {
      const settings = toml.split('\n').filter((line) => /^[a-z_]+ = /.test(line) && !line.startsWith('text = '));
      expect(settings.length).toBeGreaterThan(20);
      expect(settings.filter((line) => !line.includes('#'))).toEqual([]);
    }
  });

  it('presents the vote as what it is: it runs when enabled', () => {
    const toml = starterSpec({ name: 'x' });
    expect(toml).not.toMatch(/does nothing|not yet|not implemented/i);
    expect(toml).toContain("# Optional: after the final scoring, the candidates (or a jury of other agents) review each\n# other's anonymised work and vote");
  });

  it('starts with a #:schema line for editors when given the schema, and still loads', async () => {
    const toml = starterSpec({ name: 'x', schema: 'file:///opt/bestof/configs/bestof.schema.json' });
    expect(toml.split('\n')[0]).toBe('#:schema file:///opt/bestof/configs/bestof.schema.json');
    expect(starterSpec({ name: 'x' })).not.toContain('#:schema');
    const result = await loadSpec(writeSpec(toml).specPath);
    if (!result.ok) throw new Error(formatSpecProblems(result.error));
  });

  it("points at this package's JSON Schema, as an absolute file URL", () => {
    const url = installedSchemaUrl();
    expect(url).toMatch(/^file:\/\/.*\/configs\/bestof\.schema\.json$/);
    expect(existsSync(fileURLToPath(url))).toBe(true);
  });
});
