/**
 * The run's secrets, and the one redactor every record goes through.
 *
 * An agent sees bestof's whole environment (API keys, `GITHUB_TOKEN`) and the spec's `env`, and
 * may print any of it. What it prints lands in events, state.json, the reports, the plain output
 * and the raw logs; what it writes may be committed. So the run knows its secret values up front
 * (`collectSecrets`), and `redact` replaces each occurrence by `<redacted:NAME>`. Text is also
 * redacted by shape, whatever the environment holds: auth headers, credentials in URLs, private
 * key blocks and tokens with a well-known prefix (`SHAPES` below).
 *
 * Which values are secrets:
 * - environment variables whose name looks secret (`isSecretName`): a `_`-separated word of the
 *   name holds TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, COOKIE, PRIVATE or APIKEY,
 *   or ends in KEY (`OPENAI_API_KEY`, `AWS_ACCESS_KEY_ID`), or is/contains AUTH without being
 *   AUTHOR (`GIT_AUTHOR_NAME` is printed by every commit) or AUTHORITY (`XAUTHORITY`, a path), or
 *   is SESSION, PAT or PWD. Words rather than substrings: `*KEY*` would take `XKB_KEYMAP`, and
 *   `*AUTH*` the author's name and email, which then could never be committed. The desktop's own
 *   session variables (`XDG_SESSION_*`, `DBUS_SESSION_BUS_ADDRESS`) and `PWD`/`OLDPWD` are not.
 * - values of the spec's per-agent `env` tables whose name looks secret, or whose value looks like
 *   a token (`looksLikeToken`: 16+ characters of a token's alphabet, letters and digits). Not every
 *   value: `NODE_ENV = "production"` or a `PATH` there would make every file that says
 *   "production" uncommittable and every path in the output unreadable.
 * - the passwords and tokens the user keeps in the repository's git config (a remote's
 *   `https://user:password@host`, an `http.extraHeader`) and in a `store` credential helper's file,
 *   which every agent can read: found by ./git-config-secrets.ts as the run starts.
 * - either way, not a value under 8 characters, a common word (`true`, `password`, `localhost`)
 *   or an absolute path that exists (`SSH_AUTH_SOCK`, `GOOGLE_APPLICATION_CREDENTIALS`): a path
 *   names a secret, it is not one, and paths are everywhere in the output.
 * Each value is also matched in its JSON-escaped and URL-encoded spellings, when they differ.
 *
 * Cost: the values are found in one pass (Wu-Manber, `createLiteralMatcher`), which jumps over
 * most of a text that holds none, and each shape is one regular expression. Measured on this
 * machine (2 shared cores under load, Node 20), 1 MB with 50 secret values: 2.5 ms per `redact`
 * with no secret in the text, 4-6 ms with 1,000 secrets in it, 1.5 ms for 10,000 one-line texts;
 * 50 `replaceAll`s of the values alone on the same MB: 3-11 ms, one regular expression of the 50
 * values: 8-10 ms.
 */
import type { Env } from '../../env.js';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** What stands for a secret in redacted text: `<redacted:OPENAI_API_KEY>`; a shape's is `<redacted>`. */
export function redactionMark(name: string | undefined): string {
  return name === undefined ? '<redacted>' : `<redacted:${name}>`;
}

export interface SecretSet {
  /** The names of the secret values (never the values). */
  readonly names: readonly string[];
  /** How many secret values the set holds (shapes aside). */
  readonly size: number;
  /** `text` with every secret value and every secret shape replaced; the same string when there was none. */
  redact(text: string): string;
  /** `value` with every string in it redacted, deeply (plain objects and arrays); the same object when nothing changed. */
  redactDeep<T>(value: T): T;
  /** The name of the first secret value in `text` (values only, not shapes), or undefined. */
  findValue(text: string): string | undefined;
  /** The length of the longest spelling of a value: a window that overlaps chunks by this much misses none. */
  readonly longestValue: number;
  /** A redactor for a stream (a raw log): what it returns is safe to write, and secrets cut across chunks are still found. */
  createStreamRedactor(): StreamRedactor;
}

export interface StreamRedactor {
  /** The redacted text that can be written now; the end of the chunk may be held back until the next one. */
  push(chunk: string | Buffer): string;
  /** The rest, redacted, at the end of the stream. */
  end(): string;
}

/** A secret value found in a file or a config, by what names it in redacted text (`git-config:remote.origin.url`). */
export interface FoundSecret {
  readonly name: string;
  readonly value: string;
}

