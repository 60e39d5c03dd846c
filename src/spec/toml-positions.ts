/**
 * Where a key is in the TOML source. smol-toml gives values, not positions, so this small
 * scanner re-reads the (already accepted) text to find the line and column of every key and
 * value; `SourceLocator` turns a dotted key from a zod issue into a located `SpecProblem`.
 * It lives apart from the load pipeline because it is the one piece that reads TOML by hand.
 */
import type { SpecProblem } from './errors.js';
import { formatKeyPath, type PathSegment } from './key-path.js';

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** Turns a dotted key into a located `SpecProblem`, falling back to the nearest enclosing table. */
export class SourceLocator {
  private readonly lines: string[];
  private readonly positions: TomlKeyPositions;

  constructor(
    private readonly file: string,
    source: string,
  ) {
    this.lines = sourceLines(source);
    this.positions = scanTomlKeyPositions(source);
  }

  /** `prefer`: point at the key itself (unknown keys) or at its value (bad values). */
  problem(path: readonly PathSegment[], message: string, prefer: 'key' | 'value'): SpecProblem {
    const key = path.length > 0 ? formatKeyPath(path) : undefined;
    const position = this.find(path, prefer);
    if (position === undefined) return { file: this.file, ...(key === undefined ? {} : { key }), message };
    const excerpt = this.lines[position.line - 1];
    return {
      file: this.file,
      line: position.line,
      column: position.column,
      ...(key === undefined ? {} : { key }),
      message,
      ...(excerpt === undefined ? {} : { excerpt }),
    };
  }

