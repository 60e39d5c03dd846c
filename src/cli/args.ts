import { parseArgs, type ParseArgsConfig } from 'node:util';
import { COMMANDS, optionsOf, type CommandName, type ParserOptions } from './help.js';
import { UsageError } from './usage-error.js';

type ParserConfig = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict, with the command's options from the table in ./help.ts, and its
 * errors turned into one-line usage errors (exit 2) with a did-you-mean for a mistyped option.
 * `options` may be given (a command that builds them itself), but each must be in the table:
 * an option the help does not describe is a bug, found by test/binary/help.test.ts.
 */
export function parseCommandArgs<N extends CommandName, T extends ParserConfig = ParserOptions<N>>(command: N, args: readonly string[], options?: T) {
  const config = (options ?? optionsOf(command)) as T;
  const described = COMMANDS[command].options as Readonly<Record<string, { readonly parsedApart?: true }>>;
  const undescribed = Object.keys(config).filter((key) => !Object.hasOwn(described, key) || described[key]?.parsedApart);
  if (undescribed.length > 0) {
    throw new Error(
      `bug: \`bestof ${command}\` parses ${undescribed.map((k) => `--${k}`).join(', ')} but its help does not describe it: add it to COMMANDS in src/cli/help.ts`,
    );
  }
  try {
    return parseArgs({ args: [...args], options: config, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageErrorOf(command, error as NodeJS.ErrnoException, [...new Set([...Object.keys(config), ...Object.keys(described)])]);
  }
}

/** "unknown option --jsn; did you mean --json?" rather than parseArgs' advice on positionals. */
function usageErrorOf(command: CommandName, error: NodeJS.ErrnoException, known: readonly string[]): UsageError {
  const seeHelp = `(see \`bestof ${command} --help\`)`;
  const firstLine = error.message.split('\n')[0] ?? '';
  const typed = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(firstLine)?.[1] : undefined;
  if (typed === undefined) return new UsageError(`${command}: ${firstLine} ${seeHelp}`);
  const listed = known.length > 0 ? `its options: ${known.map((k) => `--${k}`).join(', ')}` : 'it takes no options';
  const message = `${command}: unknown option ${typed} (${listed}) ${seeHelp}`;
  if (!typed.startsWith('--')) return new UsageError(message);
  const name = typed.slice(2).split('=')[0] as string;
  return new UsageError(message, { typed: name, among: known, say: (closest) => `${command}: unknown option ${typed}; did you mean --${closest}? ${seeHelp}` });
}
