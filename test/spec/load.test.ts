import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSpecProblems, SpecError, type SpecProblem } from '../../src/spec/errors.js';
import { loadSpec, resolveSpecPath } from '../../src/spec/load.js';
import { writeSpec } from './helpers.js';

async function loadOk(toml: string, files: Record<string, string> = {}) {
  const { dir, specPath } = writeSpec(toml, files);
  const result = await loadSpec(specPath);
  if (!result.ok) throw new Error(formatSpecProblems(result.error));
  return { ...result.value, dir };
}

async function problemsOf(toml: string): Promise<SpecProblem[]> {
  const { specPath } = writeSpec(toml);
  const result = await loadSpec(specPath);
  if (result.ok) throw new Error('expected the spec to be invalid');
  // Print as if the user had typed `bestof run spec.toml` in the spec's folder.
  return result.error.map((problem) => ({ ...problem, file: 'spec.toml' }));
}

describe('loadSpec', () => {
  it('fills every default for a minimal spec', async () => {
    const { spec, source } = await loadOk('[prompt]\ntext = "x"\n');
    expect(source).toBe('[prompt]\ntext = "x"\n');
    expect(spec.name).toBe('bestof');
    expect(spec.repo).toBeUndefined();
    expect(spec.base).toBe('HEAD');
    expect(spec.prompt).toEqual({ text: 'x' });
    expect(spec.loop).toEqual({ allow_regression: true, checkpoint: true, rate_limit_backoff: 10_000, max_rate_limit_waits: 8 });
    expect(spec.budget).toEqual({});
    expect(spec.breaker).toEqual({ same_failure_iterations: 3, error_iterations: 3, no_diff_iterations: 3 });
    expect(spec.provider).toEqual({ kind: 'claude', args: [], env: {}, timeout: 15 * 60_000, isolate_config: false });
    expect(spec.providers).toEqual({});
    expect(spec.parallel).toEqual({ max_concurrency: 4, providers: [] });
    expect(spec.prompts).toEqual([]);
    expect(spec.checks).toEqual({ frozen: [], protected: [], items: [], editable: [] });
    expect(spec.review).toBeUndefined();
    expect(spec.vote).toEqual({
      enabled: false,
      cross_review: true,
      method: 'borda',
      weight: 0.5,
      voters: [],
      material: 'diff',
      show_reviews: false,
      timeout: 600000,
      max_material: 204800,
    });
    expect(spec.select).toEqual({
      min_score: 0,
      tie_break: ['score', 'cost', 'diff_size', 'duration'],
      merge: 'merge',
      allow_tampered: false,
      stop_others: 'never',
      allow_autorun: true,
    });
    expect(spec.sandbox).toEqual({ mode: 'auto', checks: true, hide: [], check_network: 'own' });
    expect(spec.setup).toEqual({ commands: [], copy: [], link: [], base_port: 4100, timeout: 10 * 60_000 });
    expect(spec.git).toEqual({ auto_commit: true, branch_prefix: 'bestof', keep_worktrees: false, worktrees: 'plain', max_file_size: 10 * 1024 * 1024 });
    expect(spec.shannon).toEqual({ command: 'claude', startup_timeout: 60_000, idle_timeout: 120_000, hold_timeout: 1_200_000 });
  });

  it('fills the defaults of check items and candidates', async () => {
    const { spec } = await loadOk('[prompt]\ntext = "x"\n[[checks.items]]\nname = "test"\ncommand = "npm test"\n[[parallel.providers]]\nkind = "codex"\n');
    expect(spec.checks.items).toEqual([{ name: 'test', command: 'npm test', score: 1, timeout: 10 * 60_000, from_iteration: 1, kind: 'score' }]);
    expect(spec.parallel.providers).toEqual([{ kind: 'codex' }]);
  });

  it.each([
    ['"10MB"', 10 * 1024 ** 2],
    ['"500KB"', 500 * 1024],
    ['"500 kb"', 500 * 1024],
    ['"1.5GiB"', 1.5 * 1024 ** 3],
    ['"2m"', 2 * 1024 ** 2],
    ['"2048"', 2048],
    ['"100B"', 100],
    ['4096', 4096],
    ['"off"', undefined],
    ['"OFF"', undefined],
  ])('reads git.max_file_size = %s as %s bytes', async (written, bytes) => {
    const { spec } = await loadOk(`[prompt]\ntext = "x"\n[git]\nmax_file_size = ${written}\n`);
    expect(spec.git.max_file_size).toBe(bytes);
  });

  it('turns durations into milliseconds', async () => {
    const { spec } = await loadOk(`[prompt]
text = "x"
[loop]
duration = "1h30m"
run_duration = "2h"
[provider]
timeout = "90s"
[[parallel.providers]]
timeout = "500ms"
[[checks.items]]
name = "test"
command = "npm test"
timeout = 45
[setup]
timeout = "1.5m"
`);
    expect(spec.loop.duration).toBe(90 * 60_000);
    expect(spec.loop.run_duration).toBe(2 * 3_600_000);
    expect(spec.provider.timeout).toBe(90_000);
    expect(spec.parallel.providers[0]?.timeout).toBe(500);
    expect(spec.checks.items[0]?.timeout).toBe(45_000);
    expect(spec.setup.timeout).toBe(90_000);
  });

  it('refuses only the paths and globs that leave the repo', async () => {
    const inside =
      'output_file = "notes/./output.md"\n[checks]\nfrozen = ["/test/**", "./scripts/check.sh", ":(exclude)docs/**", "lib/../test/x.js"]\neditable = ["src/**"]\n';
    const { spec } = await loadOk(`[prompt]\ntext = "x"\n${inside}`);
    expect(spec.prompt.output_file).toBe('notes/./output.md');
    expect(spec.checks.frozen).toEqual(['/test/**', './scripts/check.sh', ':(exclude)docs/**', 'lib/../test/x.js']);
    const outside = 'output_file = "notes/../../output.md"\n[checks]\nfrozen = ["/test/**", "./../scripts/check.sh"]\neditable = ["src/**", "/../x"]\n';
    expect((await problemsOf(`[prompt]\ntext = "x"\n${outside}`)).map((p) => p.key)).toEqual(['prompt.output_file', 'checks.frozen[1]', 'checks.editable[1]']);
  });

  it('suggests a value only when one is close, and only for text', async () => {
    const problems = await problemsOf('[prompt]\ntext = "x"\n[provider]\nkind = "gpt"\n[select]\nmerge = 3\ninto = "main"\n[sandbox]\nmode = "of"\n');
    expect(problems.map((p) => p.message)).toEqual([
      'expected one of "claude", "codex", "gemini", "shannon", "command", "script", got "gpt"',
      'expected one of "merge", "squash", "ff", "branch", "pr", "none", got 3',
      'expected one of "auto", "required", "off", got "of" — did you mean "off"?',
    ]);
  });

  it('resolves paths relative to the spec file, not to the working directory', async () => {
    const nestedToml = '[prompt]\nfile = "../prompts/task.md"\n[provider]\nkind = "script"\nscript = "../steps.toml"\n';
    const { dir, specPath } = writeSpec(nestedToml, {
      'nested/spec.toml': nestedToml,
      'prompts/task.md': 'Fix it',
      'steps.toml': '',
    });
    const nestedSpec = join(dir, 'nested', 'spec.toml');

    const result = await loadSpec(relative(process.cwd(), nestedSpec));
    if (!result.ok) throw new Error(formatSpecProblems(result.error));
    expect(result.value.specPath).toBe(nestedSpec);
    expect(result.value.specDir).toBe(join(dir, 'nested'));
    expect(result.value.spec.prompt.file).toBe('../prompts/task.md');
    expect(resolveSpecPath(result.value.specDir, result.value.spec.prompt.file ?? '')).toBe(join(dir, 'prompts', 'task.md'));
    expect(resolveSpecPath(result.value.specDir, '/abs/steps.toml')).toBe('/abs/steps.toml');

    // The same text one folder up names files that are not there.
    const outer = await loadSpec(specPath);
    expect(outer.ok ? [] : outer.error.map((p) => p.key)).toEqual(['prompt.file', 'provider.script']);
  });

  it('names the spec file in problems the way the user gave it', async () => {
    const { specPath } = writeSpec('[prompt]\n');
    const given = relative(process.cwd(), specPath);
    const result = await loadSpec(given);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error[0]?.file).toBe(given);
  });

  it('finds keys in dotted keys, quoted keys and inline tables', async () => {
    const problems = await problemsOf(`[prompt]
text = "x"
[providers.codex.prices."gpt-4.1"]
input = 1
output = "cheap"
[loop]
score_threshold.value = 3
`);
    expect(problems.map((p) => `${p.line}:${p.column} ${p.key}`)).toEqual(['5:10 providers.codex.prices."gpt-4.1".output', '7:1 loop.score_threshold']);
  });

  it('skips strings, arrays and comments that look like keys', async () => {
    const problems = await problemsOf(`[prompt]
text = """
[loop]
max_iterations = "not a key"
"""
[setup]
commands = [
  "FOO=1 npm ci", # base_port = 1
  '''
tmieout = 2
''',
]
tmieout = 3
`);
    expect(problems.map((p) => `${p.line}:${p.column} ${p.key}`)).toEqual(['13:1 setup.tmieout']);
  });
});

