/**
 * The command line: parses arguments, dispatches to one command module, and maps results to
 * exit codes. Output errors (EPIPE, EIO) never change the exit code: ./output.ts. Elsewhere only
 * the signal handlers of a run or a bench call process.exit (./run-session.ts,
 * ../process/namespace.ts, ./commands/bench.ts: a second Ctrl-C, or a signal once the run or bench
 * has ended, which exits with its own code).
 *
 * The codes and their meaning are in src/engine/exit-codes.ts (and the README's table).
 */
import { EXIT_CODES } from '../engine/exit-codes.js';
import { printableLines } from '../printable.js';
import { guardOutputStreams } from './output.js';
import { releaseGoneTerminalAtExit } from './terminal-exit.js';
import { UsageError } from './usage-error.js';
import { commandHelp, commandWords, findCommand, mainHelp, type CommandDescriptor } from './help.js';

// Before anything is written: a reader that goes away (`| head`) or a closed terminal must not
// stop a run (./output.ts).
guardOutputStreams();
// A terminal closed during the run must not make Node abort as it exits (./terminal-exit.ts).
releaseGoneTerminalAtExit();

/**
 * The command whose help `argv` asks for: `bestof <command> --help` / `-h` (before any `--`),
 * `bestof bench merge --help`, or `bestof help <command>`. Undefined: no help asked for.
 */
function helpRequest(argv: readonly string[]): { command: CommandDescriptor } | { unknown: string } | undefined {
  const [first, ...rest] = argv;
  if (first === undefined) return undefined;
  const words = first === 'help' ? rest : argv;
  const options = words.indexOf('--');
  const beforeOptionsEnd = options < 0 ? words : words.slice(0, options);
  if (first !== 'help' && !beforeOptionsEnd.some((word) => word === '--help' || word === '-h')) return undefined;
  const [name, sub] = beforeOptionsEnd.filter((word) => word !== '--help' && word !== '-h');
  if (name === undefined) return undefined; // `bestof help`, `bestof --help`: the list
  const command = findCommand((sub === 'merge' || sub === 'mine') && name === 'bench' ? `bench ${sub}` : name);
  return command ? { command } : { unknown: name };
}

function unknownCommand(name: string): UsageError {
  return new UsageError(`unknown command '${name}'; run \`bestof --help\` for the list`, {
    typed: name,
    among: commandWords(),
    say: (closest) => `unknown command '${name}'; did you mean \`bestof ${closest}\`? (\`bestof --help\` lists them all)`,
  });
}

/** The error's line, with its did-you-mean when a known word is close to what was typed. */
async function usageMessage(error: UsageError): Promise<string> {
  if (!error.didYouMean) return error.message;
  // Loaded only now: it reads the spec's schema, which no command should load for nothing.
  const { closestKey } = await import('../spec/suggestions.js');
  const closest = closestKey(error.didYouMean.typed, error.didYouMean.among);
  return closest === undefined ? error.message : error.didYouMean.say(closest);
}

async function main(argv: readonly string[]): Promise<number> {
  const help = helpRequest(argv);
  if (help !== undefined) {
    if ('unknown' in help) throw unknownCommand(help.unknown);
    process.stdout.write(`${commandHelp(help.command)}\n`);
    return EXIT_CODES.ok;
  }
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return (await import('./commands/run.js')).runCommand(rest);
    case 'validate':
      return (await import('./commands/validate.js')).validateCommand(rest);
    case 'init':
      return (await import('./commands/init.js')).initCommand(rest);
    case 'ls':
    case 'list':
      return (await import('./commands/ls.js')).lsCommand(rest);
    case 'show':
      return (await import('./commands/show.js')).showCommand(rest);
    case 'clean':
      return (await import('./commands/clean.js')).cleanCommand(rest);
    case 'resume':
      return (await import('./commands/resume.js')).resumeCommand(rest);
    case 'send':
      return (await import('./commands/send.js')).sendCommand(rest);
    case 'stop':
      return (await import('./commands/send.js')).stopCommand(rest);
    case 'attach':
      return (await import('./commands/attach.js')).attachCommand(rest);
    case 'hook':
      return (await import('./commands/hook.js')).hookCommand(rest);
    case 'bench':
      return (await import('./commands/bench.js')).benchCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${mainHelp()}\n`);
      return command === undefined ? EXIT_CODES.badInput : EXIT_CODES.ok;
    case '--version':
    case '-v':
      process.stdout.write(`${(await import('./version.js')).version()}\n`);
      return EXIT_CODES.ok;
    default:
      throw unknownCommand(command);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      void usageMessage(error)
        .catch(() => error.message)
        .then((message) => {
          process.stderr.write(`bestof: ${message}\n`);
          process.exit(EXIT_CODES.badInput);
        });
      return;
    }
    void reportUnexpected(error);
  },
);

/**
 * An error nothing expected. A git that is missing or too old makes many commands fail in ways
 * their code cannot foresee: that is said instead, as bad input (exit 2), with how to install git;
 * anything else is a bug of bestof's (exit 70).
 */
async function reportUnexpected(error: unknown): Promise<void> {
  const gitProblem = await import('../git/running/git-version.js').then((git) => git.gitProblem()).catch(() => undefined);
  if (gitProblem !== undefined) {
    process.stderr.write(`bestof: ${gitProblem}\n`);
    process.exit(EXIT_CODES.badInput);
  }
  // Printable (src/printable.ts): an error about a path can hold the name of a file an agent made.
  process.stderr.write(`bestof: internal error: ${printableLines((error as Error)?.stack ?? String(error))}\nPlease report this with the command you ran.\n`);
  process.exit(EXIT_CODES.internalError);
}
