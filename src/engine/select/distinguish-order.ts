/**
 * The distinguish step's ranking applied to the selection's (pure): the finalists that can still
 * win take the places they hold in the ranking, in the step's order (../../distinguish/rank.ts),
 * each with the generated tests it passed. Everyone else keeps their place. A finalist that git's
 * evidence made ineligible since (its ref moved) is left where the ranking put it.
 */
import type { DistinguishResult, DistinguishWhen } from '../../distinguish/types.js';
import type { RankEntry } from '../record/run-types.js';

export function applyDistinguish(ranking: readonly RankEntry[], result: DistinguishResult | undefined): RankEntry[] {
  if (!result || result.kept.length === 0) return [...ranking];
  const place = new Map(result.order.map((id, i) => [id, i]));
  const isFinalist = (r: RankEntry): boolean => r.eligible && place.has(r.candidate);
  const finalists = ranking.filter(isFinalist).sort((a, b) => (place.get(a.candidate) ?? 0) - (place.get(b.candidate) ?? 0));
  let next = 0;
  const reordered = ranking.map((r) => (isFinalist(r) ? (finalists[next++] as RankEntry) : r));
  return reordered.map((r, i) => ({
    ...r,
    rank: i + 1,
    ...(place.has(r.candidate) ? { distinguish: { passed: result.passed[r.candidate] ?? 0, of: result.kept.length } } : {}),
  }));
}

/**
 * The finalists of the step, from the ranking before it (score, then `tie_break`): the candidates
 * that can win; with `when = "tie"` those sharing the top score, with `"always"` the top ones,
 * whatever their scores; at most `max`.
 */
export function chooseFinalists(ranking: readonly RankEntry[], when: DistinguishWhen, max: number): string[] {
  const eligible = ranking.filter((r) => r.eligible);
  const top = eligible[0]?.score;
  return (when === 'tie' ? eligible.filter((r) => r.score === top) : eligible).slice(0, max).map((r) => r.candidate);
}
