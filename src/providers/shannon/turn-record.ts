/**
 * What a turn leaves: its ProviderResult (text, tokens, a cost that may be an estimate), and its
 * records in the iteration's folder (invocation.json, output.log); and the provider's description.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliVersion, redactArgs } from '../cli-provider.js';
import { estimateCost, missingPriceNote, type PriceTable } from '../prices.js';
import type { Outcome, ProviderDescription, ProviderRequest, ProviderResult } from '../types.js';
import type { ShannonOptions } from './options.js';
import { claudeArgs, type LiveSession } from './session.js';
import { chunkUsage, usageByModel, type TranscriptChunk } from './transcript.js';
import type { TurnEnd } from './turn.js';

/** How long the transcript is polled after the Stop for the turn's last lines. */
const TRANSCRIPT_SETTLE_MS = 1000;

/** The session's cost so far, as reported to the engine (real totals and estimates). */
export interface CostLedger {
  readonly live: LiveSession;
  costReported: number;
}

/**
 * Claude Code may write the turn's last lines after the Stop hook started: poll until the turn's
 * end is there (the final text, and the cost or the turn's duration after it), at most a moment.
 */
export async function settleTranscript(read: () => Promise<void>, chunk: TranscriptChunk, finalText: string): Promise<void> {
  const deadline = Date.now() + TRANSCRIPT_SETTLE_MS;
  for (;;) {
    await read();
    // A held Stop has no turn_duration or cost yet (they come when the turn really ends): the final text is the sign.
    const lastText = chunk.texts.at(-1)?.trim();
    if (finalText.trim() !== '' ? lastText !== undefined && finalText.trim().endsWith(lastText) : chunk.turnEnded) return;
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The turn's ProviderResult; `state` is charged what it reports. */
export function resultOf(
  end: TurnEnd,
  chunk: TranscriptChunk,
  state: CostLedger | undefined,
  durationMs: number,
  prices: PriceTable,
  note: (text: string) => void,
): ProviderResult {
  // Claude Code writes the session's cumulative cost only when a turn really ends (a Stop that
  // was allowed, a StopFailure, an interrupt): the responses after the last total (a turn whose
  // Stop is held) are estimated from their tokens, and the next real total settles the difference.
  let costUsd = 0;
  let costEstimated = false;
  if (state && chunk.costUsd !== undefined) {
    costUsd = Math.max(0, chunk.costUsd - state.costReported);
    state.costReported = Math.max(state.costReported, chunk.costUsd);
  }
  if (chunk.uncoveredById.size > 0) {
    const estimate = estimateCost(prices, usageByModel(chunk, chunk.uncoveredById));
    costUsd += estimate.costUsd;
    costEstimated = true;
    if (state) state.costReported += estimate.costUsd;
    if (estimate.missing.length > 0) note(missingPriceNote('shannon', estimate.missing));
  }
  const outcome: Outcome = end.outcome;
  return {
    outcome,
    text: end.text || chunk.texts.at(-1) || '',
    usage: chunkUsage(chunk),
    costUsd,
    costEstimated,
    sessionId: state?.live.sessionId,
    turns: chunk.usageById.size,
    durationMs,
    ...(end.message !== undefined ? { message: end.message } : {}),
    ...(end.retryAfterMs !== undefined ? { retryAfterMs: end.retryAfterMs } : {}),
  };
}

/** invocation.json: what runs in the pane (secrets and the prompt never in it), the session and how the prompt went in. */
export async function recordInvocation(
  request: ProviderRequest,
  options: ShannonOptions,
  live: LiveSession | undefined,
  how: 'block' | 'typed',
): Promise<void> {
  const invocation = {
    binary: options.binary,
    argv: redactArgs(live?.claudeArgs ?? [], { redact: request.redact }),
    model: request.model ?? null,
    sandboxed: request.sandbox !== undefined,
    tmux: live ? { socket: live.tmux.socket, session: live.tmux.name } : null,
    sessionId: live?.sessionId ?? null,
    prompt: how === 'block' ? 'the held Stop hook answered block with it' : 'typed into the session',
  };
  await writeFile(join(request.artifactsDir, 'invocation.json'), `${JSON.stringify(invocation, null, 2)}\n`).catch(() => undefined);
}

/** output.log: the transcript lines of this turn, through the run's redaction. */
export async function writeOutputLog(request: ProviderRequest, chunk: TranscriptChunk): Promise<void> {
  const text = chunk.lines.map((line) => `${line}\n`).join('');
  const redactor = request.logRedactor?.();
  const out = redactor ? redactor.push(text) + redactor.end() : text;
  await writeFile(join(request.artifactsDir, 'output.log'), out).catch(() => undefined);
}

/** The provider's description for the report: what runs in the pane, with placeholders. */
export async function describeShannon(options: ShannonOptions): Promise<ProviderDescription> {
  const args = claudeArgs(options.settings, { sessionId: '<session-id>', settingsFile: '<hooks.json>', model: options.settings.model, sandboxed: false });
  return {
    kind: 'shannon',
    binary: options.binary,
    version: await cliVersion(options.binary, { ...process.env, ...options.settings.env }, { isolate: options.settings.isolate_config }),
    argv: redactArgs(args),
    model: options.settings.model,
  };
}
