/**
 * The secrets the user keeps in git's config and in a `store` credential helper's file, for the
 * run's secret set (./secrets.ts).
 *
 * Every agent can read the repository's config: without the sandbox it is a file like any other,
 * and the sandbox binds the shared git dir read-only (git needs it), it does not hide it. A
 * password in a remote's URL or a token in an `http.extraHeader` would then be printed, recorded
 * and committed like any other text: the shapes of ./secrets.ts catch it only while it is spelled
 * as a URL or a header, never once an agent has cut it out. Known as a value, it is redacted
 * however it is spelled, and a file holding it is not committed (src/git/history/commit-filter.ts).
 *
 *   secretsInGitConfig        pure: `git config --list -z` -> the values below, and the files of
 *                             the `store` helpers it names
 *   secretsInCredentialStore  pure: a store file's text (`https://user:password@host` lines)
 *   readGitConfigSecrets      the thin reader: one `git config` call, then the store files
 *
 * What is taken from the config:
 * - in every key and value, each URL's userinfo: the password (`https://bob:PASSWORD@host`), and the
 *   user too when it looks like a token (`https://TOKEN@github.com`): remotes, push URLs,
 *   `url.<base>.insteadOf` (the URL is in the key), `http.<url>.*`, submodules, proxies;
 * - `http.extraHeader` and `http.<url>.extraHeader`: an Authorization (or Proxy-Authorization)
 *   header's credential, after `Basic`, `Bearer` or `token`, and a Basic's decoded password; the value
 *   of any other header whose name says it holds a secret (`PRIVATE-TOKEN`, `X-API-Key`, `Cookie`);
 * - variables named for a secret: `sendemail.smtpPass`, `*.password`, `*.token`, `hub.oauthtoken`;
 * - a `password=` written into an inline helper (`credential.helper = "!f() { echo password=...; }; f"`);
 * - the files of `store` helpers: `--file <path>`, or git's two defaults (~/.git-credentials and
 *   $XDG_CONFIG_HOME/git/credentials).
 * Each value in both spellings when they differ: as written (percent-encoded; git encodes more than
 * encodeURIComponent, which ./secrets.ts adds itself) and decoded. ./secrets.ts's collectSecrets
 * still holds each to its rules (8+ characters, not a common word).
 *
 * Not taken: what other helpers keep (`cache`, `osxkeychain`, `libsecret`, `manager`): only the
 * helper knows it, and asking it could open a prompt or a keychain dialog.
 */
