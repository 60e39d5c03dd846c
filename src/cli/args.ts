import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

/** node:util parseArgs, strict, with its errors turned into one-line usage errors (exit 2). */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.split('\n')[0]} (see \`bestof --help\`)`);
  }
}
