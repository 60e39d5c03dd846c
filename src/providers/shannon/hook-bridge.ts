/**
 * The coordinator's end of the hook bridge: a Unix socket server per shannon session, which
 * `bestof hook <event>` (src/cli/commands/hook.ts, run by Claude Code's hooks) talks to.
 *
 * Protocol (one request and one answer per connection, each one line of JSON):
 *   hook -> bridge   {"event":"Stop","payload":{...the hook's stdin, as Claude Code gave it...}}
 *   bridge -> hook   {}                                        allow (the hook prints nothing)
 *                    {"decision":"block","reason":"..."}       the hook prints exactly this
 * The hook gives up after BESTOF_HOOK_WAIT_MS and then allows; so does every failure on either
 * side (no socket, refused, garbage, a closed connection): the session is never stuck.
 *
 * What the bridge answers at once (allow): every event but a Stop, every event of another
 * session id than the pre-assigned one (a person's own `claude` in the same folder), every
 * event once the bridge is inactive. The Stop of its own session is *held*: the connection
 * stays open until the provider answers it (block with the next prompt, or allow), or until
 * the hook gives up (the connection closes, and the held Stop is gone).
 *
 * The state file (BESTOF_HOOK_STATE) says `active` while the provider may block; close()
 * writes `inactive` before anything else, so a hook that starts afterwards allows without
 * asking. Every event the bridge saw is kept in order (`seq`), so a turn can wait for "a
 * UserPromptSubmit after I pasted".
 */
import { createServer, type Server, type Socket } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isObject, type JsonObject } from '../stream-lines.js';

/** The largest request line the bridge reads (a Stop payload is small; a prompt in UserPromptSubmit can be big). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export interface HookEvent {
  /** Order of arrival, from 1. */
  readonly seq: number;
  readonly event: string;
  readonly payload: JsonObject;
  /** The payload's session id is the provider's own. */
  readonly own: boolean;
}

export type HookAnswer = { readonly decision: 'allow' } | { readonly decision: 'block'; readonly reason: string };

export interface HeldStop {
  readonly event: HookEvent;
  /** The hook is still waiting (its connection is open). */
  readonly open: boolean;
}

export interface HookBridgeOptions {
  /** Where the socket is created (its folder is made, 0700). */
  readonly socketPath: string;
  /** The state file the hook command reads. */
  readonly statePath: string;
  /** The session id whose Stop may be held. */
  sessionId: string;
}

export class HookBridge {
  private readonly server: Server;
  private readonly events: HookEvent[] = [];
  private readonly listeners = new Set<() => void>();
  private held: { event: HookEvent; socket: Socket; open: boolean } | undefined;
  private active = true;
  private seq = 0;

  private constructor(private readonly options: HookBridgeOptions) {
    this.server = createServer((socket) => this.onConnection(socket));
  }

  static async start(options: HookBridgeOptions): Promise<HookBridge> {
    await mkdir(dirname(options.socketPath), { recursive: true, mode: 0o700 });
    await rm(options.socketPath, { force: true });
    const bridge = new HookBridge(options);
    await new Promise<void>((resolve, reject) => {
      bridge.server.once('error', reject);
      bridge.server.listen(options.socketPath, () => {
        bridge.server.off('error', reject);
        resolve();
      });
    });
    // A bridge never keeps bestof alive by itself.
    bridge.server.unref();
    await writeFile(options.statePath, 'active\n');
    return bridge;
  }

  /** The session whose Stop is held (a restarted session gets a new one). */
  setSessionId(sessionId: string): void {
    this.options.sessionId = sessionId;
  }

  /** The last event number seen; events after it are "new". */
  get lastSeq(): number {
    return this.seq;
  }

  /** Every event seen after `seq`, in order. */
  eventsAfter(seq: number): readonly HookEvent[] {
    return this.events.filter((event) => event.seq > seq);
  }

  /** The held Stop of the own session, if any (it may have closed: the hook gave up). */
  heldStop(): HeldStop | undefined {
    const held = this.held;
    return held ? { event: held.event, open: held.open } : undefined;
  }

  /** Answers the held Stop (when its hook still waits) and forgets it. true when the hook got the answer. */
  answerHeld(answer: HookAnswer): boolean {
    const held = this.held;
    this.held = undefined;
    if (!held?.open) return false;
    held.open = false;
    respond(held.socket, answer);
    return true;
  }

  /** Called after every event and every closed hold; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** From now on nothing blocks: the state file says inactive, a held Stop is allowed. */
  async deactivate(): Promise<void> {
    if (this.active) {
      this.active = false;
      await writeFile(this.options.statePath, 'inactive\n').catch(() => undefined);
    }
    this.answerHeld({ decision: 'allow' });
  }

  /** Deactivates, stops listening and removes the socket. Idempotent. */
  async close(): Promise<void> {
    await this.deactivate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.options.socketPath, { force: true }).catch(() => undefined);
  }

  private onConnection(socket: Socket): void {
    let buffer = '';
    let done = false;
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      if (done) return;
      buffer += chunk;
      if (buffer.length > MAX_REQUEST_BYTES) {
        done = true;
        socket.destroy();
        return;
      }
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      done = true;
      this.onRequest(buffer.slice(0, newline), socket);
    });
  }

  private onRequest(line: string, socket: Socket): void {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      respond(socket, { decision: 'allow' });
      return;
    }
    if (!isObject(request) || typeof request.event !== 'string' || !isObject(request.payload)) {
      respond(socket, { decision: 'allow' });
      return;
    }
    const own = request.payload.session_id === this.options.sessionId;
    const event: HookEvent = { seq: ++this.seq, event: request.event, payload: request.payload, own };
    this.events.push(event);
    if (own && event.event === 'Stop' && this.active) {
      // A newer Stop replaces an older hold (its hook gave up, or Claude Code moved on).
      this.answerHeld({ decision: 'allow' });
      const held = { event, socket, open: true };
      this.held = held;
      socket.on('close', () => {
        if (!held.open) return;
        held.open = false;
        this.notify();
      });
    } else {
      respond(socket, { decision: 'allow' });
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function respond(socket: Socket, answer: HookAnswer): void {
  const line = answer.decision === 'block' ? JSON.stringify({ decision: 'block', reason: answer.reason }) : '{}';
  socket.end(`${line}\n`);
}
