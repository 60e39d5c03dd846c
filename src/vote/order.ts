/**
 * Who sees what, in which order, under which labels. Counters two biases of LLM judges:
 *
 * - **Position bias**: judges pick the first-shown answer 53-63% of the time. Every voter gets
 *   its own order, drawn from the run's recorded seed, so no candidate is "first" for everyone;
 *   pairwise questions are asked in both orders (`pairwiseQuestions`).
 * - **Self-preference**: a model recognises and favours its own text. A voter that is a candidate
 *   never sees its own candidate (recusal is structural: it is not in the view, so it has no
 *   label to rank); a jury voter sees every candidate.
 *
 * Labels are A, B, C… in the order the voter is shown them, assigned per voter: "A" for one
 * voter is a different candidate from "A" for another, so a label carries nothing across
 * voters (and cannot be used to coordinate). The seed makes all of it reproducible: the same
 * seed, candidates and voters always give the same views, so the record only needs the seed.
 *
 * The PRNG is ours so that the order does not depend on Node's version: `xmur3` hashes
 * `seed + "\0" + voter id` into four 32-bit words, which seed `sfc32` (Chris Doty-Humphrey's
 * Small Fast Counter, the generator PractRand finds no fault in at these sizes); the first 15
 * outputs are dropped to mix the state. Shuffles are Fisher-Yates.
 */
import type { VoterRef } from './types.js';

/** xmur3: a string hash that yields as many 32-bit words as asked for. */
function xmur3(text: string): () => number {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return h >>> 0;
  };
}

/** A deterministic generator of numbers in [0, 1) from a string seed (sfc32 over xmur3). */
export function seededRandom(seed: string): () => number {
  const hash = xmur3(seed);
  let a = hash();
  let b = hash();
  let c = hash();
  let d = hash();
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0; // sfc32: a + b + counter, then counter++
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** A new array with the items in a random order from `random` (Fisher-Yates). */
export function seededShuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A, B, … Z, then AA, AB… (a jury of 27 candidates is unlikely, but a label must never repeat). */
export function labelAt(index: number): string {
  let n = index;
  let label = '';
  do {
    label = String.fromCharCode(65 + (n % 26)) + label;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return label;
}

export interface LabelledCandidate {
  readonly label: string;
  readonly candidate: string;
}

/** What one voter is shown: the candidates it may vote for, in its order, with its labels. */
export interface VoterView {
  readonly voter: string;
  /** Its own candidate, left out of `shown`; absent for a jury voter. */
  readonly recused?: string;
  readonly shown: readonly LabelledCandidate[];
}

/** The sub-seed of one voter: the record keeps only the run's seed. */
function voterSeed(seed: string, voter: string, purpose: string): string {
  return `${seed}\u0000${voter}\u0000${purpose}`;
}

/**
 * Every voter's view. `candidates` are the eligible ones, in any fixed order (the plan's);
 * the order they come in does not change which candidate a voter sees first beyond being the
 * starting point of the shuffle, so the wiring must pass them in the same order on a replay.
 */
export function voterViews(seed: string, candidates: readonly string[], voters: readonly VoterRef[]): VoterView[] {
  return voters.map((voter) => {
    const recused = voter.candidate !== undefined && candidates.includes(voter.candidate) ? voter.candidate : undefined;
    const visible = candidates.filter((c) => c !== recused);
    const order = seededShuffle(visible, seededRandom(voterSeed(seed, voter.id, 'order')));
    const shown = order.map((candidate, i) => ({ label: labelAt(i), candidate }));
    return recused === undefined ? { voter: voter.id, shown } : { voter: voter.id, recused, shown };
  });
}

export function candidateForLabel(view: VoterView, label: string): string | undefined {
  return view.shown.find((s) => s.label === label)?.candidate;
}

export function labelForCandidate(view: VoterView, candidate: string): string | undefined {
  return view.shown.find((s) => s.candidate === candidate)?.label;
}

/** Labels (as parsed from a ballot, which checked they are this voter's) to candidate ids. */
export function deanonymiseRanking(view: VoterView, labels: readonly string[]): string[] {
  return labels.map((label) => {
    const candidate = candidateForLabel(view, label);
    if (candidate === undefined) throw new Error(`bug: label ${label} is not in voter ${view.voter}'s view`);
    return candidate;
  });
}

/** One pairwise question: `first` is shown first. */
export interface PairQuestion {
  readonly first: LabelledCandidate;
  readonly second: LabelledCandidate;
}

/**
 * The pairwise questions of one voter: every pair of its candidates, once in each order, the
 * questions themselves in a seeded order so that the two orders of a pair are rarely adjacent
 * (an answer just given would anchor the next).
 */
export function pairwiseQuestions(seed: string, view: VoterView): PairQuestion[] {
  const questions: PairQuestion[] = [];
  view.shown.forEach((x, i) => {
    for (const y of view.shown.slice(i + 1)) questions.push({ first: x, second: y }, { first: y, second: x });
  });
  return seededShuffle(questions, seededRandom(voterSeed(seed, view.voter, 'pairs')));
}
