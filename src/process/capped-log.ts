/**
 * A raw log that keeps the first `headBytes` and the last `tailBytes` of what is written, with
 * a line where the middle was cut that says how many bytes it held. An agent that prints
 * 50 MB leaves a log of about 2 MB: how it started, and how it ended.
 *
 * What is on disk at each moment, and why:
 * - The head is written synchronously as it arrives, so it is on disk (the page cache keeps
 *   what a killed process wrote) the moment `write` returns: after a kill -9 the log holds
 *   everything up to `headBytes`, which for most processes is everything.
 * - The tail is kept in memory (a ring of `tailBytes`) and written by `close()`. A ring *file*
 *   would keep it across a kill -9 too, but what a killed bestof left would then be out of order
 *   and only readable by a tool of ours; a log a person opens must read top to bottom. So when
 *   the head fills, a line saying that the rest comes at the end goes in after it: a log cut
 *   short by a kill says so itself. `close()` writes the tail over that line (or the cut's
 *   marker and the tail) and truncates to the end.
 * - The cut falls between UTF-8 characters: the head ends before a character the limit would
 *   split and the kept tail starts at the next character, so the log is valid UTF-8 wherever
 *   the output was, and the marker counts exactly the bytes left out. (Output that is not UTF-8
 *   loses at most three more bytes at each side of the cut.)
 *
 * The file is appended to, like the log it replaces: the calls of one iteration (waits for a
 * rate limit) share one output.log, and each keeps its own head and tail.
 *
 * A log must never stop what it records: an I/O error (a full disk) stops the writing, and
 * neither `write` nor `close` ever throws or rejects for it.
 */
import { closeSync, constants, fstatSync, ftruncateSync, open, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

export interface CappedLogOptions {
  /** Bytes kept from the start of the output. @default 1048576 (1 MB) */
  readonly headBytes?: number;
  /** Bytes kept from the end of the output. @default 1048576 (1 MB) */
  readonly tailBytes?: number;
}

export interface CappedLog {
  /** Never throws: the head goes to disk at once, the tail to memory. Ignored after close(). */
  write(chunk: string | Uint8Array): void;
  /** Writes the tail (and the cut's marker) and closes the file; the same promise when called again; never rejects. */
  close(): Promise<void>;
}

export const CAPPED_LOG_DEFAULTS = { headBytes: 1 << 20, tailBytes: 1 << 20 } as const;

const openFile = promisify(open);

/** Creates the folder and the file (keeping what is in it) and returns the writer. Rejects only when the file cannot be opened. */
export async function openCappedLog(path: string, options: CappedLogOptions = {}): Promise<CappedLog> {
  const headBytes = options.headBytes ?? CAPPED_LOG_DEFAULTS.headBytes;
  const tailBytes = options.tailBytes ?? CAPPED_LOG_DEFAULTS.tailBytes;
  for (const [name, value] of [
    ['headBytes', headBytes],
    ['tailBytes', tailBytes],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`bug: openCappedLog's \`${name}\` must be a non-negative integer, got ${value}`);
  }
  await mkdir(dirname(path), { recursive: true });
  // Neither O_APPEND (its writes ignore the position, and close() writes over the interim
  // line) nor O_TRUNC (what an earlier call wrote stays).
  const fd = await openFile(path, constants.O_WRONLY | constants.O_CREAT);
  return new CappedLogWriter(fd, fstatSync(fd).size, headBytes, tailBytes);
}

class CappedLogWriter implements CappedLog {
  /** Bytes offered so far. */
  private total = 0;
  /** Bytes of the head on disk; once the output outgrows the head, where the head ends (a character boundary). */
  private headLength = 0;
  /** The head's last bytes (at most 3): the cut may move back into a character they begin. */
  private headEnd: Buffer = Buffer.alloc(0);
  private overflowed = false;
  private readonly tail: TailRing;
  private failed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly fd: number,
    /** Where this writer's output starts in the file (what was there before is kept). */
    private readonly start: number,
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {
    this.tail = new TailRing(tailBytes);
  }

  write(chunk: string | Uint8Array): void {
    if (this.closing) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (bytes.length === 0) return;
    this.total += bytes.length;
    if (this.overflowed) return this.tail.push(bytes);
    const room = this.headBytes - this.headLength;
    if (bytes.length <= room) return this.appendToHead(bytes);
    this.appendToHead(bytes.subarray(0, room));
    this.overflow(bytes.subarray(room));
  }

  close(): Promise<void> {
    this.closing ??= Promise.resolve().then(() => {
      if (this.overflowed) this.writeTail();
      // Even after a failed write: the descriptor is ours to give back.
      try {
        closeSync(this.fd);
      } catch {
        // Nothing left to save.
      }
    });
    return this.closing;
  }

  private appendToHead(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.writeAt(this.headLength, bytes);
    this.headLength += bytes.length;
    this.headEnd = bytes.length >= 3 ? Buffer.from(bytes.subarray(-3)) : Buffer.concat([this.headEnd, bytes]).subarray(-3);
  }

  /** The first byte past the head has come: the head ends at a character boundary, the rest goes to the tail. */
  private overflow(rest: Buffer): void {
    this.overflowed = true;
    // Bytes of a character the limit would split go back from the head to the tail.
    const splitCharacterStart = this.characterStartBefore(rest[0]);
    this.headLength -= splitCharacterStart.length;
    this.tail.push(splitCharacterStart);
    this.tail.push(rest);
    // Over the moved bytes, if any: until close(), the log says where the rest of the output is.
    this.writeAt(this.headLength, Buffer.from(interimLine(this.headBytes, this.tailBytes)));
  }

  /**
   * The head's last bytes that begin a character continued by `next` (none when `next` starts
   * a character): UTF-8 characters are at most 4 bytes, so at most 3 of them.
   */
  private characterStartBefore(next: number | undefined): Buffer {
    if (!isContinuationByte(next)) return Buffer.alloc(0);
    const last = this.headEnd;
    for (let i = last.length - 1; i >= 0; i--) {
      if (!isContinuationByte(last[i])) return Buffer.from(last.subarray(i));
    }
    // Continuation bytes all the way back: not UTF-8, nothing to keep together.
    return Buffer.alloc(0);
  }

  private writeTail(): void {
    let kept = this.tail.contents();
    const afterHead = this.total - this.headLength;
    let marker = '';
    if (afterHead > kept.length) {
      // A cut: the kept tail starts at the next character.
      let skip = 0;
      while (skip < 3 && skip < kept.length && isContinuationByte(kept[skip])) skip += 1;
      kept = kept.subarray(skip);
      marker = cutLine(afterHead - kept.length, this.headBytes, this.tailBytes);
    }
    const end = this.writeAt(this.headLength, Buffer.concat([Buffer.from(marker), kept]));
    this.io(() => ftruncateSync(this.fd, end));
  }

  /** Writes at `offset` from this writer's start; returns the file offset after it. */
  private writeAt(offset: number, bytes: Buffer): number {
    const position = this.start + offset;
    this.io(() => {
      for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done, position + done);
    });
    return position + bytes.length;
  }

  private io(operation: () => void): void {
    if (this.failed) return;
    try {
      operation();
    } catch {
      // A full disk or a vanished folder: the log stops here, the process it records goes on.
      this.failed = true;
    }
  }
}