describe('formatSpecProblems', () => {
  it('prints a TOML syntax error with the line and a caret', async () => {
    const problems = await problemsOf('[prompt]\ntext = "Fix the tests\n');
    expect(formatSpecProblems(problems)).toBe(
      [
        'spec.toml:2:22: invalid TOML: unterminated string: a "..." string must end on the same line (use """...""" for text over several lines)',
        '   2 | text = "Fix the tests',
        '     |                      ^',
      ].join('\n'),
    );
  });

  it('prints a schema error with the dotted key, the value and a caret', async () => {
    const problems = await problemsOf(`[prompt]
text = "x"

[[checks.items]]
name = "test"
command = "npm test"

[[checks.items]]
name = "lint"
command = "npm run lint"
    timeout = -1
`);
    expect(formatSpecProblems(problems)).toBe(
      [
        'spec.toml:11:15: checks.items[1].timeout: expected a duration like "90s", "15m" or "2h", or a number of seconds, got -1',
        '  11 |     timeout = -1',
        '     |               ^',
      ].join('\n'),
    );
  });

  it('prints problems without a position on one line', () => {
    expect(formatSpecProblems([{ file: 'spec.toml', key: 'prompt', message: 'the task is required' }])).toBe('spec.toml: prompt: the task is required');
    expect(formatSpecProblems([{ file: 'a.toml', message: 'file not found' }])).toBe('a.toml: file not found');
  });

  it('shows at most `max` problems, then how many more there are', () => {
    const problems = Array.from({ length: 13 }, (_, i): SpecProblem => ({ file: 's.toml', key: `k${i}`, message: 'bad' }));
    const lines = formatSpecProblems(problems).split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[9]).toBe('s.toml: k9: bad');
    expect(lines[10]).toBe('... and 3 more');
    expect(formatSpecProblems(problems, { max: 2 }).split('\n')).toEqual(['s.toml: k0: bad', 's.toml: k1: bad', '... and 11 more']);
    expect(formatSpecProblems(problems.slice(0, 10))).not.toContain('more');
  });

  it('keeps tabs under tabs so the caret lines up', () => {
    const text = formatSpecProblems([{ file: 's.toml', line: 3, column: 5, message: 'bad', excerpt: '\t\tx = 1' }]);
    expect(text.split('\n')[2]).toBe('     | \t\t  ^');
  });
});

describe('SpecError', () => {
  it('carries the problems and a code, and reads like the formatted problems', () => {
    const problems: SpecProblem[] = [{ file: 'spec.toml', key: 'name', message: 'bad name' }];
    const error = new SpecError(problems);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('SPEC_INVALID');
    expect(error.name).toBe('SpecError');
    expect(error.problems).toBe(problems);
    expect(error.message).toBe('spec.toml: name: bad name');
  });
});
