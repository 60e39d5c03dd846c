/**
 * Invalid specs, one per row: each must fail with a problem that names the dotted key (or
 * the line:column of a TOML syntax error) and says what is wrong.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpecProblem } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { writeSpec } from './helpers.js';

const TASK = '[prompt]\ntext = "Fix the failing tests"\n';

interface BadSpec {
  readonly title: string;
  readonly toml: string;
  /** The dotted key the problem must name (schema and file-system problems). */
  readonly key?: string;
  /** "line:column" the problem must point at (required for syntax errors). */
  readonly at?: string;
  readonly message: string;
  /** Files written beside the spec. */
  readonly files?: Record<string, string>;
  /** How many problems the spec has in all; default 1, so no row hides a second complaint. */
  readonly count?: number;
}

const rows: BadSpec[] = [
  // TOML syntax
  { title: 'unterminated string', toml: '[prompt]\ntext = "Fix the tests\n', at: '2:22', message: 'invalid TOML: unterminated string' },
  { title: 'unterminated string at end of file', toml: '[prompt]\ntext = "Fix', at: '2:8', message: 'unterminated string' },
  { title: 'duplicate key', toml: `${TASK}text = "again"\n`, at: '3:1', message: 'duplicate key "text"' },
  {
    title: 'table defined twice',
    toml: `${TASK}[loop]\nmax_iterations = 2\n[loop]\ncheckpoint = false\n`,
    at: '5:2',
    message: 'table [loop] is already defined above',
  },
  { title: 'bad table header', toml: '[prompt\ntext = "x"\n', at: '1:8', message: 'bad table header' },
  {
    title: 'unclosed array of tables header',
    toml: `${TASK}[[checks.items]\nname = "t"\n`,
    at: '3:16',
    message: 'invalid TOML: expected end of table array declaration',
  },
  { title: 'invalid value', toml: `${TASK}[git]\nauto_commit = yes\n`, at: '4:15', message: 'invalid TOML: invalid value' },
  // unknown keys
  {
    title: 'unknown top-level key',
    toml: `nmae = "fix"\n${TASK}`,
    key: 'nmae',
    at: '1:1',
    message: 'unknown key "nmae" at the top level — did you mean "name"?',
  },
  {
    title: 'unknown top-level key without a close match',
    toml: `colour = "blue"\n${TASK}`,
    key: 'colour',
    message: 'unknown key "colour" at the top level (known keys: name, repo, base',
  },
  {
    title: 'unknown nested key with a suggestion',
    toml: `${TASK}\n[[checks.items]]\nname = "test"\ncommand = "npm test"\n\n[[checks.items]]\nname = "lint"\ncommand = "npm run lint"\ntmieout = "5m"\n`,
    key: 'checks.items[1].tmieout',
    at: '11:1',
    message: 'unknown key "tmieout" in [checks.items[1]] — did you mean "timeout"?',
  },
  {
    title: 'unknown key in an inline table',
    toml: `${TASK}[provider]\nkind = "claude"\nenv = {}\nconfig = {}\n[vote]\nvoters = [{ kind = "codex", modle = "o3" }]\n`,
    key: 'vote.voters[0].modle',
    at: '8:29',
    message: 'did you mean "model"?',
  },
  {
    title: 'unknown provider kind under [providers]',
    toml: `${TASK}[providers.cluade]\nmax_concurrency = 2\n`,
    key: 'providers.cluade',
    at: '3:12',
    message: 'unknown key "cluade" in [providers] — did you mean "claude"?',
  },
  { title: 'top-level key written under a table', toml: `${TASK}base = "main"\n`, key: 'prompt.base', at: '3:1', message: '"base" is a top-level key' },
  // wrong types and values
  {
    title: 'number given as a string',
    toml: `${TASK}[loop]\nmax_iterations = "3"\n`,
    key: 'loop.max_iterations',
    at: '4:18',
    message: 'expected a number, got "3"',
  },
  { title: 'boolean given as a string', toml: `${TASK}[git]\nauto_commit = "yes"\n`, key: 'git.auto_commit', message: 'expected true or false, got "yes"' },
  {
    title: 'env value that is not a string',
    toml: `${TASK}[provider]\nenv = { DEBUG = 1 }\n`,
    key: 'provider.env.DEBUG',
    at: '4:17',
    message: 'expected a string, got 1',
  },
  {
    title: 'codex config value of the wrong type',
    toml: `${TASK}[provider]\nconfig = { effort = [1] }\n`,
    key: 'provider.config.effort',
    at: '4:21',
    message: 'expected a string, a number or true or false, got [1]',
  },
  {
    title: 'voter without a kind',
    toml: `${TASK}[vote]\nvoters = [{ model = "o3" }]\n`,
    key: 'vote.voters[0].kind',
    at: '4:11',
    message: 'required key is missing: expected one of "claude"',
  },
  { title: 'prompt given as a string', toml: 'prompt = "Fix it"\n', key: 'prompt', at: '1:10', message: 'expected a table, got "Fix it"' },
  {
    title: 'list of tables written as one table',
    toml: `${TASK}[parallel.providers]\nkind = "codex"\n`,
    key: 'parallel.providers',
    message: 'write [[parallel.providers]] once per entry',
  },
  {
    title: 'negative score',
    toml: `${TASK}[[checks.items]]\nname = "test"\ncommand = "npm test"\nscore = -5\n`,
    key: 'checks.items[0].score',
    at: '6:9',
    message: 'expected points of 0 or more, got -5',
  },
  {
    title: 'duration in words',
    toml: `${TASK}[[checks.items]]\nname = "test"\ncommand = "npm test"\ntimeout = "10 minutes"\n`,
    key: 'checks.items[0].timeout',
    at: '6:11',
    message: 'expected a duration like "90s", "15m" or "2h", or a number of seconds, got "10 minutes"',
  },
  {
    title: 'negative duration',
    toml: `${TASK}[provider]\ntimeout = -1\n`,
    key: 'provider.timeout',
    message: 'expected a duration like "90s", "15m" or "2h", or a number of seconds, got -1',
  },
  {
    title: 'duration given as a boolean',
    toml: `${TASK}[loop]\nduration = true\n`,
    key: 'loop.duration',
    message: 'expected a duration like "90s", "15m" or "2h", or a number of seconds, got true',
  },
  {
    title: 'agent timeout of "0s"',
    toml: `${TASK}[provider]\ntimeout = "0s"\n`,
    key: 'provider.timeout',
    at: '4:11',
    message: 'expected a duration of more than 0, got "0s": a limit of 0 would stop every agent call at once; remove the key for the default (15m)',
  },
  {
    title: 'check timeout of 0 seconds',
    toml: `${TASK}[[checks.items]]\nname = "test"\ncommand = "npm test"\ntimeout = 0\n`,
    key: 'checks.items[0].timeout',
    at: '6:11',
    message: 'got 0: a limit of 0 would fail the check at once; remove the key for the default (10m)',
  },
  {
    title: 'candidate timeout of "0h0m"',
    toml: `${TASK}[[parallel.providers]]\ntimeout = "0h0m"\n`,
    key: 'parallel.providers[0].timeout',
    message: 'got "0h0m": a limit of 0 would stop every agent call at once',
  },
  {
    title: 'loop.duration that rounds to 0ms',
    toml: `${TASK}[loop]\nduration = 0.0001\n`,
    key: 'loop.duration',
    message: 'a limit of 0 would stop every candidate at once; remove the key for no limit',
  },
  {
    title: 'size in words',
    toml: `${TASK}[git]\nmax_file_size = "ten megabytes"\n`,
    key: 'git.max_file_size',
    at: '4:17',
    message: 'expected a size like "10MB" or "500KB", a number of bytes, or "off", got "ten megabytes"',
  },
  {
    title: 'size of 0',
    toml: `${TASK}[git]\nmax_file_size = 0\n`,
    key: 'git.max_file_size',
    message: 'got 0 (0 would leave out every file; "off" is no limit)',
  },
  { title: 'negative size', toml: `${TASK}[git]\nmax_file_size = -1\n`, key: 'git.max_file_size', message: 'a number of bytes, or "off", got -1' },
  {
    title: 'size given as a boolean',
    toml: `${TASK}[git]\nmax_file_size = false\n`,
    key: 'git.max_file_size',
    message: 'expected a size like "10MB" or "500KB", a number of bytes, or "off"',
  },
  {
    title: 'unknown provider kind',
    toml: `${TASK}[provider]\nkind = "gpt"\n`,
    key: 'provider.kind',
    at: '4:8',
    message: 'expected one of "claude", "codex", "gemini", "shannon", "command", "script", got "gpt"',
  },
  {
    title: 'provider kind with a typo',
    toml: `${TASK}[provider]\nkind = "cluade"\n`,
    key: 'provider.kind',
    at: '4:8',
    message: 'expected one of "claude", "codex", "gemini", "shannon", "command", "script", got "cluade" — did you mean "claude"?',
  },
  { title: 'provider kind in capitals', toml: `${TASK}[provider]\nkind = "Codex"\n`, key: 'provider.kind', message: 'got "Codex" — did you mean "codex"?' },
  {
    title: 'candidate kind with a typo',
    toml: `${TASK}[[parallel.providers]]\nkind = "gemnii"\n`,
    key: 'parallel.providers[0].kind',
    message: 'got "gemnii" — did you mean "gemini"?',
  },
  { title: 'merge mode with a typo', toml: `${TASK}[select]\nmerge = "sqaush"\n`, key: 'select.merge', message: 'got "sqaush" — did you mean "squash"?' },
  {
    title: 'tie_break entry with a typo',
    toml: `${TASK}[select]\ntie_break = ["score", "cots"]\n`,
    key: 'select.tie_break[1]',
    at: '4:23',
    message: 'got "cots" — did you mean "cost"?',
  },
  { title: 'vote method with a typo', toml: `${TASK}[vote]\nmethod = "brda"\n`, key: 'vote.method', message: 'got "brda" — did you mean "borda"?' },
  { title: 'vote material with a typo', toml: `${TASK}[vote]\nmaterial = "fiel"\n`, key: 'vote.material', message: 'got "fiel" — did you mean "file"?' },
  {
    title: 'voter kind with a typo',
    toml: `${TASK}[vote]\nvoters = [{ kind = "codx" }]\n`,
    key: 'vote.voters[0].kind',
    message: 'got "codx" — did you mean "codex"?',
  },
  { title: 'reviewer kind with a typo', toml: `${TASK}[review]\nkind = "claud"\n`, key: 'review.kind', message: 'got "claud" — did you mean "claude"?' },
  {
    title: 'sandbox mode with a typo',
    toml: `${TASK}[sandbox]\nmode = "requried"\n`,
    key: 'sandbox.mode',
    message: 'got "requried" — did you mean "required"?',
  },
  {
    title: 'check kind with a typo',
    toml: `${TASK}[[checks.items]]\nname = "t"\ncommand = "npm test"\nkind = "fail_to_pas"\n`,
    key: 'checks.items[0].kind',
    message: 'got "fail_to_pas" — did you mean "fail_to_pass"?',
  },
  {
    title: 'unknown provider kind in a candidate',
    toml: `${TASK}[[parallel.providers]]\nkind = "claude"\n[[parallel.providers]]\nkind = "cursor"\n`,
    key: 'parallel.providers[1].kind',
    at: '6:8',
    message: 'got "cursor"',
  },
  {
    title: 'unknown merge mode',
    toml: `${TASK}[select]\nmerge = "rebase"\n`,
    key: 'select.merge',
    message: 'expected one of "merge", "squash", "ff", "branch", "pr", "none", got "rebase"',
  },
  {
    title: 'unknown tie_break value',
    toml: `${TASK}[select]\ntie_break = ["score", "speed"]\n`,
    key: 'select.tie_break[1]',
    at: '4:23',
    message: 'got "speed"',
  },
  {
    title: 'unknown vote method',
    toml: `${TASK}[vote]\nmethod = "condorcet"\n`,
    key: 'vote.method',
    message: 'expected one of "borda", "approval", "plurality"',
  },
  {
    title: 'max_iterations 0',
    toml: `${TASK}[loop]\nmax_iterations = 0\n`,
    key: 'loop.max_iterations',
    message: 'expected a whole number of at least 1, got 0',
  },
  {
    title: 'max_iterations 101',
    toml: `${TASK}[loop]\nmax_iterations = 101\n`,
    key: 'loop.max_iterations',
    message: 'expected at most 100 (the hard limit of iterations), got 101',
  },
  { title: 'max_iterations not whole', toml: `${TASK}[loop]\nmax_iterations = 2.5\n`, key: 'loop.max_iterations', message: 'expected a whole number, got 2.5' },
  { title: 'candidates 0', toml: `${TASK}[parallel]\ncandidates = 0\n`, key: 'parallel.candidates', message: 'at least 1, got 0' },
  { title: 'base_port too high', toml: `${TASK}[setup]\nbase_port = 70000\n`, key: 'setup.base_port', message: 'expected a number at most 65000, got 70000' },
  { title: 'vote weight 1.5', toml: `${TASK}[vote]\nweight = 1.5\n`, key: 'vote.weight', message: 'expected a number from 0 to 1, got 1.5' },
  {
    title: 'negative budget',
    toml: `${TASK}[budget]\nmax_total_cost_usd = -1\n`,
    key: 'budget.max_total_cost_usd',
    message: 'expected an amount in USD of 0 or more, got -1',
  },
  {
    title: 'bad name with spaces',
    toml: `name = "fix date parser"\n${TASK}`,
    key: 'name',
    at: '1:8',
    message: 'expected letters, digits, ".", "_" or "-" (it becomes part of branch names), got "fix date parser"',
  },
  { title: 'bad branch prefix', toml: `${TASK}[git]\nbranch_prefix = "-x"\n`, key: 'git.branch_prefix', message: 'expected a git branch prefix' },
  // the task and refinements
  { title: 'missing task', toml: 'name = "no-task"\n', key: 'prompt', message: 'the task is required: add a [prompt] table' },
  { title: 'empty [prompt]', toml: '[prompt]\n', key: 'prompt', at: '1:2', message: 'the task is required' },
  { title: 'empty task text', toml: '[prompt]\ntext = "  "\n', key: 'prompt.text', message: 'expected a non-empty string' },
  {
    title: 'both text and file',
    toml: '[prompt]\ntext = "x"\nfile = "task.md"\n',
    files: { 'task.md': 'x' },
    key: 'prompt',
    message: 'set either `text` or `file`, not both',
  },
  {
    title: 'check without a command',
    toml: `${TASK}[[checks.items]]\nname = "test"\n`,
    key: 'checks.items[0].command',
    at: '3:1',
    message: 'required key is missing: expected a string',
  },
  {
    title: 'duplicate check names',
    toml: `${TASK}[[checks.items]]\nname = "test"\ncommand = "npm test"\n[[checks.items]]\nname = "test"\ncommand = "npm run e2e"\n`,
    key: 'checks.items[1].name',
    at: '7:8',
    message: 'duplicate check name "test"',
  },
  { title: 'phase without file or text', toml: `${TASK}[[prompts]]\nname = "implement"\n`, key: 'prompts[0]', message: 'a phase needs `file` or `text`' },
  {
    title: 'command provider without command',
    toml: `${TASK}[provider]\nkind = "command"\n`,
    key: 'provider.command',
    message: 'kind = "command" needs `command = "path/to/agent"`',
  },
  {
    title: 'script provider without script',
    toml: `${TASK}[provider]\nkind = "script"\n`,
    key: 'provider.script',
    message: 'kind = "script" needs `script = "path/to/steps.toml"`',
  },
  {
    title: 'script candidate without script',
    toml: `${TASK}[[parallel.providers]]\nkind = "claude"\n[[parallel.providers]]\nkind = "script"\n`,
    key: 'parallel.providers[1].script',
    at: '5:1',
    message: 'kind = "script" needs',
  },
  { title: 'auto_commit turned off', toml: `${TASK}[git]\nauto_commit = false\n`, key: 'git.auto_commit', message: 'auto_commit = false is not supported' },
  // the file system
  { title: 'missing prompt file', toml: '[prompt]\nfile = "prompts/task.md"\n', key: 'prompt.file', at: '2:8', message: 'file not found: ' },
  {
    title: 'prompt file that is a folder',
    toml: '[prompt]\nfile = "prompts"\n',
    files: { 'prompts/task.md': 'x' },
    key: 'prompt.file',
    message: 'is a folder, expected a file',
  },
  {
    title: 'missing retry prompt file',
    toml: `${TASK}retry_prompt_file = "retry.md"\n`,
    key: 'prompt.retry_prompt_file',
    message: "relative to the spec file's folder",
  },
  {
    title: 'missing provider script',
    toml: `${TASK}[provider]\nkind = "script"\nscript = "steps/a.toml"\n`,
    key: 'provider.script',
    message: 'file not found: ',
  },
  {
    title: 'missing candidate script',
    toml: `${TASK}[[parallel.providers]]\nkind = "script"\nscript = "steps/a.toml"\n`,
    files: {},
    key: 'parallel.providers[0].script',
    message: 'file not found: ',
  },
  { title: 'missing review prompt', toml: `${TASK}[review]\nprompt_file = "review.md"\n`, key: 'review.prompt_file', message: 'file not found: ' },
  { title: 'missing phase prompt', toml: `${TASK}[[prompts]]\nname = "plan"\nfile = "plan.md"\n`, key: 'prompts[0].file', message: 'file not found: ' },
  {
    title: 'setup.copy leaving the repo',
    toml: `${TASK}[setup]\ncopy = [".env", "../secret"]\n`,
    key: 'setup.copy[1]',
    at: '4:17',
    message: '"../secret" leaves the repo',
  },
  { title: 'setup.copy leaving the repo halfway', toml: `${TASK}[setup]\ncopy = ["config/../../secret"]\n`, key: 'setup.copy[0]', message: 'leaves the repo' },
  { title: 'absolute setup.copy path', toml: `${TASK}[setup]\ncopy = ["/etc/passwd"]\n`, key: 'setup.copy[0]', message: '"/etc/passwd" is an absolute path' },
  {
    title: 'prompt.output_file leaving the repo',
    toml: `${TASK}output_file = "../../etc/passwd"\n`,
    key: 'prompt.output_file',
    at: '3:15',
    message:
      '"../../etc/passwd" leaves the repo: prompt.output_file takes paths relative to the repo root and refuses paths that leave the repo: write it from the repo root, without ".." that climbs out of it',
  },
  {
    title: 'absolute prompt.output_file',
    toml: `${TASK}output_file = "/tmp/notes.md"\n`,
    key: 'prompt.output_file',
    message:
      '"/tmp/notes.md" is an absolute path: prompt.output_file takes paths relative to the repo root and refuses paths that leave the repo: write it from the repo root (e.g. "notes/output.md")',
  },
  { title: 'prompt.output_file in HOME', toml: `${TASK}output_file = "~/notes.md"\n`, key: 'prompt.output_file', message: 'is an absolute path' },
  {
    title: 'vote.output_file leaving the repo',
    toml: `${TASK}[vote]\nenabled = true\nmaterial = "file"\noutput_file = "docs/../../draft.md"\n`,
    key: 'vote.output_file',
    message:
      '"docs/../../draft.md" leaves the repo: vote.output_file takes paths relative to the repo root and refuses paths that leave the repo: write it from the repo root, without ".." that climbs out of it',
  },
  {
    title: 'frozen glob leaving the repo',
    toml: `${TASK}[checks]\nfrozen = ["test/**", "../shared/**"]\n`,
    key: 'checks.frozen[1]',
    at: '4:22',
    message: '"../shared/**" leaves the repo: checks.frozen takes git pathspec globs relative to the repo root',
  },
  { title: 'frozen glob leaving the repo from its root', toml: `${TASK}[checks]\nfrozen = ["/../x"]\n`, key: 'checks.frozen[0]', message: 'leaves the repo' },
  {
    title: 'editable glob leaving the repo halfway',
    toml: `${TASK}[checks]\neditable = ["./src/../../lib/*.js"]\n`,
    key: 'checks.editable[0]',
    message: '"./src/../../lib/*.js" leaves the repo: checks.editable takes git pathspec globs',
  },
  {
    title: 'missing review script',
    toml: `${TASK}[review]\nkind = "script"\nscript = "review-steps.toml"\n`,
    key: 'review.script',
    message: 'file not found: ',
  },
  // several at once
  {
    title: 'several problems are all reported',
    toml: `name = "a b"\n${TASK}[loop]\nmax_iterations = 0\n[select]\nmerge = "yolo"\n`,
    key: 'select.merge',
    message: 'got "yolo"',
    count: 3,
  },
];