export interface CollectSecretsOptions {
  /** bestof's environment, which every agent inherits. @default process.env */
  readonly environment?: Env;
  /** The spec's `env` table of every agent (each candidate's, the reviewer's). @default [] */
  readonly agentEnvs?: readonly Readonly<Record<string, string>>[];
  /** The passwords and tokens of the repository's git config and credential store (./git-config-secrets.ts). @default [] */
  readonly gitConfig?: readonly FoundSecret[];
}

/** The run's secret set: see the module doc for which values are in it. */
export function collectSecrets(options: CollectSecretsOptions = {}): SecretSet {
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(options.environment ?? process.env)) {
    if (value !== undefined && isSecretName(name) && isSecretValue(value)) entries.push([name, value]);
  }
  for (const env of options.agentEnvs ?? []) {
    for (const [name, value] of Object.entries(env)) {
      if ((isSecretName(name) || looksLikeToken(value)) && isSecretValue(value)) entries.push([name, value]);
    }
  }
  for (const { name, value } of options.gitConfig ?? []) if (isSecretValue(value)) entries.push([name, value]);
  return createSecretSet(entries);
}

const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|PRIVATE|APIKEY|KEY$|^KEYS$|AUTH|^SESSION|SESSION$|^PAT$|^PWD$/;
/** Words that hold a secret word by accident. */
const NOT_SECRET_WORD = /^(AUTHOR|AUTHORS|COAUTHOR|AUTHORITY|XAUTHORITY|AUTHORED)$/;
/** Whole names that match by their words but hold no secret (BESTOF_RUN_KEY names a run's processes; it guards nothing). */
const NOT_SECRET_NAME = /^(PWD|OLDPWD|XDG_SESSION_\w+|DBUS_SESSION_BUS_ADDRESS|SESSION_MANAGER|DESKTOP_SESSION|GIT_ASKPASS|SSH_ASKPASS|BESTOF_\w+)$/;

/** Whether an environment variable's name says it holds a secret (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `PGPASSWORD`). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRET_NAME.test(upper)) return false;
  return upper.split(/[_\-.]+/).some((word) => word !== '' && !NOT_SECRET_WORD.test(word) && SECRET_WORD.test(word));
}

/** Values that appear everywhere: redacting them would garble the output and refuse ordinary files. */
const COMMON_VALUES = new Set([
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'null',
  'none',
  'undefined',
  'enabled',
  'disabled',
  'default',
  'password',
  'postgres',
  'changeme',
  'localhost',
  'secret',
  'example',
]);
const MIN_SECRET_LENGTH = 8;

/** Whether a value of a secret-named variable is worth redacting (see the module doc). */
export function isSecretValue(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH || COMMON_VALUES.has(trimmed.toLowerCase())) return false;
  if (isAbsolute(trimmed) && !trimmed.includes('\n') && existsQuietly(trimmed)) return false;
  return true;
}

function existsQuietly(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A random-looking credential: 16+ characters of a token's alphabet, with letters and digits, not a path. */
export function looksLikeToken(value: string): boolean {
  return /^[A-Za-z0-9+/=_.~-]{16,}$/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value) && !/^[../~]/.test(value);
}

/** `[Aa][Uu]...`: a case-insensitive word inside a case-sensitive expression (the values must stay case-sensitive). */
function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);
}

/**
 * Secrets by their shape. Each has one capture group, the secret part, which ends where the match
 * ends; what comes before it (the header's name, `://`) is kept. Names and prefixes are anchored at
 * a word start (`risk-assessment-2024-...` holds `sk-` but is no key), and a token needs a token's
 * length and alphabet (`Authorization: Bearer $TOKEN` in a script is left as it is).
 */
const TOKEN_BODY = '[A-Za-z0-9._~+/=-]';
const SHAPES: readonly string[] = [
  // Authorization: Bearer x / Basic x / Token x (also as `Authorization=...` and in Proxy-Authorization).
  `(?<![\\w-])(?:${anyCase('proxy-')})?${anyCase('authorization')}["']?[ \\t]*[:=][ \\t]*["']?(?:${anyCase('bearer')}|${anyCase('basic')}|${anyCase('token')}|${anyCase('digest')})[ \\t]+(${TOKEN_BODY}{6,})`,
  // x-api-key: x, and the other header forms of an API key.
  `(?<![\\w-])(?:${anyCase('x-api-key')}|${anyCase('api-key')}|${anyCase('x-goog-api-key')}|${anyCase('x-auth-token')}|${anyCase('private-token')})["']?[ \\t]*[:=][ \\t]*["']?(${TOKEN_BODY}{6,})`,
  // https://user:pass@host -> https://<redacted>@host (a user alone, as in ssh://git@host, is no secret).
  `://([^\\s/?#@:'"<>]+:[^\\s/?#@'"<>]+)(?=@)`,
  // Well-known token prefixes, only with a token's length and alphabet.
  `(?<![A-Za-z0-9_-])(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|sk-ant-[A-Za-z0-9_-]{20,}|sk-(?:proj-)?(?=[A-Za-z0-9_-]*\\d)[A-Za-z0-9_-]{20,}|xox[bpas]-[A-Za-z0-9-]{10,}|A[KS]IA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})`,
  // The body of a PEM private key.
  `-----BEGIN [A-Z ]*PRIVATE KEY-----([\\s\\S]*?)(?=-----END [A-Z ]*PRIVATE KEY-----)`,
];

