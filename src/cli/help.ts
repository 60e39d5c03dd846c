/**
 * The commands of the command line, described once: `bestof --help` (the list), `bestof
 * <command> --help` and `bestof help <command>` (one command's usage, options and examples) are
 * made from this table, and so are the options each command's `parseArgs` accepts
 * (`optionsOf`), so that help cannot drift from the parser. ./args.ts refuses an option that a
 * command passes to its parser but this table does not describe.
 */
import { join } from 'node:path';
import { EXIT_CODE_WORDS } from '../engine/exit-codes.js';
import { packageRoot } from '../package-root.js';
export interface OptionDescriptor {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  /** What the value stands for in the help (`--out <dir>`); string options only. */
  readonly value?: string;
  readonly description: string;
  /**
   * Taken out of the arguments before parseArgs sees them (`--html [file]`, ./html-option.ts: parseArgs
   * has no option with an optional value): in the help, not in the parser's options.
   */
  readonly parsedApart?: true;
}

export interface CommandDescriptor {
  /** `run`, or two words for a subcommand (`bench merge`). */
  readonly name: string;
  /** The arguments after the name, without the options: `[spec.toml]`. */
  readonly args: string;
  /** One line, for the list of commands. */
  readonly summary: string;
  /** More lines for the command's own help: defaults, what it never does. */
  readonly details?: readonly string[];
  readonly options: Readonly<Record<string, OptionDescriptor>>;
  readonly examples: readonly string[];
  /** Other names that run it (`list` for `ls`). */
  readonly aliases?: readonly string[];
  /** Run by bestof's own machinery, never by hand (`hook`): left out of the main list, its own help stays. */
  readonly internal?: true;
}

const JSON_OPTION = { type: 'boolean', description: 'print the result as JSON on stdout (progress goes to stderr)' } as const;
const NO_TUI_OPTION = { type: 'boolean', description: 'plain lines instead of the terminal view, even on a terminal' } as const;