function matches(problem: SpecProblem, row: BadSpec): boolean {
  if (row.key !== undefined && problem.key !== row.key) return false;
  if (row.at !== undefined && `${problem.line}:${problem.column}` !== row.at) return false;
  return problem.message.includes(row.message);
}

describe('bad specs', () => {
  it('has a row for every kind of mistake', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)('$title', async (row) => {
    const { specPath } = writeSpec(row.toml, row.files);
    const result = await loadSpec(specPath);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const summary = result.error.map((p) => `${p.line ?? '-'}:${p.column ?? '-'} ${p.key ?? '-'} ${p.message}`);
    expect(
      result.error.some((problem) => matches(problem, row)),
      summary.join('\n'),
    ).toBe(true);
    expect(summary).toHaveLength(row.count ?? 1);
    for (const problem of result.error) {
      expect(problem.file).toBe(specPath);
      // Every problem says where: a key, or a line in the file.
      expect(problem.key !== undefined || problem.line !== undefined).toBe(true);
      if (problem.line !== undefined) expect(problem.excerpt).toBeDefined();
    }
  });

  it('names the absolute path it looked for and that paths are relative to the spec', async () => {
    const { dir, specPath } = writeSpec('[prompt]\nfile = "prompts/task.md"\n');
    const result = await loadSpec(specPath);
    if (result.ok) throw new Error('expected problems');
    expect(result.error[0]?.message).toBe(`file not found: ${join(dir, 'prompts', 'task.md')} (paths in a spec are relative to the spec file's folder)`);
  });

  it('reports a missing spec file with a way forward', async () => {
    const { dir } = writeSpec('');
    const result = await loadSpec(join(dir, 'nope.toml'));
    if (result.ok) throw new Error('expected problems');
    expect(result.error).toEqual([{ file: join(dir, 'nope.toml'), message: `file not found: ${join(dir, 'nope.toml')} (create one with \`bestof init\`)` }]);
  });

  it('creates nothing while loading a bad spec', async () => {
    const toml = `${TASK}retry_prompt_file = "retry/again.md"\n[setup]\ncopy = ["../x"]\n[review]\nprompt_file = "review/r.md"\n[bench]\noutput = "out/bench.json"\njunit = "out/junit.xml"\n`;
    const { dir, specPath } = writeSpec(toml);
    const before = readdirSync(dir, { recursive: true });
    const result = await loadSpec(specPath);
    expect(result.ok).toBe(false);
    expect(readdirSync(dir, { recursive: true })).toEqual(before);
    expect(before).toEqual(['spec.toml']);
  });
});
