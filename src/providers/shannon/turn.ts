/**
 * One turn of a shannon session = one iteration of the candidate.
 *
 * Submitting. When the session's last Stop is still held (its hook waits on the bridge) and
 * one more block stays under Claude Code's cap of blocks in a row, the prompt goes in as the
 * held Stop's block reason: the agent goes on in the same turn, with its context. Otherwise
 * the held Stop (if any) is allowed, the prompt box awaited, and the prompt *typed*: a short
 * one pasted (bracketed paste, so its lines stay one prompt) then Enter; a long one written to
 * a file in the session's config folder, and a one-line prompt that names it pasted instead
 * (a long paste reaches the model wrapped as pasted content). A typed prompt is confirmed by
 * its UserPromptSubmit hook; Enter is pressed again when none came (it is sometimes swallowed
 * right after a paste), at most three times.
 *
 * Waiting. The turn ends with the session's own Stop (held, for the next turn) or StopFailure.
 * Meanwhile the transcript gives activity lines, and the pane is watched for what no hook
 * sees: the program gone, a modal dialog, a screen that does not change while no hook fires.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { capturePane, pasteText, sendKeys, sessionAlive, waitForScreen } from '../../process/tmux.js';
import { err, ok, type Result } from '../../result.js';
import { str } from '../stream-lines.js';
import type { Outcome } from '../types.js';
import { classifyStopFailure } from './classify.js';
import type { HookBridge, HookEvent } from './hook-bridge.js';
import { dialogOn, isReady, screenTail } from './screen.js';
import type { LiveSession } from './session.js';

/** A prompt longer than this (characters or lines) goes through a file: Claude Code wraps long pastes. */
export const PASTE_LIMIT_CHARS = 800;
export const PASTE_LIMIT_LINES = 10;
/** Claude Code caps every hook output string at 10,000 characters; a longer reason goes through a file. */
export const REASON_LIMIT_CHARS = 9000;
const PASTE_SETTLE_MS = 300;
const CONFIRM_MS = 2000;
const ENTER_RETRIES = 3;
const POLL_MS = 200;

export interface TurnEnd {
  readonly outcome: Outcome;
  readonly text: string;
  readonly message?: string;
  readonly retryAfterMs?: number;
  /** The Stop / StopFailure event, when the turn ended by one. */
  readonly event?: HookEvent;
  /** The session's program is gone (crashed or killed): the next turn starts a new one. */
  readonly sessionGone?: boolean;
}

/** The prompt as the session gets it: itself, or a line naming the file it was written to. */
export async function deliverable(prompt: string, promptsDir: string, iteration: number, limit: { chars: number; lines: number }): Promise<string> {
  if (prompt.length <= limit.chars && prompt.split('\n').length <= limit.lines) return prompt;
  await mkdir(promptsDir, { recursive: true });
  const file = join(promptsDir, `iteration-${iteration}-${Date.now()}.md`);
  await writeFile(file, prompt);
  return `Your task for this turn is in the file ${file}. Read that whole file first and do what it says.`;
}

/** Pastes the prompt, presses Enter, and waits for its UserPromptSubmit (pressing Enter again when it does not come). */
export async function typePrompt(
  session: LiveSession,
  bridge: HookBridge,
  text: string,
  options: { readyTimeoutMs: number; signal: AbortSignal },
): Promise<Result<void, string>> {
  const ready = await waitForScreen(session.tmux, (screen) => isReady(screen) || dialogOn(screen) !== undefined, {
    timeoutMs: options.readyTimeoutMs,
    signal: options.signal,
  });
  if (!ready.ok)
    return err(
      ready.error.reason === 'aborted'
        ? 'cancelled'
        : `the prompt box of Claude Code did not come back (${ready.error.reason}); the screen: ${screenTail(ready.error.screen)}`,
    );
  const dialog = dialogOn(ready.value);
  if (dialog) return err(`Claude Code shows ${dialog.what} (${dialog.fix}); the screen: ${screenTail(ready.value)}`);
  const before = bridge.lastSeq;
  const pasted = await pasteText(session.tmux, text);
  if (!pasted.ok) return err(`could not paste the prompt into the tmux session: ${pasted.error}`);
  await sleep(PASTE_SETTLE_MS, options.signal);
  for (let attempt = 0; attempt <= ENTER_RETRIES; attempt++) {
    if (options.signal.aborted) return err('cancelled');
    if (attempt === ENTER_RETRIES) break;
    await sendKeys(session.tmux, 'Enter');
    const submitted = await waitForEvent(bridge, before, (event) => event.own && event.event === 'UserPromptSubmit', CONFIRM_MS, options.signal);
    if (submitted) return ok();
  }
  const screen = await capturePane(session.tmux);
  return err(`Claude Code did not take the prompt (no UserPromptSubmit hook after ${ENTER_RETRIES} presses of Enter); the screen: ${screenTail(screen)}`);
}

