/**
 * The paths in the user's HOME that the environment tells a program to load code from
 * (`PYTHONPATH=~/lib`, `NODE_OPTIONS=--require ~/.config/node/preload.cjs`, `JAVA_HOME` of an SDK
 * manager): the sandbox hides the HOME, so a program started there with that environment would
 * fail to find them. They are bound back read-only (./agent-sandbox.ts), as the PATH folders are.
 *
 * Only variables that name code or a toolchain, never one that names a key or a login
 * (`KUBECONFIG`, `GOOGLE_APPLICATION_CREDENTIALS`, `AWS_SHARED_CREDENTIALS_FILE`: not listed); and
 * never the HOME itself, a folder that holds it, or a path in or around the HOME's folders of keys
 * and logins (`~/.ssh`, `~/.aws`, ...), whatever a variable says.
 */
import type { Env } from '../../env.js';
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInside } from '../../process/sandbox.js';

/** Lists of paths (`:`-separated) or single folders a language runtime or its tools load code from. */
const CODE_PATH_VARS = [
  'PYTHONPATH',
  'PYTHONHOME',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'NODE_PATH',
  'PERL5LIB',
  'RUBYLIB',
  'GEM_HOME',
  'GEM_PATH',
  'CLASSPATH',
  'JAVA_HOME',
  'GOROOT',
  'LD_LIBRARY_PATH',
] as const;

/** NODE_OPTIONS flags whose value is a file node loads. */
const NODE_LOAD_FLAGS = ['--require', '-r', '--import', '--loader', '--experimental-loader'];

/** A HOME's folders and files of keys and logins: never bound back, nor a folder that holds one. */
const SECRET_PLACES = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.config/op',
  '.config/google-chrome',
  '.config/chromium',
  '.mozilla',
  '.local/share/keyrings',
  '.password-store',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.terraform.d',
  '.cargo/credentials.toml',
  '.codex',
  '.claude',
  '.gemini',
];

function nodeOptionPaths(value: string): string[] {
  const words = value.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  words.forEach((word, i) => {
    const eq = word.indexOf('=');
    const flag = eq > 0 ? word.slice(0, eq) : word;
    if (!NODE_LOAD_FLAGS.includes(flag)) return;
    const given = eq > 0 ? word.slice(eq + 1) : words[i + 1];
    if (given === undefined) return;
    const unquoted = given.replace(/^["']|["']$/g, '');
    try {
      out.push(unquoted.startsWith('file:') ? fileURLToPath(unquoted) : unquoted);
    } catch {
      // not a file URL node could load either
    }
  });
  return out;
}

/** The existing absolute paths inside `userHome` that `env`'s code variables name, safe to show read-only. */
export function envCodePaths(env: Env, userHome: string): string[] {
  if (userHome === '/' || userHome === '') return [];
  const named = [...CODE_PATH_VARS.flatMap((name) => (env[name] ?? '').split(':')), ...nodeOptionPaths(env.NODE_OPTIONS ?? '')];
  const secrets = SECRET_PLACES.map((place) => join(userHome, place));
  const safe = (path: string): boolean =>
    isAbsolute(path) &&
    isInside(path, userHome) &&
    path !== userHome &&
    !secrets.some((secret) => isInside(path, secret) || isInside(secret, path)) &&
    existsSync(path);
  return [
    ...new Set(
      named
        .filter(Boolean)
        .map((path) => resolve(path))
        .filter(safe),
    ),
  ];
}
