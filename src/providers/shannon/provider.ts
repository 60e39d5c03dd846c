/**
 * `shannon`: Claude Code interactive, in a tmux session per candidate, driven through its hooks
 * (issue 10). Each `run()` is one turn of one long session, so the agent keeps its context from
 * one iteration to the next; a person can watch it (`bestof attach <run> <candidate>`) or take
 * it over (`--write`).
 *
 *   run #1      start the session (./session.ts), type the prompt, wait for its Stop hook
 *   run #n > 1  answer the Stop held since run #n-1 with `block` + the new prompt: the turn goes
 *               on in the same session (or, past the hold limit or near the block cap, allow the
 *               stop and type the prompt: ./turn.ts)
 *   close()     the state file says inactive, a held Stop is allowed, `/exit`, the session and
 *               (with the run's last session) the tmux server are killed
 *
 * Guards on blocking (a Stop hook that blocks for good would make the agent work forever):
 * only a Stop of the session id bestof assigned is ever held (./hook-bridge.ts); the hook
 * command blocks only while the state file says `active` (close() writes `inactive` first);
 * the engine's limits and the channel's stop end the candidate, and so call close(), which
 * allows; Claude Code's own cap of blocks in a row is never reached (the prompt is typed
 * instead); and every failure of the hook command allows.
 *
 * The result of a turn: its text is the Stop payload's `last_assistant_message`; tokens, cost
 * and the number of API responses come from the transcript (./transcript.ts), read while the
 * turn runs (activity lines) and briefly polled after the Stop, since Claude Code may flush its
 * last lines after the hook ran. Claude Code writes the session's cost only when a turn really
 * ends, so the cost of a turn whose Stop is held is estimated from its tokens
 * (`[providers.shannon.prices]`) and settled by the next real total. A StopFailure is classified
 * like the headless provider's errors (./classify.ts). A session changes (and the agent loses its
 * context) only when it died, its working folder or its model changed; a reviewer's call gets a
 * session of its own each time.
 */
import { rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { killSession, readExitStatus, sessionAlive } from '../../process/tmux.js';
import { err, ok, type Result } from '../../result.js';
import { pricesFor, type PriceTable } from '../prices.js';
import { str } from '../stream-lines.js';
import type { Provider, ProviderDescription, ProviderRequest, ProviderResult } from '../types.js';
import { HookBridge } from './hook-bridge.js';
import { sessionPaths, type SessionPaths } from './paths.js';
import { endSession, SESSION_ENV, startClaudeSession, untrackSession, type LiveSession } from './session.js';
import { signalProcessesWithEnv } from '../../process/tagged-processes.js';
import { emptyChunk, TranscriptReader, type TranscriptChunk } from './transcript.js';
import { freeze, thaw } from './freeze.js';
import type { ShannonOptions, ShannonSection } from './options.js';
import { describeShannon, recordInvocation, resultOf, settleTranscript, writeOutputLog } from './turn-record.js';
import { deliverable, PASTE_LIMIT_CHARS, PASTE_LIMIT_LINES, REASON_LIMIT_CHARS, typePrompt, waitForTurnEnd, type TurnEnd } from './turn.js';
import type { Env } from '../../env.js';

export type { ShannonSection } from './options.js';

export const SHANNON_DEFAULTS: ShannonSection = { command: 'claude', startup_timeout: 60_000, idle_timeout: 120_000, hold_timeout: 1_200_000 };

/** Claude Code ends a turn by itself after this many Stop blocks in a row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP changes it). */
export const DEFAULT_BLOCK_CAP = 8;
const EXIT_GRACE_MS = 2000;

export type { ShannonOptions } from './options.js';

interface SessionState {
  readonly live: LiveSession;
  readonly paths: SessionPaths;
  reader: TranscriptReader | undefined;
  /** Where the transcript's activity lines go: the current call's (a line read after it is the next call's). */
  activity: (text: string) => void;
  /** The session's cumulative cost already reported by earlier turns (real or estimated). */
  costReported: number;
  /** Stop blocks since the last typed prompt. */
  blocks: number;
  /** Its tools and what they left running are stopped (a Stop held while bestof scores: ./freeze.ts). */
  frozen: boolean;
}

const cancelled: TurnEnd = { outcome: 'cancelled', text: '', message: 'cancelled' };

export function createShannonProvider(options: ShannonOptions): Provider {
  return new ShannonProvider(options);
}

class ShannonProvider implements Provider {
  readonly kind = 'shannon' as const;
  private bridge: HookBridge | undefined;
  private bridgePaths: SessionPaths | undefined;
  private current: SessionState | undefined;
  private closed = false;
  private description: Promise<ProviderDescription> | undefined;
  private readonly prices: PriceTable;

  constructor(private readonly options: ShannonOptions) {
    this.prices = pricesFor('shannon', options.prices);
  }

  async run(request: ProviderRequest): Promise<ProviderResult> {
    const started = performance.now();
    const paths = sessionPaths(request.artifactsDir, request.candidateId);
    const chunk = emptyChunk();
    const finish = (end: TurnEnd, state: SessionState | undefined): ProviderResult =>
      resultOf(end, chunk, state, performance.now() - started, this.prices, request.onActivity);
    await writeFile(join(request.artifactsDir, 'prompt.md'), request.redact ? request.redact(request.prompt) : request.prompt).catch(() => undefined);
    if (request.signal.aborted) return finish(cancelled, this.current);

    const bridge = await this.bridgeFor(paths);
    const session = await this.sessionFor(request, paths, bridge);
    if (!session.ok) {
      await recordInvocation(request, this.options, undefined, 'typed');
      return finish(session.error, undefined);
    }
    const state = session.value;
    state.activity = request.onActivity;
    const since = bridge.lastSeq;
    const submitted = await this.submit(request, state, bridge);
    await recordInvocation(request, this.options, state.live, submitted.ok ? submitted.value : 'typed');
    if (!submitted.ok) return finish(submitted.error, state);

    const readTranscript = () => this.readTranscript(state, bridge, chunk);
    const end = await waitForTurnEnd(state.live, bridge, {
      since,
      timeoutMs: request.timeoutMs,
      idleTimeoutMs: this.options.section.idle_timeout,
      signal: request.signal,
      exitNote: async () => {
        const status = await readExitStatus(paths.exitFile);
        return status !== undefined ? ` (exit status ${status})` : '';
      },
      onPoll: readTranscript,
    });
    if (end.outcome === 'cancelled') await this.dropSession(true);
    else if (end.sessionGone) await this.dropSession(false);
    else if (end.event) await settleTranscript(readTranscript, chunk, str(end.event.payload.last_assistant_message) ?? '');
    await writeOutputLog(request, chunk);
    const result = finish(end, state);
    if (!isIterationCall(request)) await this.endOneShot();
    else if (bridge.heldStop()?.open && this.current === state) freeze(state);
    return result;
  }

  describe(): Promise<ProviderDescription> {
    return (this.description ??= describeShannon(this.options));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Inactive first: a hook that starts now allows at once, and the held Stop is allowed.
    await this.bridge?.deactivate();
    const state = this.current;
    if (state) {
      thaw(state);
      await endSession(state.live, EXIT_GRACE_MS).catch(() => undefined);
      await this.dropSession(false);
    }
    await this.bridge?.close();
    if (this.bridgePaths) {
      await rm(this.bridgePaths.hookDir, { recursive: true, force: true }).catch(() => undefined);
      // The run's folder goes with its last user (rmdir fails while another candidate's things are there).
      await rmdir(this.bridgePaths.baseDir).catch(() => undefined);
    }
  }

  /** The candidate's hook bridge, started with its first call and kept until close(). */
  private async bridgeFor(paths: SessionPaths): Promise<HookBridge> {
    if (!this.bridge) {
      this.bridge = await HookBridge.start({ socketPath: paths.bridgeSocket, statePath: paths.stateFile, sessionId: '' });
      this.bridgePaths = paths;
    }
    return this.bridge;
  }

  /** The live session, started when there is none (the first call, or the last one died or moved). */
  private async sessionFor(request: ProviderRequest, paths: SessionPaths, bridge: HookBridge): Promise<Result<SessionState, TurnEnd>> {
    const current = this.current;
    const why = !current
      ? undefined
      : current.live.cwd !== request.cwd
        ? 'the working folder changed'
        : current.live.model !== request.model
          ? `this iteration asks for model ${request.model ?? "Claude Code's default"}`
          : !(await sessionAlive(current.live.tmux))
            ? 'the Claude Code session is gone'
            : undefined;
    if (current && why) {
      request.onActivity(`${why}: a new Claude Code session (the agent starts without the last one's context)`);
      if (current.live.model !== request.model && current.live.cwd === request.cwd) await this.endHeld(current);
      await this.dropSession(true);
    }
    if (this.current) return ok(this.current);
    const started = await startClaudeSession({
      binary: this.options.binary,
      settings: this.options.settings,
      paths,
      bridge,
      cwd: request.cwd,
      model: request.model,
      env: request.env,
      sandbox: request.sandbox,
      startupTimeoutMs: this.options.section.startup_timeout,
      holdMs: this.options.section.hold_timeout,
      signal: request.signal,
    });
    if (!started.ok) return err(started.error.cancelled ? cancelled : { outcome: 'crashed', text: '', message: started.error.message });
    this.current = { live: started.value, paths, reader: undefined, activity: request.onActivity, costReported: 0, blocks: 0, frozen: false };
    request.onActivity(`Claude Code runs in tmux session ${paths.name}; watch it: bestof attach ${request.env.BESTOF_RUN ?? '<run>'} ${request.candidateId}`);
    return ok(this.current);
  }

  /**
   * The prompt into the session: the held Stop's block reason (the turn goes on), unless the
   * hook gave up or one more block would reach Claude Code's cap; then the stop is allowed and
   * the prompt typed.
   */
  private async submit(request: ProviderRequest, state: SessionState, bridge: HookBridge): Promise<Result<'block' | 'typed', TurnEnd>> {
    const held = bridge.heldStop();
    const cap = blockCap(request.env);
    if (held?.open && state.blocks + 1 < cap) {
      const reason = await deliverable(request.prompt, state.paths.promptsDir, request.iteration, {
        chars: REASON_LIMIT_CHARS,
        lines: Number.POSITIVE_INFINITY,
      });
      if (bridge.answerHeld({ decision: 'block', reason })) {
        thaw(state);
        state.blocks += 1;
        return ok('block');
      }
    } else if (held?.open) {
      request.onActivity(`${state.blocks} Stop blocks in a row: the stop is allowed and the prompt typed (Claude Code's cap is ${cap})`);
    } else if (held) {
      request.onActivity('the held Stop hook gave up waiting ([shannon] hold_timeout): the prompt is typed');
    }
    bridge.answerHeld({ decision: 'allow' });
    thaw(state);
    const text = await deliverable(request.prompt, state.paths.promptsDir, request.iteration, { chars: PASTE_LIMIT_CHARS, lines: PASTE_LIMIT_LINES });
    const typed = await typePrompt(state.live, bridge, text, { readyTimeoutMs: this.options.section.startup_timeout, signal: request.signal });
    if (!typed.ok) {
      if (!request.signal.aborted) return err({ outcome: 'crashed', text: '', message: typed.error });
      await this.dropSession(true);
      return err(cancelled);
    }
    state.blocks = 0;
    return ok('typed');
  }

  /** What the transcript gained since the last read (its path comes with the session's first hook). */
  private async readTranscript(state: SessionState, bridge: HookBridge, chunk: TranscriptChunk): Promise<void> {
    if (!state.reader) {
      const path = transcriptPathOf(bridge, state.live.sessionId);
      if (!path) return;
      state.reader = new TranscriptReader(path, (line) => state.activity(line));
    }
    await state.reader.readInto(chunk);
  }

  /** A reviewer's call works in a fresh export each time: its session ends with the call. */
  private async endOneShot(): Promise<void> {
    if (!this.current) return;
    await this.endHeld(this.current);
    await this.dropSession(false);
  }

  /** Allows the session's held Stop and ends it with /exit (its transcript gets its last lines). */
  private async endHeld(state: SessionState): Promise<void> {
    this.bridge?.answerHeld({ decision: 'allow' });
    thaw(state);
    await endSession(state.live, EXIT_GRACE_MS).catch(() => undefined);
  }

  private async dropSession(kill: boolean): Promise<void> {
    const state = this.current;
    this.current = undefined;
    if (!state) return;
    // A stopped process takes no SIGHUP or SIGTERM: it must run again to end gracefully.
    thaw(state);
    if (kill) await killSession(state.live.tmux);
    await untrackSession(state.live.tmux);
    // What the session left running in a session of its own (`setsid`) outlives its pane: it goes too.
    signalProcessesWithEnv(SESSION_ENV, [state.live.sessionId], 'SIGKILL');
  }
}

/** A candidate's iteration (its session goes on to the next one), not a reviewer's call. */
function isIterationCall(request: ProviderRequest): boolean {
  return /^iteration-\d+$/.test(basename(request.artifactsDir));
}

/** The transcript path from the session's hook payloads (SessionStart has it first). */
function transcriptPathOf(bridge: HookBridge, sessionId: string): string | undefined {
  for (const event of bridge.eventsAfter(0)) {
    if (event.payload.session_id !== sessionId) continue;
    const path = str(event.payload.transcript_path);
    if (path) return path;
  }
  return undefined;
}

function blockCap(env: Env): number {
  const value = Number(env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_BLOCK_CAP;
}
