/**
 * Help per command, made from one table (src/cli/help.ts), and the did-you-mean of commands and
 * options. Mostly unit tests; one test runs the binary for what only main.ts does.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../src/cli/args.js';
import { COMMANDS, commandHelp, findCommand, mainHelp, type CommandDescriptor, type CommandName } from '../../src/cli/help.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { closestKey } from '../../src/spec/suggestions.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const described = Object.values(COMMANDS as Record<string, CommandDescriptor>);

/** Each command's entry, as main.ts calls it; `hook` parses no options (it must start with Node's modules only). */
const ENTRIES: Record<Exclude<CommandName, 'hook'>, (args: string[]) => Promise<number>> = {
  run: async (args) => (await import('../../src/cli/commands/run.js')).runCommand(args),
  validate: async (args) => (await import('../../src/cli/commands/validate.js')).validateCommand(args),
  init: async (args) => (await import('../../src/cli/commands/init.js')).initCommand(args),
  ls: async (args) => (await import('../../src/cli/commands/ls.js')).lsCommand(args),
  show: async (args) => (await import('../../src/cli/commands/show.js')).showCommand(args),
  clean: async (args) => (await import('../../src/cli/commands/clean.js')).cleanCommand(args),
  resume: async (args) => (await import('../../src/cli/commands/resume.js')).resumeCommand(args),
  send: async (args) => (await import('../../src/cli/commands/send.js')).sendCommand(args),
  stop: async (args) => (await import('../../src/cli/commands/send.js')).stopCommand(args),
  attach: async (args) => (await import('../../src/cli/commands/attach.js')).attachCommand(args),
  bench: async (args) => (await import('../../src/cli/commands/bench.js')).benchCommand(args),
  'bench merge': async (args) => (await import('../../src/cli/commands/bench.js')).benchCommand(['merge', ...args]),
  'bench mine': async (args) => (await import('../../src/cli/commands/bench.js')).benchCommand(['mine', ...args]),
};

describe('the commands table', () => {
  it.each(described.map((c) => [c.name, c] as const))('%s: its help has the usage, every option with a line of its own, an example', (_name, command) => {
    const help = commandHelp(command);
    expect(help).toMatch(new RegExp(`^Usage: bestof ${command.name}( |\n)`));
    for (const [key, option] of Object.entries(command.options)) {
      expect(help).toMatch(new RegExp(`^  .*--${key}\\b.*  ${option.description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    }
    expect(help).toContain('-h, --help');
    expect(command.examples.length).toBeGreaterThan(0);
    for (const example of command.examples) expect(help).toContain(`  ${example}`);
  });

  it("every option a command's parser takes is in its help: parsing an unknown option is a usage error, never the bug of an undescribed one", async () => {
    for (const [name, entry] of Object.entries(ENTRIES)) {
      // parseCommandArgs is the first thing every command does, so nothing else runs.
      const failure = await entry(['--bestof-no-such-option']).then(
        () => new Error(`${name} accepted an unknown option`),
        (error: unknown) => error,
      );
      expect(failure, name).toBeInstanceOf(UsageError);
      expect((failure as Error).message, name).toContain(`see \`bestof ${name} --help\``);
    }
  });

  it('refuses an option a command parses but its help does not describe (or describes as taken apart from the parser)', () => {
    expect(() => parseCommandArgs('show', [], { json: { type: 'boolean' }, colour: { type: 'boolean' } })).toThrow(
      /bug: `bestof show` parses --colour but its help does not describe it/,
    );
    expect(() => parseCommandArgs('show', [], { html: { type: 'boolean' } })).toThrow(/bug: `bestof show` parses --html/);
  });

  it('main.ts dispatches exactly the commands of the table, and the list shows each', () => {
    const main = readFileSync(join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), 'utf8');
    // Every `case 'x':` before the fallbacks (an alias shares the next case's import).
    const cases = [...main.matchAll(/case '([a-z]+)':\n/g)].map((m) => m[1] as string).filter((name) => name !== 'help');
    const named = described.filter((c) => !c.name.includes(' ')).flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    expect(cases.sort()).toEqual(named.sort());
    const list = mainHelp();
    for (const command of described.filter((c) => !c.internal)) expect(list).toContain(`bestof ${command.name} ${command.args}`.trim());
    expect(list).toContain('bestof resume [run]');
    // What bestof's own machinery runs is left out of the list; its own help stays.
    expect(list).not.toContain('bestof hook');
    expect(commandHelp(COMMANDS.hook)).toContain('bestof hook <event>');
  });

  it('an alias finds its command', () => {
    expect(findCommand('list')?.name).toBe('ls');
    expect(findCommand('lst')).toBeUndefined();
  });
});