import { stat, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { configListing } from '../../git/running/config-listing.js';
import { isSecretName, looksLikeToken, type FoundSecret } from './secrets.js';

export interface GitConfigPlaces {
  /** $HOME, where `~` and ~/.git-credentials are. */
  readonly home: string;
  /** $XDG_CONFIG_HOME, where git's second default store is (`git/credentials`). @default <home>/.config */
  readonly configHome?: string | undefined;
  /** The repository's top level: a relative `--file` is taken from there, where git runs the helper. */
  readonly repo: string;
}

export interface GitConfigFindings {
  readonly secrets: readonly FoundSecret[];
  /** The absolute paths of the files that `store` helpers keep, in the order named, once each. */
  readonly credentialStores: readonly string[];
}

/** The secrets of a `git config --list -z` listing (see the module doc), and the store files it names. */
export function secretsInGitConfig(listing: string, places: GitConfigPlaces): GitConfigFindings {
  const secrets: FoundSecret[] = [];
  const stores = new Set<string>();
  for (const entry of listing.split('\0')) {
    if (entry === '') continue;
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    const value = nl < 0 ? '' : entry.slice(nl + 1);
    const name = secretName(key);
    secrets.push(...userinfoSecrets(key, name), ...userinfoSecrets(value, name));
    const variable = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
    const section = key.slice(0, key.indexOf('.')).toLowerCase();
    if (section === 'http' && variable === 'extraheader') secrets.push(...headerSecrets(value, name));
    else if (SECRET_VARIABLE.test(variable) && !/askpass$/.test(variable)) secrets.push(...spellings(name, value.trim()));
    else if (section === 'credential' && variable === 'helper') {
      secrets.push(...inlineHelperSecrets(value, name));
      for (const file of storeFiles(value, places)) stores.add(file);
    }
  }
  return { secrets: unique(secrets), credentialStores: [...stores] };
}

/** The passwords (and token-like users) of a `store` helper's file, one URL a line; named `name`. */
export function secretsInCredentialStore(text: string, name: string): FoundSecret[] {
  return unique(userinfoSecrets(text, name));
}

export interface ReadGitConfigSecretsOptions {
  /** @default $HOME, else the account's home */
  readonly home?: string;
  /** @default $XDG_CONFIG_HOME */
  readonly configHome?: string | undefined;
  readonly signal?: AbortSignal;
}

/** Store files larger than this are not read: a credential store is a few lines. */
const MAX_STORE_BYTES = 1024 * 1024;

/**
 * The secrets in the config git reads for `repo` (every scope) and in the `store` helpers' files it
 * names that can be read. Never fails: a config git cannot read, or a store that is missing,
 * unreadable, too large or no file (a FIFO would block), holds nothing for the run.
 */
export async function readGitConfigSecrets(repo: string, options: ReadGitConfigSecretsOptions = {}): Promise<FoundSecret[]> {
  const home = options.home ?? process.env.HOME ?? homedir();
  const configHome = 'configHome' in options ? options.configHome : process.env.XDG_CONFIG_HOME;
  const listing = await configListing(repo, { signal: options.signal }).catch(() => '');
  const found = secretsInGitConfig(listing, { home, configHome: configHome || undefined, repo });
  const inStores = await Promise.all(
    found.credentialStores.map(async (file) => {
      const text = await readSmallFile(file);
      return text === undefined ? [] : secretsInCredentialStore(text, `git-credentials:${tildePath(file, home)}`);
    }),
  );
  return unique([...found.secrets, ...inStores.flat()]);
}

async function readSmallFile(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_STORE_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

function tildePath(file: string, home: string): string {
  return file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** Variables that hold a secret by their name: `sendemail.smtppass`, `github.token`, `hub.oauthtoken`, `*.password`. */
const SECRET_VARIABLE = /(pass|password|passwd|token|secret|apikey)$/;

/**
 * What stands for a value of `key` in redacted text: `git-config:remote.origin.url`. A subsection
 * that is a URL (`http.<url>.extraheader`, `url.<base>.insteadof`) is left out: it may hold the
 * very password, and the mark is written in clear. No comma: ./secrets.ts joins names with one.
 */
function secretName(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  const subsection = first < last ? key.slice(first + 1, last) : undefined;
  const shown = subsection !== undefined && /[:@/]/.test(subsection) ? `${key.slice(0, first)}.*${key.slice(last)}` : key;
  return `git-config:${shown.replace(/[,\s<>]/g, '_')}`;
}

/** `scheme://userinfo@`: the userinfo runs to the last `@` before the path (a password may hold one unencoded). */
const URL_USERINFO = /[A-Za-z][A-Za-z0-9+.-]*:\/\/([^\s/?#'"<>]*)@/g;

function userinfoSecrets(text: string, name: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  for (const match of text.matchAll(URL_USERINFO)) {
    const info = match[1] ?? '';
    const colon = info.indexOf(':');
    const user = colon < 0 ? info : info.slice(0, colon);
    if (colon >= 0) found.push(...spellings(name, info.slice(colon + 1)));
    if (looksLikeToken(percentDecoded(user))) found.push(...spellings(name, user));
  }
  return found;
}

const AUTHORIZATION = /^\s*(?:proxy-)?authorization\s*:\s*(?:(basic|bearer|token|digest|negotiate)\s+)?(.*?)\s*$/i;

/** The credential of an extra header's `Name: value` (see the module doc); nothing for a header that holds none. */
function headerSecrets(header: string, name: string): FoundSecret[] {
  const auth = AUTHORIZATION.exec(header);
  if (auth) {
    const credential = auth[2] ?? '';
    const found = spellings(name, credential);
    if (auth[1]?.toLowerCase() === 'basic') found.push(...basicSecrets(credential, name));
    return found;
  }
  const colon = header.indexOf(':');
  if (colon <= 0 || !isSecretName(header.slice(0, colon).trim())) return [];
  return spellings(name, header.slice(colon + 1).trim());
}

/** A Basic credential is base64 of `user:password`: the password, and the user when it looks like a token. */
function basicSecrets(credential: string, name: string): FoundSecret[] {
  if (!/^[A-Za-z0-9+/]+=*$/.test(credential)) return [];
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || !/^[\x20-\x7e]+$/.test(decoded)) return [];
  const user = decoded.slice(0, colon);
  return [...spellings(name, decoded.slice(colon + 1)), ...(looksLikeToken(user) ? spellings(name, user) : [])];
}

/** `password=VALUE` in a shell helper (`!f() { echo password=...; }; f`); not a variable's name (`$TOKEN`). */
function inlineHelperSecrets(helper: string, name: string): FoundSecret[] {
  if (!helper.trimStart().startsWith('!')) return [];
  return [...helper.matchAll(/\bpassword=([^\s"';`$][^\s"';`]*)/g)].flatMap((match) => spellings(name, match[1] ?? ''));
}

/**
 * The files a helper that is git's `store` keeps: `store`, `store --file <path>` (or `--file=`),
 * `git-credential-store ...` by its path, or `!git credential-store ...`. git's two defaults when no
 * `--file` is given. Any other helper keeps none (see the module doc).
 */
function storeFiles(helper: string, places: GitConfigPlaces): string[] {
  const words = shellWords(helper.trim().replace(/^!\s*/, ''));
  const at = words.findIndex(
    (word, i) => (i === 0 && word === 'store') || basename(word) === 'git-credential-store' || (word === 'credential-store' && words[i - 1] === 'git'),
  );
  if (at < 0) return [];
  const options = words.slice(at + 1);
  const files: string[] = [];
  options.forEach((word, i) => {
    if (word.startsWith('--file=')) files.push(word.slice('--file='.length));
    else if (word === '--file' && options[i + 1] !== undefined) files.push(options[i + 1]!);
  });
  if (files.length === 0) return [join(places.home, '.git-credentials'), join(places.configHome ?? join(places.home, '.config'), 'git', 'credentials')];
  return files.map((file) => (file === '~' || file.startsWith('~/') ? join(places.home, file.slice(1)) : isAbsolute(file) ? file : resolve(places.repo, file)));
}

/** Words as a POSIX shell splits a helper's command (git runs it through `sh -c`): quotes and backslashes. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]!;
      else word += c;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word ??= '';
      if (c === '"' || c === "'") quote = c;
      else if (c === '\\' && i + 1 < text.length) word += text[++i]!;
      else word += c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The value as written and, when it differs, percent-decoded (a URL's userinfo is stored encoded). */
function spellings(name: string, raw: string): FoundSecret[] {
  if (raw === '') return [];
  const decoded = percentDecoded(raw);
  return decoded === raw
    ? [{ name, value: raw }]
    : [
        { name, value: raw },
        { name, value: decoded },
      ];
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function unique(found: readonly FoundSecret[]): FoundSecret[] {
  const seen = new Set<string>();
  return found.filter((secret) => {
    const key = `${secret.name}\0${secret.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