const SHAPE_PATTERNS: readonly RegExp[] = SHAPES.map((source) => new RegExp(source, 'g'));

interface Interval {
  start: number;
  end: number;
  name: string | undefined;
}

/** A secret set of these (name, value) pairs; values that fail no test here are taken as given. Shapes are always on. */
export function createSecretSet(entries: Iterable<readonly [name: string, value: string]>): SecretSet {
  // One name per spelling; the first name given for a value wins.
  const nameOf = new Map<string, string>();
  for (const [name, value] of entries) {
    if (value === '') continue;
    for (const spelling of spellingsOf(value)) if (!nameOf.has(spelling)) nameOf.set(spelling, name);
  }
  const spellings = [...nameOf.keys()].sort((a, b) => b.length - a.length);
  const values = createLiteralMatcher(spellings);
  const names = [...new Set(nameOf.values())];

  /**
   * Every secret's span in `text`, merged where they overlap or touch. Every start of every value
   * is found, also inside another value (two overlapping secrets), so no piece of one is left in
   * clear. The shapes are one expression each: joined, V8 loses the first-character filter of each
   * and the union costs several times the sum of its parts (6 ms against 1.2 ms on 1 MB).
   */
  const intervals = (text: string): Interval[] => {
    const found: Interval[] = [];
    values?.(text, (start, spelling) => {
      found.push({ start, end: start + spelling.length, name: nameOf.get(spelling) });
    });
    for (const shape of SHAPE_PATTERNS) {
      shape.lastIndex = 0;
      for (let match = shape.exec(text); match; match = shape.exec(text)) {
        const end = match.index + match[0].length;
        const secret = match[1] ?? '';
        if (secret !== '') found.push({ start: end - secret.length, end, name: undefined });
        if (match[0].length === 0) shape.lastIndex++;
      }
    }
    return mergeIntervals(found);
  };

  const redact = (text: string): string => {
    if (text.length === 0) return text;
    const spans = intervals(text);
    return spans.length === 0 ? text : applyIntervals(text, spans);
  };

  const set: SecretSet = {
    names,
    size: names.length,
    longestValue: spellings[0]?.length ?? 0,
    redact,
    redactDeep: <T>(value: T): T => redactDeep(value, redact),
    findValue(text) {
      let name: string | undefined;
      values?.(text, (_start, spelling) => {
        name = nameOf.get(spelling);
        return false;
      });
      return name;
    },
    createStreamRedactor: () => createStreamRedactor(intervals, set.longestValue),
  };
  return set;
}

/** Calls `onMatch` for every occurrence of a literal in `text` (stop by returning false). */
// biome-ignore lint/suspicious/noConfusingVoidType: a matcher's callback may return nothing (go on) or true (stop)
type LiteralMatcher = (text: string, onMatch: (start: number, literal: string) => boolean | void) => void;

/**
 * Wu-Manber over 2-character blocks: one pass over the text that jumps ahead by up to the shortest
 * literal's length minus one, so a text with no secret in it is mostly skipped, not read. Every
 * start position that could begin a literal is checked, overlapping occurrences included; at each,
 * the longest literal that matches is reported. Blocks are hashed to 16 bits (a collision only
 * shortens a jump). Literals under 2 characters are ignored (collectSecrets keeps 8 and more).
 * Measured against one regular expression of the 50 literals: 0.3 ms against 8-10 ms per MB.
 */
