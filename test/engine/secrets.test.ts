import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import type { RunPlan } from '../../src/engine/plan/plan.js';
import { createRunContext, runSecrets } from '../../src/engine/run/run-context.js';
import { collectSecrets, createSecretSet, isSecretName, isSecretValue, looksLikeToken, SHAPES_ONLY } from '../../src/engine/sandbox/secrets.js';

describe('which values are secrets', () => {
  it.each([
    ['OPENAI_API_KEY', true],
    ['ANTHROPIC_API_KEY', true],
    ['GITHUB_TOKEN', true],
    ['GH_TOKEN', true],
    ['NPM_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['AWS_ACCESS_KEY_ID', true],
    ['AWS_SESSION_TOKEN', true],
    ['PGPASSWORD', true],
    ['DB_PASSWD', true],
    ['GPG_PASSPHRASE', true],
    ['GOOGLE_APPLICATION_CREDENTIALS', true],
    ['SESSION_COOKIE', true],
    ['SSH_PRIVATE_KEY', true],
    ['BASIC_AUTH', true],
    ['OAUTH_CLIENT', true],
    ['HTTP_AUTHORIZATION', true],
    ['GITHUB_PAT', true],
    ['MYSQL_PWD', true],
    ['stripe_secret', true],
    ['GIT_AUTHOR_NAME', false],
    ['GIT_AUTHOR_EMAIL', false],
    ['XAUTHORITY', false],
    ['XKB_KEYMAP', false],
    ['KEYBOARD_LAYOUT', false],
    ['PWD', false],
    ['OLDPWD', false],
    ['XDG_SESSION_TYPE', false],
    ['DBUS_SESSION_BUS_ADDRESS', false],
    ['GIT_ASKPASS', false],
    ['HOME', false],
    ['PATH', false],
    ['NODE_ENV', false],
  ])('%s: %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });

  it('short values, common words and existing paths are not secrets', () => {
    expect(isSecretValue('abc1234')).toBe(false);
    expect(isSecretValue('true')).toBe(false);
    expect(isSecretValue('password')).toBe(false);
    expect(isSecretValue('localhost')).toBe(false);
    expect(isSecretValue(tmpdir())).toBe(false);
    expect(isSecretValue('/no/such/path/holds/this-secret')).toBe(true);
    expect(isSecretValue('hunter2hunter2')).toBe(true);
  });

  it('a spec env value is a secret when its name says so or it looks like a token', () => {
    const token = 'Zx81kQ0pLmN3vB7rT2aa';
    expect(looksLikeToken(token)).toBe(true);
    expect(looksLikeToken('production')).toBe(false);
    expect(looksLikeToken('/usr/local/bin:/usr/bin')).toBe(false);
    expect(looksLikeToken('en_US.UTF-8')).toBe(false);
    const set = collectSecrets({
      environment: { HOME: '/home/me', GITHUB_TOKEN: 'gh-value-0123456789', SHORT_TOKEN: 'abc', GIT_AUTHOR_NAME: 'Test User Name' },
      agentEnvs: [{ NODE_ENV: 'production', SERVICE_URL_PART: token, MY_PASSWORD: 'open sesame please' }],
    });
    expect([...set.names].sort()).toEqual(['GITHUB_TOKEN', 'MY_PASSWORD', 'SERVICE_URL_PART']);
    expect(set.redact('production Test User Name')).toBe('production Test User Name');
  });
});

describe('redact: values', () => {
  it('replaces every occurrence by its name and returns the very same string when there is none', () => {
    const set = createSecretSet([['API_KEY', 'k3y-v4lue-0001']]);
    expect(set.redact('a k3y-v4lue-0001 b k3y-v4lue-0001')).toBe('a <redacted:API_KEY> b <redacted:API_KEY>');
    const clean = 'nothing here';
    expect(set.redact(clean)).toBe(clean);
    expect(set.redact('')).toBe('');
  });

  it('a secret that is a prefix of another: the longer one wins where it is, the shorter one elsewhere', () => {
    const set = createSecretSet([
      ['SHORT', 'token-123456'],
      ['LONG', 'token-123456789'],
    ]);
    expect(set.redact('x token-123456789 y token-123456 z')).toBe('x <redacted:LONG> y <redacted:SHORT> z');
  });

  it('overlapping secrets leave no piece of either in clear', () => {
    const set = createSecretSet([
      ['A', 'abcdefgh1234'],
      ['B', '1234wxyz5678'],
    ]);
    expect(set.redact('<abcdefgh1234wxyz5678>')).toBe('<<redacted:A,B>>');
    expect(set.redact('1234wxyz5678 abcdefgh1234')).toBe('<redacted:B> <redacted:A>');
    // A secret inside another one.
    const nested = createSecretSet([
      ['OUTER', 'xx-inner-secret-xx'],
      ['INNER', 'inner-secret'],
    ]);
    expect(nested.redact('xx-inner-secret-xx and inner-secret')).toBe('<redacted:OUTER> and <redacted:INNER>');
  });

  it('finds every occurrence a naive search finds (random texts over a small alphabet, overlaps and all)', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = (length: number): string => Array.from({ length }, () => 'abc'[random(3)]).join('');
    for (let round = 0; round < 300; round++) {
      const values = Array.from({ length: 1 + random(4) }, () => word(2 + random(5)));
      const text = word(random(60));
      const set = createSecretSet(values.map((value, i) => [`S${i}`, value]));
      // The naive answer: every position covered by some occurrence of some value.
      const covered = new Array<boolean>(text.length).fill(false);
      for (const value of values) {
        for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) covered.fill(true, at, at + value.length);
      }
      const expected = text.replace(/./g, (char, at: number) => (covered[at] ? '#' : char)).replace(/#+/g, '#');
      expect(set.redact(text).replace(/<redacted:[^>]+>/g, '#'), `${JSON.stringify(values)} in ${text}`).toBe(expected);
    }
  });

  it('values with regex-special characters are matched literally', () => {
    const value = 'a.b*c+d?(e)[f]{g}|h^i$j\\k/l';
    const set = createSecretSet([['WEIRD_SECRET', value]]);
    expect(set.redact(`before ${value} after`)).toBe('before <redacted:WEIRD_SECRET> after');
    expect(set.redact('before aXb*c+d?(e)[f]{g}|h^i$j\\k/l after')).toBe('before aXb*c+d?(e)[f]{g}|h^i$j\\k/l after');
  });

  it('finds a value in its JSON and URL spellings', () => {
    const value = 'p@ss"word/with+chars=';
    const set = createSecretSet([['DB_PASSWORD', value]]);
    expect(set.redact(JSON.stringify({ v: value }))).toBe('{"v":"<redacted:DB_PASSWORD>"}');
    expect(set.redact(`?pw=${encodeURIComponent(value)}&x=1`)).toBe('?pw=<redacted:DB_PASSWORD>&x=1');
  });

  it('findValue names the value (never a shape)', () => {
    const set = createSecretSet([['API_KEY', 'k3y-v4lue-0001']]);
    expect(set.findValue('x k3y-v4lue-0001')).toBe('API_KEY');
    expect(set.findValue('Authorization: Bearer abcdefghijkl')).toBeUndefined();
    expect(SHAPES_ONLY.findValue('anything')).toBeUndefined();
  });

  it('redactDeep redacts every string of an event and keeps what has none as it was', () => {
    const set = createSecretSet([['API_KEY', 'k3y-v4lue-0001']]);
    const event = { type: 'x', n: 3, ok: true, nothing: null, list: ['a', 'k3y-v4lue-0001'], nested: { text: 'say k3y-v4lue-0001', keep: { a: 'b' } } };
    const redacted = set.redactDeep(event);
    expect(redacted).toEqual({
      type: 'x',
      n: 3,
      ok: true,
      nothing: null,
      list: ['a', '<redacted:API_KEY>'],
      nested: { text: 'say <redacted:API_KEY>', keep: { a: 'b' } },
    });
    expect(redacted.nested.keep).toBe(event.nested.keep);
    expect(event.list[1]).toBe('k3y-v4lue-0001');
    const clean = { type: 'y', list: ['a'], nested: { b: 'c' } };
    expect(set.redactDeep(clean)).toBe(clean);
  });
});

describe('redact: shapes, whatever the environment', () => {
  const ghp = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
  it.each([
    ['a bearer header', 'curl -H "Authorization: Bearer abc.def-123_456" url', 'curl -H "Authorization: Bearer <redacted>" url'],
    ['a basic header', 'authorization: basic dXNlcjpwYXNz', 'authorization: basic <redacted>'],
    ['a proxy header', 'Proxy-Authorization: Bearer zzzzzzzzzz', 'Proxy-Authorization: Bearer <redacted>'],
    ['an api key header', 'x-api-key: sk-whatever-1234', 'x-api-key: <redacted>'],
    ['JSON headers', '{"Authorization": "Bearer abcdefgh1234"}', '{"Authorization": "Bearer <redacted>"}'],
    ['a URL with credentials', 'clone https://user:pa55word@github.com/o/r.git', 'clone https://<redacted>@github.com/o/r.git'],
    ['a database URL', 'postgres://admin:s3cr3t@db:5432/app', 'postgres://<redacted>@db:5432/app'],
    ['a GitHub token', `token ${ghp} used`, 'token <redacted> used'],
    ['a fine-grained GitHub token', `github_pat_${'A1b2C3d4E5'.repeat(5)}`, '<redacted>'],
    ['an OpenAI key', 'OPENAI=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl', 'OPENAI=<redacted>'],
    ['an Anthropic key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', '<redacted>'],
    ['a Slack token', 'xoxb-123456789012-abcdefABCDEF', '<redacted>'],
    ['an AWS key id', 'id AKIAIOSFODNN7EXAMPLE end', 'id <redacted> end'],
    ['a Google API key', `key=AIza${'B'.repeat(35)}`, 'key=<redacted>'],
    [
      'a private key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----',
      '-----BEGIN RSA PRIVATE KEY-----<redacted>-----END RSA PRIVATE KEY-----',
    ],
  ])('%s', (_title, text, expected) => {
    expect(SHAPES_ONLY.redact(text)).toBe(expected);
  });

  it.each([
    ['a user alone in a URL', 'ssh://git@github.com/o/r.git'],
    ['a plain URL', 'https://example.com/a?b=c@d'],
    ['sk- inside a word', 'risk-assessment-2024-quarterly-review'],
    ['a short sk- name', 'scikit sk-learn'],
    ['a header with a placeholder', 'Authorization: Bearer $TOKEN'],
    ['ghp_ too short', 'ghp_abc'],
    ['the author header of a commit', 'Author: Test User <test@example.com>'],
  ])('leaves %s alone', (_title, text) => {
    expect(SHAPES_ONLY.redact(text)).toBe(text);
  });
});

describe('the stream redactor', () => {
  const secret = 'stream-secret-0123456789';
  const set = createSecretSet([['STREAM_TOKEN', secret]]);

  it('finds a secret cut across chunks, and Buffer chunks cut inside a character', () => {
    const redactor = set.createStreamRedactor();
    const text = `héllo ${secret} wörld\nline two ${secret}\nend`;
    const bytes = Buffer.from(text);
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) out += redactor.push(bytes.subarray(i, i + 3));
    out += redactor.end();
    expect(out).toBe('héllo <redacted:STREAM_TOKEN> wörld\nline two <redacted:STREAM_TOKEN>\nend');
  });

  it('writes a very long line in pieces and never cuts a secret', () => {
    const redactor = set.createStreamRedactor();
    const filler = 'x'.repeat(70_000 - 10);
    let out = redactor.push(filler + secret.slice(0, 12));
    out += redactor.push(secret.slice(12) + 'y'.repeat(80_000));
    expect(out.length).toBeGreaterThan(0);
    out += redactor.end();
    expect(out).toBe(`${filler}<redacted:STREAM_TOKEN>${'y'.repeat(80_000)}`);
  });

  it('holds a private key block back until its END line', () => {
    const redactor = set.createStreamRedactor();
    let out = redactor.push('before\n-----BEGIN PRIVATE KEY-----\nAAAA\n');
    expect(out).toBe('before\n');
    out += redactor.push('BBBB\n-----END PRIVATE KEY-----\nafter\n');
    out += redactor.end();
    expect(out).toBe('before\n-----BEGIN PRIVATE KEY-----<redacted>-----END PRIVATE KEY-----\nafter\n');
  });
});