export const COMMANDS = {
  run: {
    name: 'run',
    args: '[spec.toml]',
    summary: 'run a spec (default: bestof.toml); a live dashboard on a terminal',
    details: [
      'Without a spec path, bestof.toml is looked for in this folder, then in each folder above it up to the root of the git repo.',
      'Bad input (a wrong spec, a missing CLI, no `gh` for merge = "pr") exits 2 before anything is created.',
    ],
    options: { json: JSON_OPTION, 'no-tui': NO_TUI_OPTION },
    examples: ['bestof run', 'bestof run specs/fix-parser.toml --no-tui'],
  },
  validate: {
    name: 'validate',
    args: '[spec.toml]',
    summary: 'check a spec and everything a run checks before it starts; prints "ok" or the errors',
    details: ['Without a spec path, bestof.toml is looked for in this folder, then in each folder above it up to the root of the git repo.'],
    options: {},
    examples: ['bestof validate', 'bestof validate specs/fix-parser.toml'],
  },
  init: {
    name: 'init',
    args: '',
    summary: 'write a commented starter bestof.toml at the root of this repo',
    options: { force: { type: 'boolean', description: 'overwrite an existing bestof.toml' } },
    examples: ['bestof init', 'bestof init --force'],
  },
  ls: {
    name: 'ls',
    args: '',
    summary: 'list the runs of this repo, newest first',
    options: {},
    examples: ['bestof ls', 'bestof ls | head -3'],
    aliases: ['list'],
  },
  show: {
    name: 'show',
    args: '[run]',
    summary: "a run's report (default: the latest); the compare view on a terminal",
    details: ['A run is named by its id, a unique prefix or suffix of it, or "latest".'],
    options: {
      json: { type: 'boolean', description: 'print the report as JSON' },
      'no-tui': { type: 'boolean', description: 'print the Markdown report instead of the compare view' },
      html: {
        type: 'string',
        value: '[file.html]',
        description: 'write the report as one HTML page (default: report.html in the run folder) and print its path',
        parsedApart: true,
      },
    },
    examples: ['bestof show', 'bestof show 20261203-091500-ab12 --json', 'bestof show --html'],
  },
  clean: {
    name: 'clean',
    args: '[run]',
    summary: 'remove worktrees and branches of finished runs (and, with --runs, old run folders)',
    details: [
      "Never loses work: uncommitted work is committed and kept under refs/bestof/<run>/<candidate>/kept first; the winner's branch stays until it is merged.",
      "The agents' HOMEs (copies of their logins), the checks' HOMEs and review exports a killed run left under the worktrees root (~/.cache/bestof/worktrees/...) go too, and the per-run folders left empty there.",
      '--runs --older-than <age> also removes the folder under .bestof/runs and the refs/bestof/<run>/ refs of each run started longer ago: a run with a winner once the winner is merged (an unmerged winner is never removed, not even with --all); a run without a winner once every commit of it is on a branch, or with --all.',
    ],
    options: {
      'dry-run': { type: 'boolean', description: 'print what would be done; change nothing' },
      all: {
        type: 'boolean',
        description:
          "also remove an unmerged winner's branch (its commit stays under refs/bestof); with --runs, also old runs without a winner whose commits are on no branch",
      },
      runs: { type: 'boolean', description: 'also remove the folders and refs of old runs with nothing unmerged (needs --older-than)' },
      'older-than': { type: 'string', value: '<age>', description: 'with --runs: runs started longer ago than this, e.g. 30d, 12h, 2w' },
    },
    examples: ['bestof clean --dry-run', 'bestof clean', 'bestof clean --runs --older-than 30d --dry-run'],
  },
  resume: {
    name: 'resume',
    args: '[run]',
    summary: 'continue a run that crashed, was killed or cancelled (default: the latest run)',
    details: ['Finished candidates stay finished; the others continue from their last scored iteration. A run that already finished is not run again.'],
    options: { json: JSON_OPTION, 'no-tui': NO_TUI_OPTION },
    examples: ['bestof resume', 'bestof resume 20261203-091500-ab12 --no-tui'],
  },
  send: {
    name: 'send',
    args: '<run> [candidate] "text"',
    summary: "put a message into a candidate's next prompt (default: every running candidate)",
    options: {},
    examples: ['bestof send latest "the tests are in test/unit, not test/"', 'bestof send latest c2 "keep the public API as it is"'],
  },
  stop: {
    name: 'stop',
    args: '<run> [candidate]',
    summary: 'stop a candidate (default: all) at its next iteration boundary; its work is kept',
    options: {},
    examples: ['bestof stop latest c3', 'bestof stop latest'],
  },
  attach: {
    name: 'attach',
    args: '<run> [candidate]',
    summary: "watch a shannon candidate's Claude Code in tmux (detach with Ctrl-b d)",
    options: { write: { type: 'boolean', description: 'take the session over and type into it (default: read-only)' } },
    examples: ['bestof attach latest', 'bestof attach latest c2 --write'],
  },
  hook: {
    name: 'hook',
    args: '<event>',
    summary: 'run by the Claude Code hooks of a shannon session (not by hand)',
    details: ['It reads the hook payload on stdin, asks the running bestof, and always exits 0.'],
    internal: true,
    options: {},
    examples: ['bestof hook Stop < payload.json'],
  },
  bench: {
    name: 'bench',
    args: '<bench.toml>',
    summary: 'run a matrix of tasks x agents x trials; writes bench.json, bench.md, junit.xml',
    details: ['Exit codes: 0 ran, 1 a regression against --baseline, 2 bad input, 130 cancelled.', 'Join the shards of one bench with `bestof bench merge`.'],
    options: {
      shard: { type: 'string', value: '<i/n>', description: 'run only shard i of n of the matrix (e.g. 2/4)' },
      baseline: { type: 'string', value: '<old.json>', description: 'compare with an earlier bench.json; exit 1 on a regression' },
      out: { type: 'string', value: '<dir>', description: 'where to write the results (default: .bestof/bench/<name>)' },
      resume: { type: 'boolean', description: 'keep the trials already in --out and run the rest' },
      json: { type: 'boolean', description: 'print bench.json on stdout (progress goes to stderr)' },
      'no-tui': NO_TUI_OPTION,
      html: { type: 'boolean', description: 'also write bench.html beside the other files', parsedApart: true },
    },
    examples: ['bestof bench bench.toml', 'bestof bench bench.toml --shard 1/2 --out shard-1'],
  },
  'bench mine': {
    name: 'bench mine',
    args: '',
    summary: 'make a bench of this repo from its own history: fix+test commits become tasks with hidden tests',
    details: [
      'Run in a repo (any folder of it). Each non-merge commit that changes source and test files is validated: its tests must fail on the parent and pass at the commit (twice), and the fix must pass the old tests.',
      "The check comes from the repo's bestof.toml (its first report check, or --check) or from what `bestof init` finds.",
      'Writes bench.toml, tasks/, hidden/, reference/, mined.json and mined.md into --out; stopped (Ctrl-C, kill), it goes on where it was when run again.',
      'Exit codes: 0 mined, 2 bad input (not a repo, no report check, --out inside the repo), 130 stopped (the folder holds what was done).',
    ],
    options: {
      out: { type: 'string', value: '<dir>', description: 'the bench folder, outside the repo (default: ../<repo>-bench beside it)' },
      commits: { type: 'string', value: '<n>', description: 'look at the last n non-merge commits (default 300)' },
      max: { type: 'string', value: '<n>', description: 'stop once n tasks are kept' },
      since: { type: 'string', value: '<date|rev>', description: 'only commits after this date or revision' },
      paths: { type: 'string', value: '<globs>', description: 'only commits that touch these paths (comma-separated globs)' },
      check: { type: 'string', value: '<name>', description: "the check of the repo's bestof.toml to mine with (default: its first report check)" },
      'max-diff': {
        type: 'string',
        value: '<lines>',
        description: 'reject fixes larger than this, in lines added and removed outside the tests (default 400)',
      },
      jobs: { type: 'string', value: '<n>', description: 'test runs at once (default: the CPUs)' },
      reference: { type: 'boolean', description: "add an agent `reference` that applies each task's own fix (it must resolve every task)" },
    },
    examples: ['bestof bench mine --out ../my-bench --max 20', 'bestof bench mine --since 2025-01-01 --reference'],
  },
  'bench merge': {
    name: 'bench merge',
    args: '<a.json> <b.json> ...',
    summary: 'join the shards of one bench (refuses a missing or overlapping shard)',
    options: {
      out: { type: 'string', value: '<dir>', description: 'where to write the results (default: this folder)' },
      baseline: { type: 'string', value: '<old.json>', description: 'compare with an earlier bench.json; exit 1 on a regression' },
      spec: { type: 'string', value: '<bench.toml>', description: 'the bench spec, for its [tolerance] against --baseline' },
      json: { type: 'boolean', description: 'print the merged bench.json on stdout' },
      html: { type: 'boolean', description: 'also write bench.html beside the other files', parsedApart: true },
    },
    examples: ['bestof bench merge shard-1/bench.json shard-2/bench.json --out merged'],
  },
} as const satisfies Record<string, CommandDescriptor>;

