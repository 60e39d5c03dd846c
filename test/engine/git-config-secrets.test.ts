/**
 * The passwords and tokens of git's config and of a `store` credential helper's file
 * (src/engine/sandbox/git-config-secrets.ts): the pure parsers as tables, then the reader on a real
 * repository whose config names a store file, and the run's secret set built from them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readGitConfigSecrets, secretsInCredentialStore, secretsInGitConfig } from '../../src/engine/sandbox/git-config-secrets.js';
import { collectSecrets } from '../../src/engine/sandbox/secrets.js';

const PLACES = { home: '/home/u', repo: '/work/repo' };

/** A `git config --list -z` listing of these entries (a key alone has no value: `[section] key`). */
function listing(...entries: readonly (readonly [key: string, value?: string])[]): string {
  return entries.map(([key, value]) => (value === undefined ? `${key}\0` : `${key}\n${value}\0`)).join('');
}

function valuesIn(text: string): string[] {
  return secretsInGitConfig(text, PLACES).secrets.map((secret) => secret.value);
}

const basic = (credentials: string): string => Buffer.from(credentials).toString('base64');

describe('secretsInGitConfig', () => {
  it.each<[string, string, readonly string[]]>([
    ['a remote URL with a password', listing(['remote.origin.url', 'https://bob:s3cr3t-pa55@example.invalid/x.git']), ['s3cr3t-pa55']],
    [
      'a URL-encoded password: as written and decoded',
      listing(['remote.origin.url', 'https://bob:p%40ss%21w0rd%2Fx@host/x.git']),
      ['p%40ss%21w0rd%2Fx', 'p@ss!w0rd/x'],
    ],
    ['a password with an unencoded @ (the userinfo runs to the last one)', listing(['remote.origin.pushurl', 'https://bob:p@ssw0rd@host/x.git']), ['p@ssw0rd']],
    ['a token as the user', listing(['remote.origin.url', 'https://ghp_Zx81kQ0pLmN3vB7rT2aaQ9@github.com/o/r.git']), ['ghp_Zx81kQ0pLmN3vB7rT2aaQ9']],
    [
      'a token as the user and a placeholder password',
      listing(['remote.origin.url', 'https://Zx81kQ0pLmN3vB7rT2aa:x-oauth-basic@github.com/o/r.git']),
      ['x-oauth-basic', 'Zx81kQ0pLmN3vB7rT2aa'],
    ],
    ['an insteadOf URL, in the key', listing(['url.https://ci:1nsteadOf-t0ken@git.example.com/.insteadof', 'https://git.example.com/']), ['1nsteadOf-t0ken']],
    ['a proxy URL', listing(['http.proxy', 'http://me:pr0xy-pa55@proxy.local:3128']), ['pr0xy-pa55']],
    ['an extraHeader with a Bearer token', listing(['http.extraheader', 'Authorization: Bearer eyJhbGciOi.bearer-t0ken']), ['eyJhbGciOi.bearer-t0ken']],
    [
      'an extraHeader with Basic base64: the base64 and the decoded password',
      listing(['http.https://example.com/.extraheader', `AUTHORIZATION: basic ${basic('x-access-token:ba51c-pa55word')}`]),
      [basic('x-access-token:ba51c-pa55word'), 'ba51c-pa55word'],
    ],
    ['an extraHeader with `token`', listing(['http.extraheader', 'Authorization: token gh-t0ken-123456']), ['gh-t0ken-123456']],
    ['an extraHeader whose name holds a secret', listing(['http.extraheader', 'PRIVATE-TOKEN: glpat-0123456789abcdef']), ['glpat-0123456789abcdef']],
    [
      'a variable named for a secret',
      listing(['sendemail.smtppass', 'smtp-pa55word'], ['hub.oauthtoken', 'hub-t0ken-value']),
      ['smtp-pa55word', 'hub-t0ken-value'],
    ],
    ['a password written into an inline helper', listing(['credential.helper', '!f() { echo username=bob; echo password=inl1ne-pa55; }; f']), ['inl1ne-pa55']],
    [
      'no secret: plain remotes, an ssh user, headers and paths left alone',
      listing(
        ['remote.origin.url', 'https://github.com/o/r.git'],
        ['remote.fork.url', 'ssh://git@github.com/o/r.git'],
        ['remote.up.url', 'git@github.com:o/r.git'],
        ['url.https://github.com/.insteadof', 'gh:'],
        ['http.extraheader', 'X-Trace: 1234567890'],
        ['core.askpass', '/usr/lib/ssh/ssh-askpass'],
        ['credential.helper', '!f() { echo password=$TOKEN; }; f'],
        ['credential.helper', 'cache --timeout=3600'],
        ['user.email', 'bob@example.com'],
        ['core.bare'],
      ),
      [],
    ],
  ])('%s', (_what, text, expected) => {
    expect(valuesIn(text)).toEqual(expected);
  });

  it('names each value by its key, without a subsection that is a URL (the mark is written in clear)', () => {
    const found = secretsInGitConfig(
      listing(['remote.origin.url', 'https://bob:s3cr3t-pa55@h/x'], ['url.https://ci:1nsteadOf-t0ken@h/.insteadof', 'x:']),
      PLACES,
    ).secrets;
    expect(found.map((secret) => secret.name)).toEqual(['git-config:remote.origin.url', 'git-config:url.*.insteadof']);
  });

  it.each<[string, string, readonly string[]]>([
    ["store: git's two defaults", 'store', ['/home/u/.git-credentials', '/home/u/.config/git/credentials']],
    ['store --file ~/...', 'store --file ~/.my-creds', ['/home/u/.my-creds']],
    ['store --file=<relative>, quoted', 'store "--file=secrets/git creds"', ['/work/repo/secrets/git creds']],
    ['git-credential-store by its path', '/usr/lib/git-core/git-credential-store --file /etc/creds', ['/etc/creds']],
    ['!git credential-store', "!git credential-store --file '/tmp/a b'", ['/tmp/a b']],
    ['cache keeps none', 'cache', []],
    ['a helper named like store keeps none', 'storehouse', []],
  ])('the store files of credential.helper = %s', (_what, helper, files) => {
    expect(secretsInGitConfig(listing(['credential.helper', helper]), PLACES).credentialStores).toEqual(files);
  });
});

