/**
 * Helpers shared by the parsers of the agent CLIs' JSON-lines streams. A stream is parsed
 * line by line as it arrives; a line that is not a JSON object (a warning, a progress bar,
 * a half-written line) is skipped, never fatal, and so is an event type we do not know.
 */

export type JsonObject = Readonly<Record<string, unknown>>;

/** The line as a JSON object, or undefined for anything else (blank, not JSON, an array, a number). */
export function parseJsonObject(line: string): JsonObject | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function obj(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

export function arr(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** One line of at most `max` characters, for activity lines and messages. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The arguments of a tool call shown in one short line: the command, the path or the pattern. */
export function summarizeToolInput(input: unknown): string {
  const fields = obj(input);
  for (const key of ['command', 'cmd', 'file_path', 'absolute_path', 'path', 'notebook_path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const value = fields[key];
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value, 160);
    if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return oneLine(value.join(' '), 160);
  }
  const json = JSON.stringify(fields);
  return json === '{}' ? '' : oneLine(json, 160);
}

/**
 * The last JSON object printed on stderr as a pretty-printed block (Gemini's `{ "error": … }`):
 * a line that is `{` (optionally after a `[ERROR] ` prefix) up to the next line that is `}`.
 * Stack traces and warnings around it are skipped.
 */
export function lastJsonBlock(text: string): JsonObject | undefined {
  const lines = text.split(/\r?\n/);
  let found: JsonObject | undefined;
  for (let start = 0; start < lines.length; start++) {
    const first = lines[start]!.replace(/^\[ERROR\]\s*/, '');
    if (first.trim() !== '{') continue;
    for (let end = start + 1; end < lines.length; end++) {
      if (lines[end] !== '}') continue;
      const parsed = parseJsonObject(['{', ...lines.slice(start + 1, end), '}'].join('\n'));
      if (parsed) found = parsed;
      start = end;
      break;
    }
  }
  return found;
}

/** The last non-empty line of a text, for messages about a process that failed. */
export function lastLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines[lines.length - 1] ?? '';
}