describe('did you mean', () => {
  it('a mistyped option of a command names the closest one; an unknown one lists them', () => {
    const error = (() => {
      try {
        parseCommandArgs('run', ['--jsn']);
      } catch (e) {
        return e as UsageError;
      }
      throw new Error('--jsn was accepted');
    })();
    expect(error.message).toBe('run: unknown option --jsn (its options: --json, --no-tui) (see `bestof run --help`)');
    const hint = error.didYouMean;
    expect(hint?.typed).toBe('jsn');
    const closest = closestKey(hint?.typed ?? '', hint?.among ?? []);
    expect(closest).toBe('json');
    expect(hint?.say(closest as string)).toBe('run: unknown option --jsn; did you mean --json? (see `bestof run --help`)');
    expect(() => parseCommandArgs('ls', ['-x'])).toThrow('ls: unknown option -x (it takes no options)');
    // An option taken apart from the parser (--html) is still suggested and listed.
    const html = (() => {
      try {
        parseCommandArgs('show', ['--htm']);
      } catch (e) {
        return e as UsageError;
      }
      throw new Error('--htm was accepted');
    })();
    expect(closestKey(html.didYouMean?.typed ?? '', html.didYouMean?.among ?? [])).toBe('html');
    expect(commandHelp(COMMANDS.show)).toContain('--html [file.html]');
  });
});

describe('the binary', () => {
  const dir = makeTempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (args: string[]) => runCli(args, { cwd: dir });

  it('prints help per command with --help, -h and `help <command>` (exit 0), and suggests a command or an option for a typo (exit 2)', async () => {
    const [runHelp, resumeHelp, mergeHelp, list, typo, optionTypo, unknownHelp] = await Promise.all([
      cli(['run', '--help']),
      cli(['help', 'resume']),
      cli(['bench', 'merge', '-h']),
      cli(['--help']),
      cli(['rnu']),
      cli(['run', '--jsn']),
      cli(['help', 'frobnicate']),
    ]);
    expect(runHelp.code).toBe(0);
    expect(runHelp.stdout).toMatch(/^Usage: bestof run \[spec\.toml\] \[--json\] \[--no-tui\]\n/);
    expect(runHelp.stdout).toContain('Examples:\n  bestof run\n');
    expect(resumeHelp.code).toBe(0);
    expect(resumeHelp.stdout).toMatch(/^Usage: bestof resume \[run\]/);
    expect(resumeHelp.stdout).toContain('default: the latest run');
    expect(mergeHelp.code).toBe(0);
    expect(mergeHelp.stdout).toMatch(/^Usage: bestof bench merge <a\.json>/);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('bestof <command> --help');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("bestof: unknown command 'rnu'; did you mean `bestof run`? (`bestof --help` lists them all)\n");
    expect(optionTypo.code).toBe(2);
    expect(optionTypo.stderr).toBe('bestof: run: unknown option --jsn; did you mean --json? (see `bestof run --help`)\n');
    expect(unknownHelp.code).toBe(2);
    expect(unknownHelp.stderr).toContain("unknown command 'frobnicate'; run `bestof --help` for the list");
  });
});

describe('exit codes', () => {
  it("help's exit codes are made from EXIT_CODES, every code is in them, and the README's table holds every code of a run", async () => {
    const { EXIT_CODES, EXIT_CODE_WORDS } = await import('../../src/engine/exit-codes.js');
    const { exitCodeLines } = await import('../../src/cli/help.js');
    // Every name of EXIT_CODES has its words (ok is winner's 0 for the other commands).
    const worded = new Set(EXIT_CODE_WORDS.map((e) => e.code));
    for (const [name, code] of Object.entries(EXIT_CODES)) expect(worded.has(code), `${name} (${code}) has no words in EXIT_CODE_WORDS`).toBe(true);
    const help = mainHelp();
    for (const line of exitCodeLines()) expect(help).toContain(line);
    for (const entry of EXIT_CODE_WORDS) expect(help).toContain(entry.command ? `${entry.command}: 1 ${entry.words}` : `${entry.code} ${entry.words}`);
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('### Exit codes'), readme.indexOf('## How a run works'));
    for (const entry of EXIT_CODE_WORDS.filter((e) => e.command === undefined))
      expect(table, `README's exit codes table: ${entry.code}`).toMatch(new RegExp(`^\\| ${entry.code} \\|`, 'm'));
    expect(table).toContain('`bestof clean` exits 1 when it kept a worktree');
  });
});

describe('the docs line', () => {
  it('names the README of this copy of bestof by its full path (the file exists), not a bare README.md that means nothing after `npm install -g`', () => {
    const line = mainHelp()
      .split('\n')
      .find((l) => l.startsWith('Docs: '));
    const path = line?.slice('Docs: '.length) ?? '';
    expect(path).toBe(join(PROJECT_ROOT, 'README.md'));
    expect(readFileSync(path, 'utf8')).toMatch(/^# bestof/);
  });
});
