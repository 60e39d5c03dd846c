/** The anonymiser and the leak scanner on materials that carry the usual fingerprints (src/vote/anonymise.ts). */
import { describe, expect, it } from 'vitest';
import { describeLeaks, normaliseMaterial, scanForLeaks, type AnonymiseContext } from '../../src/vote/anonymise.js';

const RUN = '20261202-1234-abcd';
const ctx: AnonymiseContext = {
  runId: RUN,
  candidateIds: ['c1', 'c2', 'c3'],
  providerKinds: ['claude', 'codex', 'script'],
  models: ['claude-opus-4-5', 'gpt-5-codex'],
  providerLabels: ['claude:claude-opus-4-5', 'codex:gpt-5-codex'],
  sessionIds: ['sess_01HZX9'],
  worktrees: [`/tmp/x/worktrees/${RUN}/c1`, `/tmp/x/worktrees/${RUN}/c2`, `/tmp/x/worktrees/${RUN}/c3`],
  worktreesRoot: '/tmp/x/worktrees',
  runDir: `/home/ada/proj/.bestof/runs/${RUN}`,
  repoRoot: '/home/ada/proj',
  home: '/home/ada',
};

/** A `git log -p`-style material of candidate c2, with every fingerprint we know of. */
const FINGERPRINTED = [
  'commit 3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a098',
  'Author: Claude <noreply@anthropic.com>',
  'Date:   Wed Dec 2 12:34:56 2026 +0000',
  '',
  '    bestof: c2 iteration 3, score 7',
  '',
  '    Co-Authored-By: Claude <noreply@anthropic.com>',
  '    🤖 Generated with [Claude Code](https://claude.com/claude-code)',
  '',
  'diff --git a/src/a.js b/src/a.js',
  'index 1111111..2222222 100644',
  '--- a/src/a.js',
  '+++ b/src/a.js',
  '@@ -1,3 +1,6 @@',
  ' // parse the input',
  '+// written by gpt-5-codex in session 0f8e5a8c-3b7d-4e11-9a2b-6c5d4e3f2a10',
  '+// see /tmp/x/worktrees/20261202-1234-abcd/c2/src/a.js and ~ at /home/ada/notes.txt',
  '+const branch = "bestof/20261202-1234-abcd/c2"; // candidate c2, agent c2',
  '+const c1 = 1; // a variable that happens to be called c1',
  ' export function parse(s) {',
  '-  return s;',
  '+  return s.trim();',
  ' }',
  '',
].join('\n');

describe('normaliseMaterial', () => {
  const { text, changes } = normaliseMaterial(FINGERPRINTED, ctx);

  it('drops the git header, bestof subject, Co-Authored-By trailer and "Generated with" line', () => {
    expect(text).not.toMatch(/^commit /m);
    expect(text).not.toMatch(/Author:|Date:|noreply@anthropic\.com|bestof: c2|Co-Authored-By|Generated with/);
    expect(changes).toMatchObject({ 'git-header': 3, 'bestof-commit': 1, trailer: 1, 'generated-with': 1 });
  });

  it('replaces the worktree path, HOME, the branch, the session uuid, the model and "candidate c2" with placeholders', () => {
    expect(text).toContain('+// written by <model> in session <session>');
    expect(text).toContain('+// see <worktree>/src/a.js and ~ at ~/notes.txt');
    expect(text).toContain('+const branch = "<branch>"; // candidate <candidate>, agent <candidate>');
    expect(changes).toMatchObject({ path: 2, branch: 1, 'session-id': 1, model: 1, 'candidate-id': 2 });
  });

  it('keeps code that only looks like an id (a variable c1) and the rest of the diff as it was', () => {
    expect(text).toContain('+const c1 = 1; // a variable that happens to be called c1');
    expect(text).toContain(' export function parse(s) {\n-  return s;\n+  return s.trim();\n }');
  });

  it('leaves the scanner nothing to find', () => {
    expect(scanForLeaks(text, ctx)).toEqual([]);
  });

  it('keeps the +/- prefix of a removed diff line so that the hunk still has 6 new lines', () => {
    const diff = [
      'diff --git a/a.md b/a.md',
      '--- a/a.md',
      '+++ b/a.md',
      '@@ -1,1 +1,3 @@',
      ' # Notes',
      '+text',
      '+Signed-off-by: Codex <codex@openai.com>',
      '',
    ].join('\n');
    expect(normaliseMaterial(diff, ctx).text).toBe(
      ['diff --git a/a.md b/a.md', '--- a/a.md', '+++ b/a.md', '@@ -1,1 +1,3 @@', ' # Notes', '+text', '+', ''].join('\n'),
    );
  });

  it('in a draft, drops a banner line and replaces a provider name in prose, keeps a robot emoji that is not a signature', () => {
    const draft = '# The lighthouse\n\n✻ Welcome to Claude Code!\nThe keeper 🤖 waited. Claude would have liked it.\n';
    const out = normaliseMaterial(draft, ctx);
    expect(out.text).toBe('# The lighthouse\n\nThe keeper 🤖 waited. <agent> would have liked it.\n');
    expect(out.changes).toEqual({ 'agent-banner': 1, provider: 1 });
  });

  it('replaces the longest name first: the label claude:claude-opus-4-5 becomes one <agent>, not <agent>:<model>', () => {
    expect(normaliseMaterial('ran by claude:claude-opus-4-5 today', ctx).text).toBe('ran by <agent> today');
  });

  it('with an empty run id (no run yet) leaves text without names as it was, rather than matching everywhere', () => {
    expect(normaliseMaterial('plain text', { ...ctx, runId: '', worktreesRoot: undefined }).text).toBe('plain text');
    expect(scanForLeaks('plain text', { ...ctx, runId: '' })).toEqual([]);
  });

  it("replaces a worktree of this run that the context does not list (c9), and a sibling's HOME under .homes", () => {
    const text = `/tmp/x/worktrees/${RUN}/c9/a.js and /tmp/x/worktrees/${RUN}/.homes/c2/.claude.json`;
    expect(normaliseMaterial(text, ctx).text).toBe('<worktree>/a.js and <worktree>/<candidate>/.<agent>.json');
  });

  it('does not treat the generic kinds "script" and "command" as fingerprints', () => {
    expect(normaliseMaterial('run the script with this command', ctx).text).toBe('run the script with this command');
  });
});

