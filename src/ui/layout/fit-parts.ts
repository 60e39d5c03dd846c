/**
 * One line of parts for a narrow terminal: a header, the footer's keys. Rather than cut the
 * line at the right edge (which loses whatever comes last, however much it matters), the least
 * important parts are shortened, then left out, until the line fits; the parts that must stay
 * (the quit and help keys, a run's winner) never are.
 */
import { displayWidth, wrapText } from '../format/text.js';

export interface Part<Style> {
  readonly text: string;
  readonly style?: Style;
  /** Put before the part unless it is the first one shown (" · ", two spaces between keys). */
  readonly sep?: string;
  /** A shorter text, tried before the part is left out. */
  readonly short?: string;
  /**
   * The order parts go in: the highest first. A part with none always stays (a line that is
   * still too wide is cut at its end like any other).
   */
  readonly drop?: number;
}

export interface FittedSegment<Style> {
  readonly text: string;
  readonly style?: Style;
}

function lineWidth<Style>(parts: readonly Part<Style>[]): number {
  return parts.reduce((sum, part, i) => sum + displayWidth(part.text) + (i > 0 ? displayWidth(part.sep ?? '') : 0), 0);
}

/** The parts, shortened or left out in their `drop` order until they fit in `width` columns, in their own order. */
export function fitParts<Style>(parts: readonly Part<Style>[], width: number): Part<Style>[] {
  let kept = parts.filter((part) => part.text !== '');
  const order = kept.filter((part) => part.drop !== undefined).sort((a, b) => (b.drop ?? 0) - (a.drop ?? 0));
  for (const part of order) {
    if (lineWidth(kept) <= width) break;
    const shorter = part.short === undefined ? undefined : { ...part, text: part.short };
    kept = kept.flatMap((p) => (p !== part ? [p] : shorter && lineWidth(kept.map((q) => (q === part ? shorter : q))) <= width ? [shorter] : []));
  }
  return kept;
}

/** fitParts as segments for a line: separators unstyled (or in `sepStyle`), the first one left out. */
export function fitSegments<Style>(parts: readonly Part<Style>[], width: number, sepStyle?: Style): FittedSegment<Style>[] {
  return fitParts(parts, width).flatMap((part, i) => {
    const text: FittedSegment<Style> = part.style === undefined ? { text: part.text } : { text: part.text, style: part.style };
    if (i === 0 || !part.sep) return [text];
    return [sepStyle === undefined ? { text: part.sep } : { text: part.sep, style: sepStyle }, text];
  });
}

/**
 * Styled segments over as many lines of `width` columns as they need, broken between segments
 * (a segment's leading spaces are left out at the start of a line, where they would only
 * indent it); a segment wider than a line is wrapped between its words. Lines after the first
 * start with `indent`.
 */
export function wrapSegments<S extends FittedSegment<unknown>>(segments: readonly S[], width: number, indent = ''): S[][] {
  const lines: S[][] = [];
  let line: S[] = [];
  let used = 0;
  const start = (): void => {
    if (line.length > 0) lines.push(line);
    line = indent === '' ? [] : [{ text: indent } as S];
    used = displayWidth(indent);
  };
  for (const segment of segments) {
    const w = displayWidth(segment.text);
    if (used + w <= width) {
      line.push(segment);
      used += w;
      continue;
    }
    const text = segment.text.trimStart();
    if (used > displayWidth(indent)) start();
    if (used + displayWidth(text) <= width) {
      line.push({ ...segment, text });
      used += displayWidth(text);
      continue;
    }
    const pieces = wrapText(text, Math.max(1, width - displayWidth(indent)), { first: Math.max(1, width - used) });
    pieces.forEach((piece, i) => {
      if (i > 0) start();
      line.push({ ...segment, text: piece });
      used += displayWidth(piece);
    });
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines;
}
