/**
 * Anonymising a candidate's material before any voter sees it, and checking that it worked.
 *
 * Counters **self-preference**: GPT-4 recognises its own text about 73% of the time and picks
 * its own answer 87% of the time, and recognition tracks preference, so hiding the names on
 * the outside is not enough: the fingerprints inside the material go too. `normaliseMaterial`
 * removes the ones we know: bestof's own commit subjects (`bestof: c1 iteration 3, score 7`),
 * git headers and trailers (`Co-Authored-By:`, `Signed-off-by:`), "Generated with [Claude
 * Code]" lines and agent banners; and replaces with neutral placeholders the absolute paths
 * (worktree, worktrees root, run folder, repo, HOME), branch names, the run id, session ids
 * (any UUID), and the provider kinds (but those named by a plain word: `command`, `script`),
 * model names and provider labels of this run.
 *
 * `scanForLeaks` is the safety net the wiring runs over every finished prompt: any forbidden
 * string still present fails the vote phase rather than letting a voter see it. It is
 * deliberately the same list of terms as the normaliser's, so the normaliser's output always
 * scans clean, and anything that reaches a prompt by another way (a review written by a voter,
 * a check's output) is caught.
 *
 * The price: a task *about* one of these products (a diff that imports `openai` in a run with
 * codex) has those words replaced too, the same way in every candidate, so no candidate is
 * favoured. The task's own text is the spec author's, not a candidate's: the wiring passes it
 * as `trusted` so the scanner ignores hits inside it.
 */
import { traitsOf } from '../providers/definitions.js';

/** What identifies the candidates of this run. Every list may be empty. */
export interface AnonymiseContext {
  readonly runId: string;
  /** `[git] branch_prefix`. @default "bestof" */
  readonly branchPrefix?: string;
  readonly candidateIds: readonly string[];
  /** Provider kinds in the run (claude, codex…). `script` and `command` are ignored: they are ordinary words. */
  readonly providerKinds: readonly string[];
  readonly models: readonly string[];
  /** Provider labels as the run shows them (`claude:opus#1`). */
  readonly providerLabels: readonly string[];
  readonly sessionIds: readonly string[];
  /** Absolute paths of every candidate's worktree. */
  readonly worktrees: readonly string[];
  readonly worktreesRoot?: string;
  readonly runDir?: string;
  readonly repoRoot?: string;
  readonly home?: string;
}

/** Why something was removed or replaced, counted per rule for the record. */
export type NormaliseRule =
  | 'bestof-commit'
  | 'git-header'
  | 'trailer'
  | 'generated-with'
  | 'agent-banner'
  | 'path'
  | 'branch'
  | 'run-id'
  | 'session-id'
  | 'model'
  | 'provider'
  | 'candidate-id';

export interface NormalisedMaterial {
  readonly text: string;
  /** How many times each rule fired; rules that did not fire are absent. */
  readonly changes: Readonly<Partial<Record<NormaliseRule, number>>>;
}

/** Product and vendor names that are fingerprints even when the run's context does not list them. */
const AGENT_PRODUCTS = ['claude code', 'claude', 'anthropic', 'openai', 'codex', 'chatgpt', 'gemini cli', 'gemini'];

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/**
 * Whole lines that are fingerprints, matched after an optional diff prefix and comment marker.
 * Checked in this order; the first that matches names the rule.
 */