export type CommandName = keyof typeof COMMANDS;

type Described<N extends CommandName> = (typeof COMMANDS)[N]['options'];

/** A command's options as node:util parseArgs takes them (the descriptions left out). */
type ParsedKeys<N extends CommandName> = { [K in keyof Described<N>]: Described<N>[K] extends { parsedApart: true } ? never : K }[keyof Described<N>];

export type ParserOptions<N extends CommandName> = {
  -readonly [K in ParsedKeys<N>]: { type: Described<N>[K] extends { type: infer T extends 'boolean' | 'string' } ? T : never; short?: string };
};

export function optionsOf<N extends CommandName>(name: N): ParserOptions<N> {
  const options: Record<string, { type: 'boolean' | 'string'; short?: string }> = {};
  for (const [key, option] of Object.entries(COMMANDS[name].options as Readonly<Record<string, OptionDescriptor>>)) {
    if (option.parsedApart) continue;
    options[key] = option.short === undefined ? { type: option.type } : { type: option.type, short: option.short };
  }
  return options as ParserOptions<N>;
}

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** The descriptor a typed command name or alias stands for (`list` is `ls`). */
export function findCommand(name: string): CommandDescriptor | undefined {
  if (isCommandName(name)) return COMMANDS[name];
  return Object.values(COMMANDS as Record<string, CommandDescriptor>).find((c) => c.aliases?.includes(name));
}

