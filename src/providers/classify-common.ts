/**
 * What every real provider does the same way once its CLI has exited: the outcomes that the
 * process itself decides (cancelled, a spawn error, a timeout without a final result) and the
 * result record around an outcome.
 */
import type { ProcessResult } from '../process/types.js';
import { lastLine, oneLine } from './stream-lines.js';
import type { Outcome, ProviderResult } from './types.js';

export interface ClassifyContext {
  /** The CLI's name for messages ("Claude Code", "Codex", "Gemini CLI"). */
  readonly cli: string;
  readonly timeoutMs: number;
  /** How to install the CLI, for a spawn error. */
  readonly installHint: string;
}

/** The fields of a ProviderResult that the stream gave, before the outcome is decided. */
export type Gathered = Pick<ProviderResult, 'text' | 'usage' | 'costUsd' | 'costEstimated' | 'sessionId' | 'turns'>;

export function resultOf(gathered: Gathered, process: ProcessResult, outcome: Outcome, message?: string, retryAfterMs?: number): ProviderResult {
  return {
    ...gathered,
    outcome,
    durationMs: process.durationMs,
    ...(message === undefined ? {} : { message: oneLine(message, 400) }),
    ...(retryAfterMs !== undefined && retryAfterMs > 0 && (outcome === 'rate_limited' || outcome === 'usage_limit')
      ? { retryAfterMs: Math.round(retryAfterMs) }
      : {}),
  };
}

/**
 * A wait the error text asks for: "Please retry in 45.2s" (Google), "try again in 20 seconds",
 * "try again in 5 minutes". undefined when the text names none.
 */
export function retryAfterFromText(text: string): number | undefined {
  const match = /(?:retry|try again) in (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b/i.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const scale = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') ? 60_000 : 1000;
  return value * scale;
}

/**
 * The outcome when the process did not finish on its own: cancelled by the user, killed at
 * the timeout, or never started. undefined when it exited by itself.
 */
export function processOutcome(process: ProcessResult, ctx: ClassifyContext): { outcome: Outcome; message: string } | undefined {
  if (process.canceled) return { outcome: 'cancelled', message: 'cancelled' };
  if (process.spawnError !== undefined) {
    return { outcome: 'crashed', message: `${process.spawnError} — ${ctx.installHint}` };
  }
  if (process.timedOut) {
    return {
      outcome: 'timeout',
      message: `${ctx.cli} did not finish within ${formatSeconds(ctx.timeoutMs)} and was killed with its whole process tree; raise \`timeout\` in the spec if the task needs longer`,
    };
  }
  return undefined;
}

export function exitDescription(process: ProcessResult): string {
  return process.exitCode !== undefined ? `exited with code ${process.exitCode}` : `was killed by ${process.signal ?? 'a signal'}`;
}

/** "<cli> exited with code 1: <last stderr line>" */
export function crashMessage(ctx: ClassifyContext, process: ProcessResult, detail?: string): string {
  const why = detail ?? lastLine(process.stderr);
  return `${ctx.cli} ${exitDescription(process)}${why ? `: ${why}` : ''}`;
}

function formatSeconds(ms: number): string {
  return ms % 60_000 === 0 && ms >= 60_000 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10}s`;
}