const LINE_RULES: readonly { readonly rule: NormaliseRule; readonly pattern: RegExp }[] = [
  { rule: 'bestof-commit', pattern: /^(subject: (\[patch[^\]]*\] )?)?bestof: \S+/i },
  {
    rule: 'git-header',
    pattern: /^(commit [0-9a-f]{7,64}\b|from [0-9a-f]{40} |(author|commit|from):\s.*<[^>]*@[^>]*>|(date|authordate|commitdate):\s+\w{3},? .*\d\d:\d\d:\d\d)/i,
  },
  {
    rule: 'trailer',
    pattern: /^(co-authored-by|signed-off-by|generated-by|assisted-by|reviewed-by|helped-by|change-id|session-id|x-generated-by|made-with)\s*:/i,
  },
  {
    rule: 'generated-with',
    pattern: /(🤖\s*(generated|co-authored)|\bgenerated (with|by|using) \[?(claude|codex|gemini|openai|chatgpt|anthropic|an? (ai|llm)))/i,
  },
  {
    rule: 'agent-banner',
    pattern:
      /(welcome to claude code|^>_ openai codex|^openai codex v|^gemini cli v|^✻ |\bclaude code v\d|^(claude|codex|gemini)( cli)? (session|model|version)\s*[:=])/i,
  },
];