describe('scanForLeaks', () => {
  it('finds a model name in a comment, a branch, a worktree path and a session id, with line and column', () => {
    const prompt = `## Candidate A\n// tuned for claude-opus-4-5\ngit switch bestof/${RUN}/c3\ncat /tmp/x/worktrees/${RUN}/c1/a.js # sess_01HZX9`;
    const leaks = scanForLeaks(prompt, ctx);
    expect(leaks.map((l) => [l.kind, l.found, l.line, l.column])).toEqual([
      ['model', 'claude-opus-4-5', 2, 14],
      ['branch', `bestof/${RUN}/c3`, 3, 12],
      ['path', `/tmp/x/worktrees/${RUN}/c1`, 4, 5],
      ['session-id', 'sess_01HZX9', 4, 51],
    ]);
    expect(leaks[0]?.index).toBe(prompt.indexOf('claude-opus-4-5'));
  });

  it('reports a hit inside a longer one once: the run id inside the branch, "codex" inside gpt-5-codex', () => {
    const leaks = scanForLeaks(`refs/bestof/${RUN}/c2/kept by gpt-5-codex`, ctx);
    expect(leaks.map((l) => l.found)).toEqual([`refs/bestof/${RUN}/c2/kept`, 'gpt-5-codex']);
  });

  it('finds a bare run id, any uuid, and a candidate id where it names a candidate ("candidate c1", ".homes/c2/")', () => {
    const prompt = `run ${RUN}; id 123e4567-e89b-12d3-a456-426614174000; candidate c1 wrote .homes/c2/x; let c3 = 2`;
    expect(scanForLeaks(prompt, ctx).map((l) => `${l.kind}:${l.found}`)).toEqual([
      `run-id:${RUN}`,
      'session-id:123e4567-e89b-12d3-a456-426614174000',
      'candidate-id:c1',
      'candidate-id:c2',
    ]);
  });

  it('ignores a provider name inside the trusted task text, and still finds the same name in the material', () => {
    const task = 'Add a Claude API client';
    const prompt = `## Task\n${task}\n## Candidate A\nimport Claude from "claude"`;
    const leaks = scanForLeaks(prompt, ctx, { trusted: [task] });
    expect(leaks.map((l) => [l.found, l.line])).toEqual([
      ['Claude', 4],
      ['claude', 4],
    ]);
  });

  it('describes the leaks in one line naming the voter, the first five, and how many more', () => {
    const leaks = scanForLeaks('claude codex claude codex claude codex', ctx);
    expect(describeLeaks(leaks, 'c2')).toBe(
      `voter c2's prompt still names provider "claude" at 1:1, provider "codex" at 1:8, provider "claude" at 1:14, provider "codex" at 1:21, provider "claude" at 1:27 and 1 more after anonymising, so it was not sent`,
    );
  });
});
