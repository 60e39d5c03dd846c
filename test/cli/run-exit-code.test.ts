/**
 * The exit code of a run once it has ended (src/cli/run-exit-code.ts), as a table: the user's
 * choice in the compare view first, then a record that could not be written, then the engine's code.
 */
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/engine/exit-codes.js';
import { runEnd, type RunEnd, type RunEndFacts } from '../../src/cli/run-exit-code.js';

const cases: readonly [string, RunEndFacts, RunEnd][] = [
  ['the engine chose a winner', { choice: undefined, logFailed: false, runExitCode: EXIT_CODES.winner }, { exitCode: EXIT_CODES.winner, sayIncomplete: false }],
  [
    'the engine found no winner',
    { choice: undefined, logFailed: false, runExitCode: EXIT_CODES.noWinner },
    { exitCode: EXIT_CODES.noWinner, sayIncomplete: false },
  ],
  [
    'the run was cancelled',
    { choice: undefined, logFailed: false, runExitCode: EXIT_CODES.cancelled },
    { exitCode: EXIT_CODES.cancelled, sayIncomplete: false },
  ],
  [
    'the engine recorded no exit code (a bug)',
    { choice: undefined, logFailed: false, runExitCode: undefined },
    { exitCode: EXIT_CODES.internalError, sayIncomplete: false },
  ],
  [
    'the user chose a winner and it merged',
    { choice: { ok: true }, logFailed: false, runExitCode: EXIT_CODES.noWinner },
    { exitCode: EXIT_CODES.winner, sayIncomplete: false },
  ],
  [
    'the user chose a winner and its merge failed',
    { choice: { ok: false }, logFailed: false, runExitCode: EXIT_CODES.winner },
    { exitCode: EXIT_CODES.mergeFailed, sayIncomplete: false },
  ],
  [
    'a choice wins over a log that failed',
    { choice: { ok: true }, logFailed: true, runExitCode: EXIT_CODES.cancelled },
    { exitCode: EXIT_CODES.winner, sayIncomplete: false },
  ],
  [
    'the log failed and the run was stopped for it: the session says why',
    { choice: undefined, logFailed: true, runExitCode: EXIT_CODES.cancelled },
    { exitCode: EXIT_CODES.incomplete, sayIncomplete: true },
  ],
  [
    'the log failed after a winner: still incomplete',
    { choice: undefined, logFailed: true, runExitCode: EXIT_CODES.winner },
    { exitCode: EXIT_CODES.incomplete, sayIncomplete: true },
  ],
  [
    'the log failed and the engine met the full disk too: it said so itself',
    { choice: undefined, logFailed: true, runExitCode: EXIT_CODES.incomplete },
    { exitCode: EXIT_CODES.incomplete, sayIncomplete: false },
  ],
  [
    'the log failed and the engine recorded no code',
    { choice: undefined, logFailed: true, runExitCode: undefined },
    { exitCode: EXIT_CODES.incomplete, sayIncomplete: true },
  ],
];

describe('runEnd', () => {
  it.each(cases)('%s', (_, facts, expected) => {
    expect(runEnd(facts)).toEqual(expected);
  });
});