/** A diff's content line keeps its first character so that hunk line counts stay right. */
const DIFF_LINE_PREFIX = /^[+\- ]/;
const COMMENT_MARKER = /^\s*(\/\/+|#+|\/?\*+|<!--|--|;+|%+|>+)?\s*/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A word-bounded, case-insensitive pattern: `claude` matches in `claude-opus` but not in `claudette`. */
function wordPattern(term: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(term)}(?![A-Za-z0-9_])`, 'gi');
}

/** Where a candidate id identifies a candidate (and is not a variable that happens to be `c1`). */
function candidateIdPattern(id: string): RegExp {
  const word = escapeRegExp(id);
  return new RegExp(
    `(?<=(?:\\bcandidates?|\\bagent|\\bBESTOF_CANDIDATE|\\bworker)[\\s:=#"'\`]{0,3})${word}(?![A-Za-z0-9_])|(?<=[/\\\\])${word}(?=[/\\\\]|-review\\b)|(?<![A-Za-z0-9_])${word}(?=-review\\b)`,
    'gi',
  );
}

interface Replacement {
  readonly rule: NormaliseRule;
  readonly pattern: RegExp;
  readonly placeholder: string;
}

function pathReplacements(ctx: AnonymiseContext): Replacement[] {
  const paths: { path: string; placeholder: string }[] = [
    ...ctx.worktrees.map((path) => ({ path, placeholder: '<worktree>' })),
    ...(ctx.worktreesRoot ? [{ path: ctx.worktreesRoot, placeholder: '<worktrees>' }] : []),
    ...(ctx.runDir ? [{ path: ctx.runDir, placeholder: '<run-folder>' }] : []),
    ...(ctx.repoRoot ? [{ path: ctx.repoRoot, placeholder: '<repo>' }] : []),
    ...(ctx.home ? [{ path: ctx.home, placeholder: '~' }] : []),
  ].filter((p) => p.path.length > 1);
  // Longest first: the worktree is inside the worktrees root, which may be inside HOME.
  paths.sort((x, y) => y.path.length - x.path.length);
  // Any candidate's worktree of this run, even one the context does not list (a retried candidate).
  const worktreeUnderRoot: Replacement[] =
    ctx.worktreesRoot && ctx.runId
      ? [{ rule: 'path', pattern: new RegExp(`${escapeRegExp(ctx.worktreesRoot)}/${escapeRegExp(ctx.runId)}/[^/\\s'"\`]+`, 'g'), placeholder: '<worktree>' }]
      : [];
  return [
    ...worktreeUnderRoot,
    ...paths.map((p) => ({
      rule: 'path' as const,
      pattern: new RegExp(`${escapeRegExp(p.path.replace(/\/+$/, ''))}(?![A-Za-z0-9_.-])`, 'g'),
      placeholder: p.placeholder,
    })),
  ];
}

/** Names, longest first, so that `claude-opus-4` goes before `claude`. */
function nameTerms(ctx: AnonymiseContext): { term: string; rule: NormaliseRule; placeholder: string }[] {
  const terms = [
    ...ctx.providerLabels.map((term) => ({ term, rule: 'provider' as const, placeholder: '<agent>' })),
    ...ctx.models.map((term) => ({ term, rule: 'model' as const, placeholder: '<model>' })),
    ...ctx.providerKinds.filter((k) => !traitsOf(k).plainName).map((term) => ({ term, rule: 'provider' as const, placeholder: '<agent>' })),
    ...AGENT_PRODUCTS.map((term) => ({ term, rule: 'provider' as const, placeholder: '<agent>' })),
  ].filter((t) => t.term.trim().length > 0);
  const seen = new Set<string>();
  return terms
    .filter((t) => {
      const key = t.term.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((x, y) => y.term.length - x.term.length);
}

function replacements(ctx: AnonymiseContext): Replacement[] {
  const prefix = escapeRegExp(ctx.branchPrefix ?? 'bestof');
  const run = escapeRegExp(ctx.runId);
  // An empty run id would make patterns that match everywhere; only tests have none.
  const runPatterns: Replacement[] = run
    ? [
        { rule: 'branch', pattern: new RegExp(`(refs/)?${prefix}/${run}(/[A-Za-z0-9_.-]+)*`, 'g'), placeholder: '<branch>' },
        { rule: 'run-id', pattern: new RegExp(run, 'g'), placeholder: '<run-id>' },
      ]
    : [];
  return [
    ...pathReplacements(ctx),
    ...runPatterns,
    ...ctx.sessionIds
      .filter((s) => s.length > 0)
      .map((s) => ({ rule: 'session-id' as const, pattern: new RegExp(escapeRegExp(s), 'gi'), placeholder: '<session>' })),
    { rule: 'session-id', pattern: UUID, placeholder: '<session>' },
    ...nameTerms(ctx).map((t) => ({ rule: t.rule, pattern: wordPattern(t.term), placeholder: t.placeholder })),
    ...ctx.candidateIds.map((id) => ({ rule: 'candidate-id' as const, pattern: candidateIdPattern(id), placeholder: '<candidate>' })),
  ];
}

function fingerprintRule(line: string, isDiff: boolean): NormaliseRule | undefined {
  const body = (isDiff ? line.replace(DIFF_LINE_PREFIX, '') : line).replace(COMMENT_MARKER, '');
  return LINE_RULES.find((r) => r.pattern.test(body))?.rule;
}

/**
 * The material with the known fingerprints removed (whole lines) or replaced (names, paths,
 * ids). `text` is a diff (detected by its `diff --git` or `@@` lines: there a removed line
 * keeps its `+`/`-`/` ` so hunks still add up) or any other text, such as a draft.
 */
export function normaliseMaterial(text: string, context: AnonymiseContext): NormalisedMaterial {
  const changes: Partial<Record<NormaliseRule, number>> = {};
  const count = (rule: NormaliseRule, n = 1): void => {
    changes[rule] = (changes[rule] ?? 0) + n;
  };
  const isDiff = /^(diff --git |@@ )/m.test(text);
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const rule = fingerprintRule(line, isDiff);
    if (rule === undefined) lines.push(line);
    else {
      count(rule);
      if (isDiff && DIFF_LINE_PREFIX.test(line) && !/^(\+\+\+|---) /.test(line)) lines.push(line.charAt(0));
    }
  }
  let out = lines.join('\n');
  for (const r of replacements(context)) {
    out = out.replace(r.pattern, () => {
      count(r.rule);
      return r.placeholder;
    });
  }
  return { text: out, changes };
}

/** What a leak is about, for the message. */
export type LeakKind = 'provider' | 'model' | 'branch' | 'run-id' | 'path' | 'session-id' | 'candidate-id';

export interface Leak {
  readonly kind: LeakKind;
  /** The text found, as it appears in the prompt. */
  readonly found: string;
  /** Offset in the prompt, and 1-based line and column for people. */
  readonly index: number;
  readonly line: number;
  readonly column: number;
}

export interface ScanOptions {
  /**
   * Verbatim parts of the prompt the spec author wrote (the task): a hit wholly inside one is
   * not a candidate's fingerprint. @default []
   */
  readonly trusted?: readonly string[];
}

function leakPatterns(ctx: AnonymiseContext): { kind: LeakKind; pattern: RegExp }[] {
  const prefix = escapeRegExp(ctx.branchPrefix ?? 'bestof');
  const paths = [...ctx.worktrees, ctx.worktreesRoot, ctx.runDir, ctx.repoRoot, ctx.home].filter((p): p is string => p !== undefined && p.length > 1);
  return [
    ...paths.map((p) => ({ kind: 'path' as const, pattern: new RegExp(`${escapeRegExp(p.replace(/\/+$/, ''))}(?![A-Za-z0-9_.-])`, 'g') })),
    ...(ctx.runId
      ? [
          { kind: 'branch' as const, pattern: new RegExp(`(refs/)?${prefix}/${escapeRegExp(ctx.runId)}(/[A-Za-z0-9_.-]+)*`, 'g') },
          { kind: 'run-id' as const, pattern: new RegExp(escapeRegExp(ctx.runId), 'g') },
        ]
      : []),
    ...ctx.sessionIds.filter((s) => s.length > 0).map((s) => ({ kind: 'session-id' as const, pattern: new RegExp(escapeRegExp(s), 'gi') })),
    { kind: 'session-id', pattern: new RegExp(UUID.source, 'gi') },
    ...nameTerms(ctx).map((t) => ({ kind: t.rule === 'model' ? ('model' as const) : ('provider' as const), pattern: wordPattern(t.term) })),
    ...ctx.candidateIds.map((id) => ({ kind: 'candidate-id' as const, pattern: candidateIdPattern(id) })),
  ];
}

function trustedSpans(prompt: string, trusted: readonly string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const text of trusted.filter((t) => t.length > 0)) {
    for (let at = prompt.indexOf(text); at >= 0; at = prompt.indexOf(text, at + 1)) spans.push([at, at + text.length]);
  }
  return spans;
}

/**
 * Every forbidden string still in `prompt`, in the order they appear. A hit inside a longer
 * hit (`claude` inside `claude-opus-4`, the run id inside a branch name) is reported once, as
 * the longer one. The wiring fails the vote phase when the list is not empty.
 */
export function scanForLeaks(prompt: string, context: AnonymiseContext, options: ScanOptions = {}): Leak[] {
  const trusted = trustedSpans(prompt, options.trusted ?? []);
  const hits: { kind: LeakKind; index: number; end: number; found: string }[] = [];
  for (const { kind, pattern } of leakPatterns(context)) {
    for (const m of prompt.matchAll(pattern)) {
      const index = m.index ?? 0;
      hits.push({ kind, index, end: index + m[0].length, found: m[0] });
    }
  }
  hits.sort((x, y) => x.index - y.index || y.end - x.end);
  const kept: typeof hits = [];
  for (const hit of hits) {
    if (kept.some((k) => k.index <= hit.index && hit.end <= k.end)) continue;
    if (trusted.some(([from, to]) => from <= hit.index && hit.end <= to)) continue;
    kept.push(hit);
  }
  return kept.map(({ kind, index, found }) => {
    const before = prompt.slice(0, index);
    const line = before.split('\n').length;
    const column = index - before.lastIndexOf('\n');
    return { kind, found, index, line, column };
  });
}

/**
 * What happened and where, for the message that fails the vote phase; the wiring adds what it
 * did about it (the ranking it fell back to) and what the user can do.
 */
export function describeLeaks(leaks: readonly Leak[], voter: string): string {
  return describePromptLeaks(leaks, `voter ${voter}'s`);
}

/** The same, for any agent's prompt (`whose`: "the tester's"). */
export function describePromptLeaks(leaks: readonly Leak[], whose: string): string {
  const shown = leaks.slice(0, 5).map((l) => `${l.kind} "${l.found}" at ${l.line}:${l.column}`);
  const more = leaks.length > 5 ? ` and ${leaks.length - 5} more` : '';
  return `${whose} prompt still names ${shown.join(', ')}${more} after anonymising, so it was not sent`;
}
