/**
 * The command line: parses arguments, dispatches to one command module, and maps results to
 * exit codes. The only place that calls process.exit. Output errors (EPIPE, EIO) never change
 * the exit code: ./output.ts.
 *
 * The codes and their meaning are in src/engine/exit-codes.ts (and the README's table).
 */
import { EXIT_CODES } from '../engine/exit-codes.js';
import { guardOutputStreams } from './output.js';
import { UsageError } from './usage-error.js';

// Before anything is written: a reader that goes away (`| head`) or a closed terminal must not
// stop a run (./output.ts).
guardOutputStreams();

const HELP = `bestof — run one task through N AI agents, score them with frozen checks, keep the best.

Usage:
  bestof run [spec.toml] [--json] [--no-tui]   run a spec (default: bestof.toml); a live dashboard on a terminal
  bestof validate [spec.toml]                  check a spec; prints "ok" or the errors
  bestof init [--force]                        write a commented starter bestof.toml here
  bestof ls                                    list the runs of this repo
  bestof show [run] [--json] [--no-tui]        a run's report (default: the latest); the compare view on a terminal
  bestof clean [run] [--dry-run] [--all]       remove worktrees and branches of finished runs
  bestof resume <run> [--json]                 continue a run that crashed, was killed or cancelled
  bestof send <run> [candidate] "text"         put a message into a candidate's next prompt
  bestof stop <run> [candidate]                stop a candidate at its next iteration boundary
  bestof attach <run> [candidate] [--write]    watch a shannon candidate's Claude Code in tmux (--write: take over)
  bestof hook <event>                          run by the Claude Code hooks of a shannon session (not by hand)
  bestof bench <bench.toml> [--shard i/n] [--baseline old.json] [--out dir] [--resume] [--json] [--no-tui]
                                               run a matrix of tasks x agents x trials; bench.json, bench.md, junit.xml
  bestof bench merge <a.json> <b.json> ... [--out dir] [--baseline old.json] [--spec bench.toml]
                                               join the shards of one bench (refuses a missing or overlapping shard)

Exit codes: 0 winner chosen, 1 no candidate passed, 2 bad input, 3 merge refused, 4 a candidate was lost (nothing merged),
  70 internal error, 130 cancelled. bench: 0 ran, 1 a regression against --baseline, 2 bad input, 130 cancelled.
Docs: README.md`;

async function main(argv: readonly string[]): Promise<number> {
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
      process.stdout.write(`${HELP}\n`);
      return command === undefined ? EXIT_CODES.badInput : EXIT_CODES.ok;
    case '--version':
    case '-v':
      process.stdout.write(`${(await import('./version.js')).version()}\n`);
      return EXIT_CODES.ok;
    default:
      throw new UsageError(`unknown command "${command}"; run \`bestof --help\` for the list`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`bestof: ${error.message}\n`);
      process.exit(EXIT_CODES.badInput);
    }
    process.stderr.write(`bestof: internal error: ${(error as Error)?.stack ?? String(error)}\nPlease report this with the command you ran.\n`);
    process.exit(EXIT_CODES.internalError);
  },
);