  private find(path: readonly PathSegment[], prefer: 'key' | 'value'): SourcePosition | undefined {
    const { keys, values } = this.positions;
    for (let length = path.length; length > 0; length--) {
      const dotted = formatKeyPath(path.slice(0, length));
      const exact = length === path.length && prefer === 'value';
      const found = exact ? (values.get(dotted) ?? keys.get(dotted)) : (keys.get(dotted) ?? values.get(dotted));
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

export interface TomlKeyPositions {
  /** Where each dotted key (or table header) is first written. */
  readonly keys: Map<string, SourcePosition>;
  /** Where each value starts, including array elements (`a.b[2]`). */
  readonly values: Map<string, SourcePosition>;
}

export function scanTomlKeyPositions(source: string): TomlKeyPositions {
  const scanner = new TomlKeyScanner(source);
  scanner.scanDocument();
  return { keys: scanner.keys, values: scanner.values };
}

/**
 * A small scanner over TOML that smol-toml has already accepted: it records where keys
 * and values are, resolving `[[array.tables]]` to indexes the way zod paths name them.
 * It never judges the TOML (the parser did that), so it only has to be robust, not strict.
 */
class TomlKeyScanner {
  readonly keys = new Map<string, SourcePosition>();
  readonly values = new Map<string, SourcePosition>();
  private pos = 0;
  private readonly lineStarts: number[] = [0];
  /** How many `[[x]]` entries each array of tables has so far, by resolved path. */
  private readonly tableArrayCounts = new Map<string, number>();

  constructor(private readonly src: string) {
    for (let index = 0; index < src.length; index++) if (src[index] === '\n') this.lineStarts.push(index + 1);
  }

  scanDocument(): void {
    let table: PathSegment[] = [];
    while (this.pos < this.src.length) {
      const before = this.pos;
      this.skipBlank(true);
      if (this.pos >= this.src.length) break;
      if (this.src[this.pos] === '[') table = this.scanHeader();
      else this.scanKeyValue(table);
      if (this.pos === before) this.pos++;
    }
  }

  private scanHeader(): PathSegment[] {
    const headerOffset = this.pos;
    const isArray = this.src.startsWith('[[', this.pos);
    this.pos += isArray ? 2 : 1;
    const parts = this.scanKey();
    const resolved: PathSegment[] = [];
    parts.forEach((part, index) => {
      resolved.push(part.name);
      const dotted = formatKeyPath(resolved);
      this.record(this.keys, resolved, part.offset);
      const count = this.tableArrayCounts.get(dotted);
      if (isArray && index === parts.length - 1) {
        this.tableArrayCounts.set(dotted, (count ?? 0) + 1);
        resolved.push(count ?? 0);
        this.record(this.keys, resolved, headerOffset);
      } else if (count !== undefined) {
        // `[a.b]` after `[[a]]` belongs to the last `a` entry.
        resolved.push(count - 1);
      }
    });
    this.skipSpaces();
    if (this.src[this.pos] === ']') this.pos += isArray ? 2 : 1;
    return resolved;
  }

  private scanKeyValue(table: readonly PathSegment[]): void {
    const path = [...table];
    for (const part of this.scanKey()) {
      path.push(part.name);
      this.record(this.keys, path, part.offset);
    }
    this.skipSpaces();
    if (this.src[this.pos] !== '=') return;
    this.pos++;
    this.skipSpaces();
    this.record(this.values, path, this.pos);
    this.scanValue(path);
  }

  private scanKey(): Array<{ name: string; offset: number }> {
    const parts: Array<{ name: string; offset: number }> = [];
    for (;;) {
      this.skipSpaces();
      const offset = this.pos;
      const char = this.src[this.pos];
      let name: string;
      if (char === '"') name = this.decodeBasicString(this.skipString('"', true));
      else if (char === "'") name = this.skipString("'", false).slice(1, -1);
      else {
        while (this.pos < this.src.length && /[A-Za-z0-9_-]/.test(this.src[this.pos] as string)) this.pos++;
        name = this.src.slice(offset, this.pos);
        if (name === '') return parts;
      }
      parts.push({ name, offset });
      this.skipSpaces();
      if (this.src[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  private scanValue(path: readonly PathSegment[]): void {
    const char = this.src[this.pos];
    if (this.src.startsWith('"""', this.pos)) this.skipMultilineString('"""', true);
    else if (this.src.startsWith("'''", this.pos)) this.skipMultilineString("'''", false);
    else if (char === '"') this.skipString('"', true);
    else if (char === "'") this.skipString("'", false);
    else if (char === '[') this.scanArray(path);
    else if (char === '{') this.scanInlineTable(path);
    else while (this.pos < this.src.length && !',]}#\r\n'.includes(this.src[this.pos] as string)) this.pos++;
  }

  private scanArray(path: readonly PathSegment[]): void {
    this.pos++;
    for (let index = 0; this.pos < this.src.length; index++) {
      this.skipBlank(true);
      if (this.src[this.pos] === ']') {
        this.pos++;
        return;
      }
      const before = this.pos;
      const element = [...path, index];
      this.record(this.values, element, this.pos);
      this.scanValue(element);
      this.skipBlank(true);
      if (this.src[this.pos] === ',') this.pos++;
      if (this.pos === before) this.pos++;
    }
  }

  private scanInlineTable(path: readonly PathSegment[]): void {
    this.pos++;
    while (this.pos < this.src.length) {
      this.skipBlank(true);
      if (this.src[this.pos] === '}') {
        this.pos++;
        return;
      }
      const before = this.pos;
      this.scanKeyValue(path);
      this.skipBlank(true);
      if (this.src[this.pos] === ',') this.pos++;
      if (this.pos === before) this.pos++;
    }
  }

  /** Skips a one-line string starting at `pos` and returns its text, quotes included. */
  private skipString(quote: string, escapes: boolean): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.src.length && this.src[this.pos] !== quote && this.src[this.pos] !== '\n') {
      this.pos += escapes && this.src[this.pos] === '\\' ? 2 : 1;
    }
    this.pos++;
    return this.src.slice(start, this.pos);
  }

  private skipMultilineString(delimiter: string, escapes: boolean): void {
    this.pos += 3;
    while (this.pos < this.src.length) {
      if (escapes && this.src[this.pos] === '\\') {
        this.pos += 2;
      } else if (this.src.startsWith(delimiter, this.pos)) {
        this.pos += 3;
        // Up to two quotes right before the closing delimiter belong to the string.
        for (let extra = 0; extra < 2 && this.src[this.pos] === delimiter[0]; extra++) this.pos++;
        return;
      } else {
        this.pos++;
      }
    }
  }

  private decodeBasicString(quoted: string): string {
    try {
      return JSON.parse(quoted) as string;
    } catch {
      return quoted.slice(1, -1);
    }
  }

  private skipSpaces(): void {
    while (this.src[this.pos] === ' ' || this.src[this.pos] === '\t') this.pos++;
  }

  /** Skips spaces, comments and (when `newlines`) line breaks. */
  private skipBlank(newlines: boolean): void {
    for (;;) {
      const char = this.src[this.pos];
      if (char === ' ' || char === '\t' || (newlines && (char === '\n' || char === '\r'))) this.pos++;
      else if (char === '#') while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      else return;
    }
  }

  private record(into: Map<string, SourcePosition>, path: readonly PathSegment[], offset: number): void {
    const dotted = formatKeyPath(path);
    if (!into.has(dotted)) into.set(dotted, this.positionOf(offset));
  }

  private positionOf(offset: number): SourcePosition {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.lineStarts[low] as number) + 1 };
  }
}

/** The source's lines, without their line breaks; `lines[n - 1]` is line n. */
export function sourceLines(source: string): string[] {
  return source.split(/\r?\n/);
}
