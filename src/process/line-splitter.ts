/**
 * Incremental line splitting of a byte stream. Bytes may arrive in arbitrary chunks: a
 * StringDecoder keeps a multi-byte UTF-8 character split across two chunks intact, and a
 * "\r\n" split across chunks still yields one line without the "\r".
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /**
   * @param onLine receives each line without its "\n" / "\r\n".
   * @param maxLineLength a longer line without a newline is emitted in pieces of this many
   *   characters, so a child that never prints "\n" cannot make us buffer without bound.
   */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineLength = 1 << 20,
  ) {}

  push(chunk: Uint8Array): void {
    this.pending += this.decoder.write(chunk as Buffer);
    let start = 0;
    let newline: number;
    while ((newline = this.pending.indexOf('\n', start)) !== -1) {
      this.emit(this.pending.slice(start, newline));
      start = newline + 1;
    }
    this.pending = this.pending.slice(start);
    while (this.pending.length > this.maxLineLength) {
      this.onLine(this.pending.slice(0, this.maxLineLength));
      this.pending = this.pending.slice(this.maxLineLength);
    }
  }

  /** Flushes the last line if the stream did not end with a newline. */
  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest !== '') this.emit(rest);
  }

  private emit(line: string): void {
    this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}
