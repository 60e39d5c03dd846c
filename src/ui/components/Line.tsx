import { Box, Text } from 'ink';
import { cut, displayWidth } from '../format/text.js';
import type { TextStyle } from '../theme.js';

export interface Segment {
  readonly text: string;
  readonly style?: TextStyle;
  /**
   * Never merged with its neighbours: for a value that changes by itself (a clock, a
   * spinner), which then stays a short text that repeats across rows and frames.
   */
  readonly alone?: boolean;
}

/**
 * Neighbours with the same style token, and unstyled text (a column gap) after anything,
 * become one segment: fewer nodes to lay out on every frame.
 */
function mergeSegments(segments: readonly Segment[]): Segment[] {
  const merged: Segment[] = [];
  for (const segment of segments) {
    const previous = merged[merged.length - 1];
    const joins = previous && !segment.alone && !previous.alone && (segment.style === undefined || segment.style === previous.style);
    if (previous && joins) merged[merged.length - 1] = { text: previous.text + segment.text, style: previous.style };
    else merged.push(segment);
  }
  return merged;
}

/**
 * The segments that fit in `width` columns, the one that crosses the edge cut with "…".
 * Cutting here, not in Ink, matters: Ink would shrink every text node of the line a little
 * (and a separator or an arrow would vanish from the middle), not just the end.
 */
function clipSegments(segments: readonly Segment[], width: number): Segment[] {
  const kept: Segment[] = [];
  let used = 0;
  for (const segment of segments) {
    const w = displayWidth(segment.text);
    if (used + w <= width) {
      kept.push(segment);
      used += w;
      continue;
    }
    if (width - used > 0) kept.push({ ...segment, text: cut(segment.text, width - used) });
    break;
  }
  return kept;
}

const NON_ASCII_RUN = /[^\u0020-\u007e]+/g;

/**
 * Ink measures every text node on every frame with string-width, which is quick for
 * printable ASCII and slow (grapheme segmentation, an emoji test per character) for a string
 * with any other character in it. A long text with one "…" or "·" is split so that the
 * long part stays ASCII.
 */
function splitForMeasuring(segment: Segment): Segment[] {
  if (segment.text.length <= 12 || !/[^\u0020-\u007e]/.test(segment.text)) return [segment];
  const parts: Segment[] = [];
  let at = 0;
  for (const match of segment.text.matchAll(NON_ASCII_RUN)) {
    if (match.index > at) parts.push({ ...segment, text: segment.text.slice(at, match.index) });
    parts.push({ ...segment, text: match[0] });
    at = match.index + match[0].length;
  }
  if (at < segment.text.length) parts.push({ ...segment, text: segment.text.slice(at) });
  return parts;
}

/**
 * One terminal line of styled segments, exactly one row high: whatever does not fit is cut,
 * never wrapped, so a long value can not push the rows below it down.
 *
 * Each segment is its own text node rather than one nested <Text> per line: Ink measures
 * every distinct text it lays out with string-width (slow on any non-ASCII character, and
 * remembered forever in an unbounded cache), so a spinner frame or a clock that changes
 * should not make the whole line a new string.
 */
export function Line({ segments, width }: { readonly segments: readonly Segment[]; readonly width: number }) {
  const parts = mergeSegments(clipSegments(segments, width)).flatMap(splitForMeasuring);
  return (
    <Box width={width} height={1} flexShrink={0}>
      {parts.map((segment, i) => (
        <Text key={i} wrap="truncate-end" {...segment.style}>
          {segment.text}
        </Text>
      ))}
    </Box>
  );
}
