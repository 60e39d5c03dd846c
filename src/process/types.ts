/**
 * The process layer's contract. Every child process of bestof (agents, checks, setup
 * commands) is started through `runProcess` in ./run-process.ts, and a process that fails
 * is a value, never an exception: `runProcess` never rejects for anything the child did.
 */
import type { Env } from '../env.js';

export interface RunProcessOptions {
  /** Working directory of the child. */
  readonly cwd: string;
  /**
   * Full environment of the child. The caller builds it (usually from process.env plus extras);
   * runProcess adds only BESTOF_PROCESS_TAG, a random value per child by which whatever the child
   * leaves behind is found and killed when it ends (./tagged-processes.ts).
   */
  readonly env: Env;
  /** Kill the whole process tree after this many ms. @default undefined (no limit) */
  readonly timeoutMs?: number;
  /** Aborting kills the whole process tree; the result then has `canceled: true`. */
  readonly signal?: AbortSignal;
  /** Grace period between SIGTERM and SIGKILL of the process group. @default 1000 */
  readonly killGraceMs?: number;
  /** Text written to stdin, which is then closed. @default undefined (stdin is /dev/null) */
  readonly input?: string;
  /** Called with every complete stdout line (without the newline) as it arrives. */
  readonly onStdoutLine?: (line: string) => void;
  /** Called with every complete stderr line as it arrives. */
  readonly onStderrLine?: (line: string) => void;
  /** If set, the raw stdout and stderr are appended to this file as they arrive (its first and last MB: ./capped-log.ts). */
  readonly logFile?: string;
  /** Secret redaction for what goes into `logFile` (one per call: it holds state across chunks). @default none */
  readonly logRedactor?: LogRedactor;
  /** How many bytes of the end of stdout / stderr to keep in the result. @default 65536 */
  readonly maxBufferTail?: number;
}

export interface ProcessResult {
  /** Exit code, or undefined when the process ended by a signal or never started. */
  readonly exitCode: number | undefined;
  /** The signal that ended the process, e.g. "SIGKILL". */
  readonly signal: string | undefined;
  readonly timedOut: boolean;
  readonly canceled: boolean;
  /** The program could not be started (e.g. ENOENT): the message says which and why. */
  readonly spawnError: string | undefined;
  readonly durationMs: number;
  /** The last `maxBufferTail` bytes of stdout / stderr. */
  readonly stdout: string;
  readonly stderr: string;
  /** exitCode === 0 and none of the above. */
  readonly ok: boolean;
}

/** Redacts a stream of output chunk by chunk (src/engine/sandbox/secrets.ts makes them; the process layer only calls them). */
export interface LogRedactor {
  /** What can be written now; the end of the chunk may be held back until the next one. */
  push(chunk: string | Uint8Array): string;
  /** The rest, at the end of the stream. */
  end(): string;
}