describe('secretsInCredentialStore', () => {
  it("takes each line's password, as stored (percent-encoded) and decoded, and a token-like user", () => {
    const text = 'https://alice:st0re-pa55word@example.invalid\nhttps://bob:p%21ss%2Bw0rd@git.example.com:8443\nhttps://Zx81kQ0pLmN3vB7rT2aa@github.com\n';
    expect(secretsInCredentialStore(text, 'git-credentials:~/.git-credentials').map((secret) => secret.value)).toEqual([
      'st0re-pa55word',
      'p%21ss%2Bw0rd',
      'p!ss+w0rd',
      'Zx81kQ0pLmN3vB7rT2aa',
    ]);
  });
});

/** Runs `body` with git's global config and the default stores in `home`, and no system config. */
async function withHome(home: string, body: () => Promise<void>): Promise<void> {
  const names = ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM'] as const;
  const saved = names.map((name) => [name, process.env[name]] as const);
  process.env.HOME = home;
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  delete process.env.XDG_CONFIG_HOME;
  delete process.env.GIT_CONFIG_GLOBAL;
  try {
    await body();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('readGitConfigSecrets on a real repository', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bestof-git-config-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

  it('reads every scope git reads (here global and local) and the store files the config names', async () => {
    const home = join(dir, 'home');
    const repo = join(dir, 'repo');
    mkdirSync(home);
    mkdirSync(repo);
    git(repo, 'init', '-q');
    git(repo, 'config', 'remote.origin.url', 'https://bob:l0cal-pa55word@example.invalid/x.git');
    git(repo, 'config', 'http.https://example.invalid/.extraHeader', 'Authorization: Bearer l0cal-bearer-t0ken');
    git(repo, 'config', '--add', 'credential.helper', 'store --file creds/store');
    git(repo, 'config', '--add', 'credential.helper', 'store');
    mkdirSync(join(repo, 'creds'));
    writeFileSync(join(repo, 'creds', 'store'), 'https://alice:f1le-st0re-pa55@example.invalid\n');
    writeFileSync(join(home, '.git-credentials'), 'https://carol:h0me-st0re-pa55@example.invalid\n');
    // The global scope is $HOME/.gitconfig.
    writeFileSync(join(home, '.gitconfig'), '[sendemail]\n\tsmtpPass = gl0bal-smtp-pa55\n');
    await withHome(home, async () => {
      const found = await readGitConfigSecrets(repo);
      expect(found).toEqual(
        expect.arrayContaining([
          { name: 'git-config:sendemail.smtppass', value: 'gl0bal-smtp-pa55' },
          { name: 'git-config:remote.origin.url', value: 'l0cal-pa55word' },
          { name: 'git-config:http.*.extraheader', value: 'l0cal-bearer-t0ken' },
          { name: `git-credentials:${join(repo, 'creds', 'store')}`, value: 'f1le-st0re-pa55' },
          { name: 'git-credentials:~/.git-credentials', value: 'h0me-st0re-pa55' },
        ]),
      );
      // The run's set redacts them however they are spelled, and names them, never by value.
      const set = collectSecrets({ environment: {}, gitConfig: found });
      expect(set.redact('pw l0cal-pa55word, then l0cal-bearer-t0ken')).toBe(
        'pw <redacted:git-config:remote.origin.url>, then <redacted:git-config:http.*.extraheader>',
      );
      expect(set.findValue('x h0me-st0re-pa55 y')).toBe('git-credentials:~/.git-credentials');
    });
  });

  it('a store that is no regular file (a FIFO would block) or is missing is skipped; a folder that is no repository holds nothing', async () => {
    const repo = join(dir, 'fifo-repo');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    execFileSync('mkfifo', [join(repo, 'fifo')]);
    git(repo, 'config', '--add', 'credential.helper', 'store --file fifo');
    git(repo, 'config', '--add', 'credential.helper', 'store --file missing');
    git(repo, 'config', 'remote.origin.url', 'https://bob:f1fo-repo-pa55@example.invalid/x.git');
    const home = join(dir, 'empty-home');
    mkdirSync(home);
    await withHome(home, async () => {
      expect(await readGitConfigSecrets(repo)).toEqual([{ name: 'git-config:remote.origin.url', value: 'f1fo-repo-pa55' }]);
      expect(await readGitConfigSecrets(join(dir, 'no-such-folder'))).toEqual([]);
    });
  });
});
