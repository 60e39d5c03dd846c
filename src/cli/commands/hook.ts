/**
 * `bestof hook <event>`: what the Claude Code hooks of a `shannon` session run (their command
 * is written by src/providers/shannon/hook-settings.ts). It hands the hook's payload to the
 * running bestof over a Unix socket and prints the answer (protocol:
 * src/providers/shannon/hook-bridge.ts).
 *
 * It must never stop a session for good: a Stop hook that fails or hangs breaks Claude Code's
 * turn and its shutdown. So it reads stdin with a time limit, waits for the answer at most
 * BESTOF_HOOK_WAIT_MS, and on anything unexpected (no state file, the state not `active`, no
 * socket, a refused or closed connection, garbage) prints nothing: Claude Code takes that as
 * "allow". It always exits 0. It imports only Node's own modules, so it starts fast.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';

const STDIN_LIMIT_MS = 2000;
/** For events the coordinator answers at once; a Stop waits BESTOF_HOOK_WAIT_MS. */
const QUICK_WAIT_MS = 5000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export async function hookCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const event = args[0] ?? '';
  const input = await readStdin(STDIN_LIMIT_MS);
  const answer = await ask(event, input, env).catch(() => undefined);
  if (answer !== undefined) process.stdout.write(`${answer}\n`);
  return 0;
}

/** The line to print (a block decision), or undefined to allow. */
async function ask(event: string, input: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const socketPath = env.BESTOF_HOOK_SOCKET;
  const statePath = env.BESTOF_HOOK_STATE;
  if (!event || !socketPath || !statePath) return undefined;
  if (readState(statePath) !== 'active') return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(input);
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const waitMs = event === 'Stop' ? waitLimit(env.BESTOF_HOOK_WAIT_MS) : QUICK_WAIT_MS;
  const line = await exchange(socketPath, JSON.stringify({ event, payload }), waitMs);
  if (line === undefined) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { decision, reason } = answer as { decision?: unknown; reason?: unknown };
  if (decision !== 'block' || typeof reason !== 'string' || reason === '') return undefined;
  return JSON.stringify({ decision: 'block', reason });
}

function readState(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function waitLimit(text: string | undefined): number {
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : QUICK_WAIT_MS;
}

/** Sends one line and returns the first line of the answer; undefined on any failure or after `waitMs`. */
function exchange(socketPath: string, request: string, waitMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let answer = '';
    let settled = false;
    const socket = createConnection(socketPath);
    const finish = (line: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    const timer = setTimeout(() => finish(undefined), waitMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${request}\n`));
    socket.on('data', (chunk: string) => {
      answer += chunk;
      const newline = answer.indexOf('\n');
      if (newline >= 0) finish(answer.slice(0, newline));
      else if (answer.length > MAX_ANSWER_BYTES) finish(undefined);
    });
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
  });
}

/** All of stdin, or what arrived within `limitMs` (a hook whose stdin never closes still answers). */
function readStdin(limitMs: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    let settled = false;
    const stdin = process.stdin;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdin.pause();
      stdin.destroy();
      resolve(text);
    };
    const timer = setTimeout(finish, limitMs);
    stdin.setEncoding('utf8');
    stdin.on('data', (chunk: string) => (text += chunk));
    stdin.on('end', finish);
    stdin.on('error', finish);
  });
}