/** What `bestof <word>` can be: the top-level names and aliases, and `help`. */
export function commandWords(): string[] {
  const names = Object.values(COMMANDS as Record<string, CommandDescriptor>).flatMap((c) => (c.name.includes(' ') ? [] : [c.name, ...(c.aliases ?? [])]));
  return [...names, 'help'];
}

function optionUsage(key: string, option: OptionDescriptor): string {
  const flag = `${option.short ? `-${option.short}, ` : ''}--${key}`;
  return option.type === 'string' ? `${flag} ${option.value ?? '<value>'}` : flag;
}

/** `bestof bench <bench.toml> [--shard <i/n>] ...`. */
export function usageLine(command: CommandDescriptor): string {
  const options = Object.entries(command.options).map(([key, option]) => `[${optionUsage(key, option)}]`);
  return ['bestof', command.name, command.args, ...options].filter((part) => part !== '').join(' ');
}

/** `bestof <command> --help`: usage, what it does, each option in one line, examples. */
export function commandHelp(command: CommandDescriptor): string {
  const lines = [`Usage: ${usageLine(command)}`, '', `${command.summary.charAt(0).toUpperCase() + command.summary.slice(1)}.`];
  if (command.aliases?.length) lines.push(`Also: ${command.aliases.map((a) => `bestof ${a}`).join(', ')}.`);
  for (const detail of command.details ?? []) lines.push(detail);
  const options = Object.entries(command.options).map(([key, option]) => [optionUsage(key, option), option.description] as const);
  options.push(['-h, --help', 'print this help']);
  const width = Math.max(...options.map(([flag]) => flag.length));
  lines.push('', 'Options:', ...options.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`));
  lines.push('', command.examples.length === 1 ? 'Example:' : 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** The exit codes' lines of `bestof --help`, made from the one table of them (src/engine/exit-codes.ts). */
export function exitCodeLines(): string[] {
  const said = (entries: readonly (typeof EXIT_CODE_WORDS)[number][]): string => entries.map((e) => `${e.code} ${e.words}`).join(', ');
  const forCommand = (command: 'clean' | 'bench'): string =>
    `${command}: 1 ${EXIT_CODE_WORDS.filter((e) => e.command === command)
      .map((e) => e.words)
      .join(', ')}`;
  return [`Exit codes: ${said(EXIT_CODE_WORDS.filter((e) => e.command === undefined))}.`, `  ${forCommand('clean')}; ${forCommand('bench')}.`];
}

const EXIT_CODE_LINES = exitCodeLines();

/** `bestof --help`: every command in one or two lines. */
export function mainHelp(): string {
  const commands = Object.values(COMMANDS as Record<string, CommandDescriptor>).filter((command) => !command.internal);
  const usages = commands.map((c) => usageLine(c));
  const width = 45;
  const lines: string[] = [];
  for (const [i, command] of commands.entries()) {
    const usage = usages[i] as string;
    if (usage.length < width) lines.push(`  ${usage.padEnd(width)}${command.summary}`);
    else lines.push(`  ${usage}`, `  ${''.padEnd(width)}${command.summary}`);
  }
  return [
    'bestof — run one task through N AI agents, score them with frozen checks, keep the best.',
    '',
    'Usage:',
    ...lines,
    '',
    'Help on one command: bestof <command> --help (or bestof help <command>).',
    ...EXIT_CODE_LINES,
    // Where this copy of bestof is (an `npm install -g` puts the README beside bin/): a path that opens.
    `Docs: ${join(packageRoot(), 'README.md')}`,
  ].join('\n');
}