/** The last `capacity` bytes pushed, in a fixed buffer: many small chunks cost no more than a few big ones. */
class TailRing {
  private buffer: Buffer | undefined;
  private length = 0;
  /** Where the next byte goes. */
  private next = 0;

  constructor(private readonly capacity: number) {}

  push(bytes: Buffer): void {
    if (this.capacity === 0 || bytes.length === 0) return;
    this.buffer ??= Buffer.allocUnsafe(this.capacity);
    const kept = bytes.length > this.capacity ? bytes.subarray(bytes.length - this.capacity) : bytes;
    const first = Math.min(kept.length, this.capacity - this.next);
    kept.copy(this.buffer, this.next, 0, first);
    kept.copy(this.buffer, 0, first);
    this.next = (this.next + kept.length) % this.capacity;
    this.length = Math.min(this.capacity, this.length + kept.length);
  }

  contents(): Buffer {
    if (!this.buffer || this.length === 0) return Buffer.alloc(0);
    if (this.length < this.capacity) return this.buffer.subarray(0, this.length);
    return Buffer.concat([this.buffer.subarray(this.next), this.buffer.subarray(0, this.next)]);
  }
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function interimLine(headBytes: number, tailBytes: number): string {
  return `\n[bestof: the output goes on past its first ${formatBytes(headBytes)}; its end (up to ${formatBytes(tailBytes)}) is written here when it ends. If this is the last line, bestof was stopped before that.]\n`;
}

function cutLine(droppedBytes: number, headBytes: number, tailBytes: number): string {
  return `\n[bestof: ${droppedBytes.toLocaleString('en-US')} bytes of output cut here; this log keeps the first ${formatBytes(headBytes)} and the last ${formatBytes(tailBytes)}]\n`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}
