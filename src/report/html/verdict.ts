/**
 * The verdict of a run in one sentence, with the rule that decided it: the order of
 * src/engine/select/select.ts (eligibility, then the vote's combined ranking when a vote decided, then
 * the distinguishing tests when they decided, then the score, then the spec's tie-breaks, then the candidate order), or the user's choice in the
 * compare view (winner.chosen). Candidates flagged for changing frozen paths are named after it.
 */
import { chosenByUser, type RunState } from '../../engine/record/run-state.js';
import type { RankEntry } from '../../engine/record/run-types.js';
import { listFew } from '../../engine/words.js';
import type { TieBreak } from '../../spec/schema.js';

/** Which rule decided: what the tests and the page's styling key on. */
export type VerdictRule = 'running' | 'no-winner' | 'chosen' | 'vote' | 'distinguish' | 'only-eligible' | 'score' | 'tie-break' | 'order';

/** Why the run's winner won (or why there is none), for report.html: not a review's verdict (src/engine/select/review.ts). */
export interface RunVerdict {
  readonly rule: VerdictRule;
  /** The winner, when there is one. */
  readonly winner?: string;
  /** One sentence: who won and why, then who was flagged. */
  readonly sentence: string;
}

/** The spec's default `select.tie_break` (src/spec/schema.ts): what a report uses when it cannot read the run's spec. */
export const DEFAULT_TIE_BREAK: readonly TieBreak[] = ['score', 'cost', 'diff_size', 'duration'];

const MAX_LISTED = 3;

const listed = (items: readonly string[]): string => listFew(items, MAX_LISTED);

const num = (n: number): string => String(Math.round(n * 1000) / 1000);
const usd = (n: number): string => `$${n.toFixed(4)}`;

function frozenPaths(state: RunState, id: string): string[] {
  return (state.candidates[id]?.tampered ?? []).filter((p) => (p.rule ?? 'frozen') === 'frozen').map((p) => p.path);
}

/** "c1 flagged for editing test/add.test.js": every candidate that changed a frozen path. */
export function flaggedClauses(state: RunState): string[] {
  return state.order.flatMap((id) => {
    const frozen = frozenPaths(state, id);
    return frozen.length > 0 ? [`${id} flagged for editing ${listed(frozen)}`] : [];
  });
}

/** How one tie-break key compares two ranked candidates, as select.ts does (lower is better but for votes). */
function separatedBy(key: TieBreak, a: RankEntry, b: RankEntry): string | undefined {
  switch (key) {
    case 'score':
      return a.score !== b.score ? `score ${num(a.score)} vs ${num(b.score)}` : undefined;
    case 'cost':
      // An unknown cost ranks after every known one (select.ts) and is never shown as a number.
      if ((a.costKnown === false) !== (b.costKnown === false)) return a.costKnown === false ? 'cost unknown vs known' : `cost ${usd(a.costUsd)} vs unknown`;
      if (a.costKnown === false) return undefined;
      return a.costUsd !== b.costUsd ? `cost ${usd(a.costUsd)} vs ${usd(b.costUsd)}` : undefined;
    case 'diff_size':
      return a.diffSize !== b.diffSize ? `diff size ${a.diffSize} vs ${b.diffSize} lines` : undefined;
    case 'duration':
      return a.durationMs !== b.durationMs ? `duration ${(a.durationMs / 1000).toFixed(1)}s vs ${(b.durationMs / 1000).toFixed(1)}s` : undefined;
    case 'iterations':
      return a.iterations !== b.iterations ? `iterations ${a.iterations} vs ${b.iterations}` : undefined;
    case 'votes':
      return a.vote !== undefined && b.vote !== undefined && a.vote !== b.vote ? `vote score ${num(a.vote)} vs ${num(b.vote)}` : undefined;
    default: {
      const unreachable: never = key;
      return unreachable;
    }
  }
}

/**
 * How the distinguishing tests put `win` before `next`, when they did: the step decided with tests
 * that counted, ranked `win` first and `next` among the finalists, and the selection's pick was
 * theirs. "on the distinguishing tests: passed 7 of 8 distinguishing tests, c1 passed 4".
 */
