/**
 * Reading a voter's answer: the ranking ballot, the pairwise verdict and the cross-review.
 *
 * Strict on purpose. Existing councils average whatever positions they can scrape from an
 * answer; a ballot that names a label twice, forgets one or ranks the voter's own candidate is
 * then silently a different vote. Here only the final block counts (`FINAL RANKING:` then one
 * label per line, or a last line `WINNER: <label>` / `TIE`), the reasoning before it never
 * does, and a ballot that is not exactly right is an error that says why, so the wiring can
 * ask once more (quoting the reason) and then discard and record it. Tolerated: markdown
 * bullets and numbering, bold, surrounding whitespace and a case-insensitive marker, because
 * they change nothing about which label is where.
 */
import { err, ok, type Result } from '../result.js';
import { FINAL_RANKING, TIE, WINNER } from './prompts.js';

export type BallotProblem = 'no_final_block' | 'unknown_label' | 'duplicate_label' | 'missing_label' | 'own_candidate' | 'no_verdict' | 'missing_review';

export interface BallotError {
  readonly problem: BallotProblem;
  /** One sentence for the record and for the second asking: what was wrong and what is expected. */
  readonly message: string;
}

const MARKER = /^\s*(?:[#>*_\s]*)final ranking\s*:?[*_\s]*:?\s*$/i;

/** `- A`, `1. A`, `2) **A**`, `#1 A` → `A`; a line that is more than a label stays as it is (and is rejected). */
function bareLabel(line: string): string {
  return line
    .trim()
    .replace(/^(?:[-*+•]\s*|#?\d+[.):]?\s+)/, '')
    .replace(/^(\*\*|__|`)(.*)\1$/, '$2')
    .trim();
}

function problem(kind: BallotProblem, message: string): Result<never, BallotError> {
  return err({ problem: kind, message });
}

export interface RankingRules {
  /** The labels this voter was shown; a valid ranking names each exactly once. */
  readonly labels: readonly string[];
  /**
   * Labels that stand for the voter's own candidate, when the wiring showed it one (for
   * context) though it may not rank it. With structural recusal (order.ts) there is none.
   * @default []
   */
  readonly ownLabels?: readonly string[];
}

/** The labels of a ranking answer, best first, or why it does not count. */
export function parseRanking(answer: string, rules: RankingRules): Result<string[], BallotError> {
  const lines = answer.replace(/\r\n?/g, '\n').split('\n');
  const markerAt = lines.findLastIndex((l) => MARKER.test(l));
  const expected = `each of ${rules.labels.join(', ')} exactly once`;
  if (markerAt < 0)
    return problem('no_final_block', `the answer has no "${FINAL_RANKING}" line; it must end with that line and then ${expected}, one per line, best first`);
  const entries = lines
    .slice(markerAt + 1)
    .map(bareLabel)
    .filter((l) => l.length > 0);
  const own = new Set(rules.ownLabels ?? []);
  const allowed = new Set(rules.labels);
  const seen = new Set<string>();
  for (const entry of entries) {
    if (own.has(entry))
      return problem('own_candidate', `the ranking names ${entry}, the voter's own candidate, which it may not rank; it must name ${expected}`);
    if (!allowed.has(entry))
      return problem('unknown_label', `the ranking has "${entry}", which is not one of the labels; it must name ${expected} and nothing else`);
    if (seen.has(entry)) return problem('duplicate_label', `the ranking names ${entry} twice; it must name ${expected}`);
    seen.add(entry);
  }
  const missing = rules.labels.filter((l) => !seen.has(l));
  if (missing.length > 0) return problem('missing_label', `the ranking leaves out ${missing.join(', ')}; it must name ${expected}`);
  return ok(entries);
}

/** What a pairwise answer chose, by label. */
export type PairVerdict = { readonly winner: string } | { readonly tie: true };

/** The verdict of a pairwise answer: its last non-empty line must be `WINNER: <label>` or `TIE`. */
export function parsePairVerdict(answer: string, labels: readonly [string, string]): Result<PairVerdict, BallotError> {
  const last = answer
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) =>
      l
        .trim()
        .replace(/^(\*\*|__|`)(.*)\1$/, '$2')
        .trim(),
    )
    .filter((l) => l.length > 0)
    .at(-1);
  const expected = `the last line must be "${WINNER} ${labels[0]}", "${WINNER} ${labels[1]}" or "${TIE}"`;
  if (last === undefined) return problem('no_verdict', `the answer is empty; ${expected}`);
  if (last.toUpperCase() === TIE) return ok({ tie: true });
  const m = /^winner\s*:\s*[*_`]*([A-Za-z]+)[*_`]*\.?$/i.exec(last);
  if (!m) return problem('no_verdict', `the answer ends with "${last.slice(0, 80)}"; ${expected}`);
  const label = m[1] as string;
  if (!labels.includes(label)) return problem('unknown_label', `the answer names ${label}, which is not one of the two candidates; ${expected}`);
  return ok({ winner: label });
}

/**
 * A cross-review split into one text per label (sections that start with a heading naming
 * the label: `## A`, `### Candidate A`). Every shown label must have its section, so that a
 * review shown to a later voter is about one candidate only.
 */
export function parseReviews(answer: string, labels: readonly string[]): Result<Map<string, string>, BallotError> {
  const heading = /^\s*#{1,6}\s*(?:candidate\s+)?([A-Za-z]+)\s*:?\s*$/i;
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of answer.replace(/\r\n?/g, '\n').split('\n')) {
    const m = heading.exec(line);
    const label = m?.[1];
    if (label !== undefined && labels.includes(label) && !sections.has(label)) {
      current = [];
      sections.set(label, current);
    } else current?.push(line);
  }
  const missing = labels.filter((l) => !sections.has(l));
  if (missing.length > 0)
    return problem(
      'missing_review',
      `the review has no section for ${missing.join(', ')}; write one section per candidate, each starting with a heading like "## ${missing[0]}"`,
    );
  return ok(new Map([...sections].map(([label, body]) => [label, body.join('\n').trim()])));
}