describe('cost', () => {
  it('redacts 1 MB with 50 secrets in one pass per call, correctly', () => {
    const secrets = Array.from({ length: 50 }, (_, i) => [`SECRET_${i}`, randomBytes(12 + (i % 20)).toString('base64url')] as const);
    const set = createSecretSet(secrets);
    const words = 'the quick brown fox jumps over the lazy dog https://example.com/x Authorization sk ghp 12345'.split(' ');
    const parts: string[] = [];
    let length = 0;
    let planted = 0;
    for (let i = 0; length < 1_000_000; i++) {
      const word = i % 1000 === 0 ? secrets[planted++ % 50]![1] : words[i % words.length]!;
      parts.push(word);
      length += word.length + 1;
    }
    const text = parts.join(' ');
    const redacted = set.redact(text);
    for (const [, value] of secrets) expect(redacted.includes(value)).toBe(false);
    expect(redacted.match(/<redacted:SECRET_\d+>/g)?.length).toBe(planted);
    expect(redacted.replace(/<redacted:SECRET_\d+>/g, '')).toBe(text.replace(new RegExp(secrets.map(([, v]) => v.replace(/[-]/g, '\\-')).join('|'), 'g'), ''));
  });
});

describe('the run context redacts every event at emit', () => {
  it('events handed to listeners and folded into the state hold no secret value', () => {
    const token = 'ctx-token-0123456789abcdef';
    const specToken = 'Sp3cT0kenValue99887766';
    const plan = {
      spec: { budget: {}, loop: {}, parallel: { max_concurrency: 1 }, providers: {} },
      candidates: [{ id: 'c1', settings: { kind: 'command', env: { SERVICE_PART: specToken, NODE_ENV: 'production' } } }],
    } as unknown as RunPlan;
    const seen: RunEvent[] = [];
    const ctx = createRunContext(plan, {
      signal: new AbortController().signal,
      listeners: [(event) => seen.push(event)],
      resume: undefined,
      secrets: runSecrets(plan, { FAKE_SERVICE_TOKEN: token, HOME: '/home/x' }),
    });
    expect([...ctx.secrets.names].sort()).toEqual(['FAKE_SERVICE_TOKEN', 'SERVICE_PART']);
    ctx.emit({
      type: 'run.warning',
      message: `env: FAKE_SERVICE_TOKEN=${token} SERVICE_PART=${specToken} NODE_ENV=production; curl -H "Authorization: Bearer abcdefgh12345"`,
    });
    expect(seen).toHaveLength(1);
    const written = JSON.stringify(seen) + JSON.stringify(ctx.state());
    expect(written).not.toContain(token);
    expect(written).not.toContain(specToken);
    expect(written).not.toContain('abcdefgh12345');
    expect((seen[0] as { message: string }).message).toBe(
      'env: FAKE_SERVICE_TOKEN=<redacted:FAKE_SERVICE_TOKEN> SERVICE_PART=<redacted:SERVICE_PART> NODE_ENV=production; curl -H "Authorization: Bearer <redacted>"',
    );
  });
});