function distinguishedBy(state: RunState, win: RankEntry, next: RankEntry): string | undefined {
  const r = state.distinguish?.result;
  if (!r || r.kept.length === 0 || r.order[0] !== win.candidate || !r.order.includes(next.candidate)) return undefined;
  if (state.picks !== undefined && state.picks.distinguish !== win.candidate) return undefined;
  const said = `${win.candidate} won`;
  return `on the distinguishing tests${r.decided.startsWith(said) ? r.decided.slice(said.length) : `: ${r.decided}`}`;
}

/** Why the run's own selection put `win` before `next`. */
function policyRule(state: RunState, win: RankEntry, next: RankEntry | undefined, tieBreak: readonly TieBreak[]): { rule: VerdictRule; why: string } {
  if (next === undefined || !next.eligible) {
    const others = state.ranking.filter((r) => r.candidate !== win.candidate);
    // A candidate flagged for frozen paths is named after the sentence (withFlags), not twice.
    const reasons = others.filter((r) => frozenPaths(state, r.candidate).length === 0).map((r) => `${r.candidate}: ${r.reason ?? 'not eligible'}`);
    const score = `score ${num(win.score)} of ${num(win.maxScore)}`;
    const why =
      others.length === 0
        ? `as the only candidate (${score})`
        : `as the only candidate that could win (${[score, ...(reasons.length > 0 ? [listed(reasons)] : [])].join('; ')})`;
    return { rule: 'only-eligible', why };
  }
  if (win.combined !== undefined && next.combined !== undefined && win.combined !== next.combined) {
    const weight = state.vote?.weight;
    return {
      rule: 'vote',
      why: `on the vote's combined ranking: ${num(win.combined)} vs ${num(next.combined)} for ${next.candidate} (checks ${num(win.score)} vs ${num(next.score)}, votes ${num(win.vote ?? 0)} vs ${num(next.vote ?? 0)}${weight === undefined ? '' : `, weight ${num(weight)}`})`,
    };
  }
  const distinguished = distinguishedBy(state, win, next);
  if (distinguished !== undefined) return { rule: 'distinguish', why: distinguished };
  if (win.score !== next.score) return { rule: 'score', why: `on score ${num(win.score)} vs ${num(next.score)} for ${next.candidate}` };
  for (const key of tieBreak.filter((k) => k !== 'score')) {
    const by = separatedBy(key, win, next);
    if (by !== undefined) return { rule: 'tie-break', why: `on a tie at score ${num(win.score)} with ${next.candidate}, broken by ${by}` };
  }
  return { rule: 'order', why: `on a tie with ${next.candidate} that no tie-break separates: it comes first in the spec's order` };
}

function withFlags(state: RunState, sentence: string): string {
  const flags = flaggedClauses(state);
  return `${[sentence, ...flags].join('; ')}.`;
}

/** The verdict of a run: who won, and the rule that decided, in one sentence. */
export function runVerdict(state: RunState, tieBreak: readonly TieBreak[] = DEFAULT_TIE_BREAK): RunVerdict {
  const winner = state.winner;
  if (state.status === 'running')
    return { rule: 'running', sentence: withFlags(state, 'No verdict: the run has not finished (or was interrupted before it could)') };
  if (winner === undefined) {
    const reasons = state.ranking.map((r) => `${r.candidate}: ${r.reason ?? 'not chosen'}`);
    const why = reasons.length > 0 ? `no candidate could win (${listed(reasons)})` : (state.message ?? state.status);
    return { rule: 'no-winner', sentence: withFlags(state, `No winner: ${why}`) };
  }
  const chosen = state.chosen;
  if (chosen?.ok && chosen.candidate === winner) return { rule: 'chosen', winner, sentence: withFlags(state, `${winner} won: ${chosenByUser(chosen)}`) };
  const at = state.ranking.findIndex((r) => r.candidate === winner);
  const win = state.ranking[at];
  if (win === undefined)
    return { rule: 'order', winner, sentence: withFlags(state, `${winner} won${state.selectionMessage ? `: ${state.selectionMessage}` : ''}`) };
  const next = state.ranking.find((r, i) => i !== at && r.eligible) ?? state.ranking.find((_r, i) => i !== at);
  const { rule, why } = policyRule(state, win, next, tieBreak);
  return { rule, winner, sentence: withFlags(state, `${winner} won ${why}`) };
}