function createLiteralMatcher(literals: readonly string[]): LiteralMatcher | undefined {
  const sorted = literals.filter((literal) => literal.length >= 2).sort((a, b) => b.length - a.length);
  const shortest = sorted.at(-1)?.length;
  if (shortest === undefined) return undefined;
  const block = (text: string, at: number): number => ((text.charCodeAt(at - 1) & 255) << 8) | (text.charCodeAt(at) & 255);
  const shifts = new Uint8Array(65536).fill(Math.min(255, shortest - 1));
  const endingIn = new Map<number, string[]>();
  for (const literal of sorted) {
    for (let at = 1; at < shortest; at++) {
      const key = block(literal, at);
      shifts[key] = Math.min(shifts[key]!, shortest - 1 - at);
    }
    const key = block(literal, shortest - 1);
    const bucket = endingIn.get(key);
    if (bucket) bucket.push(literal);
    else endingIn.set(key, [literal]);
  }
  return (text, onMatch) => {
    for (let at = shortest - 1; at < text.length; ) {
      const key = block(text, at);
      const shift = shifts[key]!;
      if (shift > 0) {
        at += shift;
        continue;
      }
      const start = at - shortest + 1;
      const literal = endingIn.get(key)?.find((candidate) => text.startsWith(candidate, start));
      if (literal !== undefined && onMatch(start, literal) === false) return;
      at += 1;
    }
  };
}

/** A set with no values: shapes only (tests, and texts of no run). */
export const SHAPES_ONLY: SecretSet = createSecretSet([]);

/** The value as written (and trimmed: `.env` files and `echo` keep no trailing newline), and as JSON and a URL would spell it. */
function spellingsOf(value: string): string[] {
  const spellings = new Set([value, value.trim(), JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
  return [...spellings].filter((spelling) => spelling.length > 0);
}

function mergeIntervals(found: Interval[]): Interval[] {
  if (found.length <= 1) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Interval[] = [{ ...found[0]! }];
  for (const next of found.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (next.start <= last.end) {
      // A secret wholly inside another one is that one's; one that runs past it adds its name.
      if (next.end > last.end || last.name === undefined) {
        if (last.name === undefined) last.name = next.name;
        else if (next.name !== undefined && !last.name.split(',').includes(next.name)) last.name = `${last.name},${next.name}`;
      }
      if (next.end > last.end) last.end = next.end;
    } else {
      merged.push({ ...next });
    }
  }
  return merged;
}

function applyIntervals(text: string, spans: readonly Interval[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + redactionMark(span.name);
    at = span.end;
  }
  return out + text.slice(at);
}

function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const redacted = redactDeep(item, redact);
      if (redacted !== item) changed = true;
      return redacted;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const redacted = redactDeep(item, redact);
      if (redacted !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = redacted;
    }
    return (out ?? value) as T;
  }
  return value;
}

/** A line longer than this is written out in pieces even before its end arrives. */
const STREAM_HOLD_LIMIT = 64 * 1024;
/** What a piece of a long line keeps back at least: a JWT or a PEM line fits. */
const STREAM_MIN_OVERLAP = 4096;

/**
 * Redacts a stream: it writes up to the last line break (a secret never spans lines, but may span
 * chunks) and holds the rest back. A line longer than STREAM_HOLD_LIMIT is written in pieces, each
 * ending at least `overlap` characters before the end of what arrived, and never inside a secret.
 */
/** Where a PEM private key block starts in `text` with its END line not there yet, if one does. */
function openPrivateKeyBlock(text: string): number | undefined {
  const begin = text.lastIndexOf('-----BEGIN ');
  if (begin < 0 || !/^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text.slice(begin, begin + 80))) return undefined;
  return /-----END [A-Z ]*PRIVATE KEY-----/.test(text.slice(begin)) ? undefined : text.lastIndexOf('\n', begin) + 1;
}

function createStreamRedactor(intervals: (text: string) => Interval[], longestValue: number): StreamRedactor {
  const decoder = new StringDecoder('utf8');
  const overlap = Math.max(longestValue, STREAM_MIN_OVERLAP);
  let pending = '';
  const take = (cut: number): string => {
    const head = pending.slice(0, cut);
    pending = pending.slice(cut);
    const spans = intervals(head);
    return spans.length === 0 ? head : applyIntervals(head, spans);
  };
  return {
    push(chunk) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      // A private key block spans lines: hold back from its BEGIN line until its END arrives.
      const keyStart = openPrivateKeyBlock(pending);
      const lineEnd = keyStart ?? pending.lastIndexOf('\n') + 1;
      if (lineEnd > 0 && (keyStart === undefined || pending.length <= STREAM_HOLD_LIMIT)) return take(lineEnd);
      if (pending.length <= STREAM_HOLD_LIMIT) return '';
      let cut = pending.length - overlap;
      for (const span of intervals(pending)) if (span.start < cut && span.end > cut) cut = span.start;
      return take(cut);
    },
    end() {
      pending += decoder.end();
      return take(pending.length);
    },
  };
}