export interface WaitOptions {
  /** Events after this one belong to the turn. */
  readonly since: number;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly signal: AbortSignal;
  readonly exitNote: () => Promise<string>;
  /** Called on every poll (the transcript's activity). */
  readonly onPoll: () => Promise<void>;
}

/** Waits for the turn's end: its Stop or StopFailure, or a timeout, a cancel, a crash, a dialog, silence. */
export async function waitForTurnEnd(session: LiveSession, bridge: HookBridge, options: WaitOptions): Promise<TurnEnd> {
  const started = Date.now();
  let lastScreen = '';
  let lastChange = started;
  let seenEvents = 0;
  let wake: (() => void) | undefined;
  const unsubscribe = bridge.onChange(() => wake?.());
  try {
    for (;;) {
      const events = bridge.eventsAfter(options.since).filter((event) => event.own);
      const end = events.find((event) => event.event === 'Stop' || event.event === 'StopFailure');
      if (end) return endOf(end);
      if (events.length !== seenEvents) {
        seenEvents = events.length;
        lastChange = Date.now();
      }
      if (options.signal.aborted) return { outcome: 'cancelled', text: '', message: 'cancelled' };
      if (Date.now() - started >= options.timeoutMs) {
        // Interrupt the turn: the session stays usable for the next prompt.
        await sendKeys(session.tmux, 'Escape');
        return {
          outcome: 'timeout',
          text: '',
          message: `Claude Code did not finish its turn within ${Math.round(options.timeoutMs / 1000)}s and was interrupted (Escape); raise \`timeout\` in the spec if the task needs longer`,
        };
      }
      const screen = await capturePane(session.tmux);
      if (!(await sessionAlive(session.tmux))) {
        return {
          outcome: 'crashed',
          text: '',
          sessionGone: true,
          message: `Claude Code's session ended during the turn${await options.exitNote()}; the screen ended with: ${screenTail(lastScreen || screen)}`,
        };
      }
      const dialog = dialogOn(screen);
      if (dialog)
        return {
          outcome: 'crashed',
          text: '',
          message: `Claude Code stopped at ${dialog.what}, which no hook reports (${dialog.fix}); the screen: ${screenTail(screen)}`,
        };
      if (screen !== lastScreen) {
        lastScreen = screen;
        lastChange = Date.now();
      } else if (Date.now() - lastChange >= options.idleTimeoutMs) {
        await sendKeys(session.tmux, 'Escape');
        return {
          outcome: 'crashed',
          text: '',
          message: `Claude Code's screen did not change for ${Math.round(options.idleTimeoutMs / 1000)}s and no hook fired (\`[shannon] idle_timeout\`); the screen: ${screenTail(screen)}`,
        };
      }
      await options.onPoll();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, POLL_MS);
        wake = done;
        options.signal.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    unsubscribe();
  }
}

function endOf(event: HookEvent): TurnEnd {
  const text = str(event.payload.last_assistant_message) ?? '';
  if (event.event === 'Stop') return { outcome: 'success', text, event };
  const failure = classifyStopFailure(str(event.payload.error), text);
  return {
    outcome: failure.outcome,
    text,
    message: failure.message,
    event,
    ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
  };
}

/** The first event after `since` that matches, within `timeoutMs`; undefined when none came. */
export async function waitForEvent(
  bridge: HookBridge,
  since: number,
  match: (event: HookEvent) => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<HookEvent | undefined> {
  const find = () => bridge.eventsAfter(since).find(match);
  const found = find();
  if (found || signal?.aborted) return found;
  return new Promise((resolve) => {
    const finish = (event: HookEvent | undefined) => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(event);
    };
    const onAbort = () => finish(undefined);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const unsubscribe = bridge.onChange(() => {
      const event = find();
      if (event) finish(event);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
