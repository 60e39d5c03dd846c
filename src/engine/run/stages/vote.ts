/**
 * Vote: cross-review and the anonymous vote, between final scoring and selection (`[vote]`).
 * The arithmetic is the pure core's (src/vote/, see docs/design/vote.md); this stage gathers
 * the material, asks the voters and records everything as `vote.*` events:
 *
 *   who is in     the candidates that can win (select.ts, without git's evidence); fewer than 2: skipped
 *   seed          `[vote] seed`, or the one recorded before an interruption, or a new random one
 *   materials     diff or `output_file`, formatted, cut, normalised (../../vote/materials.ts)
 *   voters        every candidate whose agent ran (recused from its own), or the jury (../../vote/voters.ts)
 *   budget        the most calls the vote may make, at this run's cost per call so far, against `[budget]`
 *   vote.started  the seed, the views (which label stood for which candidate, per voter), the materials
 *   reuse         on resume, the answers the interrupted vote recorded about the same prompts (../../vote/reuse.ts)
 *   per voter     cross-review (when asked), then the ballot or the pair questions; each answer that
 *                 cannot be read is asked once more, then discarded and the voter recorded as missing
 *   vote.finished the tally, the combined ranking, the statistics, the close call (../../../vote/decide.ts)
 *
 * Every prompt is scanned for names of providers, models, branches, the run, paths and session
 * ids before it is sent; a leak fails the vote (selection ranks by checks alone) rather than let
 * a voter see whose work it judges. A voter whose call fails is a missing voter, never an
 * exception. With `show_reviews` the voters run one after another in a seeded order and each
 * sees the earlier voters' reviews, relabelled; otherwise they run side by side.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BallotError } from '../../../vote/ballot.js';
import { parsePairVerdict, parseRanking, parseReviews } from '../../../vote/ballot.js';
import { plannedVoterCalls } from '../../../vote/calls.js';
import type { MissingVoter } from '../../../vote/combine.js';
import { describeLeaks, normaliseMaterial, scanForLeaks, type AnonymiseContext } from '../../../vote/anonymise.js';
import {
  candidateForLabel,
  deanonymiseRanking,
  labelForCandidate,
  pairwiseQuestions,
  seededRandom,
  seededShuffle,
  voterViews,
  type VoterView,
} from '../../../vote/order.js';
import { crossReviewPrompt, pairwisePrompt, rankingPrompt, type EarlierReview, type ShownMaterial } from '../../../vote/prompts.js';
import type { PairJudgement, PairOutcome, RankingBallot } from '../../../vote/types.js';
import type { Result } from '../../../result.js';
import type { RunContext } from '../run-context.js';
import type { CandidateState } from '../../record/run-state.js';
import { rankCandidates } from '../../select/select.js';
import { decideVote } from '../../../vote/decide.js';
import { anonymiseContext, gatherMaterials, type Material } from '../../vote/materials.js';
import type { VoteCall, VoteStart } from '../../../vote/record.js';
import { voteDir } from '../../vote/paths.js';
import { callKey, reusableCalls, type Reuse } from '../../vote/reuse.js';
import { askVoter, closeVoters, createVoters, type Voter } from '../../vote/voters.js';
import { plural } from '../../words.js';

const CHECKS_ALONE = 'the ranking is by the checks alone';

/** A prompt that names what it must not: the vote stops. */
class LeakFound extends Error {}

export async function vote(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const spec = plan.spec.vote;
  if (!spec.enabled) return;
  const state = ctx.state();
  // What the interrupted run's vote recorded, read before this vote's vote.started replaces it.
  const earlier = ctx.resume?.vote;
  const seed = spec.seed ?? (state.vote?.seed || randomBytes(8).toString('hex'));
  const skip = (message: string): void => ctx.emit({ type: 'vote.skipped', message, seed });
  const candidates = state.order.map((id) => state.candidates[id]).filter((c): c is CandidateState => c !== undefined);
  const ranking = rankCandidates(candidates, {
    minScore: plan.spec.select.min_score,
    tieBreak: plan.spec.select.tie_break,
    allowTampered: plan.spec.select.allow_tampered,
  });
  // In the plan's order, never the ranking's (whose tie-breaks may include durations): the seed alone must reproduce the orders.
  const eligible = candidates.filter((c) => ranking.some((r) => r.eligible && r.candidate === c.id));
  const tieBreakOrder = ranking.map((r) => r.candidate);
  if (eligible.length < 2) {
    skip(`no vote: ${eligible.length === 0 ? 'no candidate can win' : `only ${eligible[0]?.id} can win`}, so there is nothing to choose between`);
    return;
  }
  const ran = plan.candidates.filter((c) => (state.candidates[c.id]?.iteration ?? 0) > 0);
  const created = await createVoters(ctx, ran);
  if (!created.ok) {
    skip(`the vote cannot start: ${created.error}; ${CHECKS_ALONE}`);
    return;
  }
  const voters = created.value;
  try {
    if (voters.length === 0) {
      skip(`no vote: no agent ran, so there is no voter; ${CHECKS_ALONE}`);
      return;
    }
    const views = voterViews(
      seed,
      eligible.map((c) => c.id),
      voters.map((v) => ({ id: v.info.id, ...(v.info.candidate !== undefined ? { candidate: v.info.candidate } : {}) })),
    );
    const unaffordable = budgetShortfall(ctx, views);
    if (unaffordable !== undefined) {
      skip(unaffordable);
      return;
    }
    const materials = await gatherMaterials(plan, eligible, ctx.signal);
    const start: VoteStart = {
      seed,
      method: spec.method,
      weight: spec.weight,
      voters: voters.map((v) => v.info),
      eligible: eligible.map((c) => c.id),
      views,
      materials: [...materials.values()].map((m) => m.info),
    };
    const reuse = reusableCalls(earlier, start, plan.sandbox.enabled);
    ctx.emit({ type: 'vote.started', ...start });
    if (earlier && 'none' in reuse) ctx.emit({ type: 'run.warning', message: `the vote starts again and asks every voter anew: ${reuse.none}` });
    const outcome = await castVotes(ctx, voters, views, materials, seed, reuse);
    if (ctx.signal.aborted) return;
    const result = decideVote({
      seed,
      method: spec.method,
      weight: spec.weight,
      candidates: eligible.map((c) => ({ id: c.id, checkScore: c.score ?? 0 })),
      tieBreakOrder,
      ballots: outcome.ballots,
      judgements: outcome.judgements,
      missingVoters: outcome.missing,
      lengths: new Map([...materials.values()].map((m) => [m.info.candidate, m.info.length])),
    });
    const winner = result.combined.winner ?? '';
    const close = result.closeCall?.tooClose ? `; too close to call (by checks alone: ${result.checksOnly.join(', ')})` : '';
    const degraded = result.combined.degraded ? `; degraded: ${outcome.missing.map((m) => `${m.voter} ${m.reason}`).join('; ')}` : '';
    ctx.emit({
      type: 'vote.finished',
      result,
      message: `vote (${spec.method}, weight ${spec.weight}): ${result.combined.entries.map((e) => e.candidate).join(' > ')}, ${winner} first${close}${degraded}`,
    });
  } catch (error) {
    if (!(error instanceof LeakFound)) throw error;
    ctx.emit({ type: 'run.warning', message: error.message });
    skip(error.message);
  } finally {
    await closeVoters(voters);
  }
}

/**
 * Why the vote cannot be paid for, or undefined. A call's price is not known before it is made:
 * the estimate is the run's cost per agent call so far, times the most calls the vote may make.
 */
function budgetShortfall(ctx: RunContext, views: readonly VoterView[]): string | undefined {
  const cap = ctx.plan.spec.budget.max_total_cost_usd;
  if (cap === undefined) return undefined;
  const planned = plannedVoterCalls(views, { method: ctx.plan.spec.vote.method, crossReview: ctx.plan.spec.vote.cross_review });
  const state = ctx.state();
  const calls = Object.values(state.candidates).reduce((n, c) => n + c.iterations.filter((it) => it.outcome !== undefined).length, 0);
  const perCall = calls > 0 ? ctx.budget.total / calls : 0;
  const left = cap - ctx.budget.total;
  const needed = perCall * planned.atMost;
  if (left > 0 && needed <= left) return undefined;
  return (
    `the vote is skipped: it may make up to ${planned.atMost} voter calls (${planned.expected} if every answer reads the first time), about $${needed.toFixed(2)} at this run's $${perCall.toFixed(2)} per agent call, ` +
    `and [budget] max_total_cost_usd = $${cap.toFixed(2)} has $${Math.max(0, left).toFixed(2)} left; ${CHECKS_ALONE}. Raise max_total_cost_usd, or name a cheaper jury in [vote] voters`
  );
}

interface Cast {
  readonly ballots: RankingBallot[];
  readonly judgements: PairJudgement[];
  readonly missing: MissingVoter[];
}

async function castVotes(
  ctx: RunContext,
  voters: readonly Voter[],
  views: readonly VoterView[],
  materials: ReadonlyMap<string, Material>,
  seed: string,
  reuse: Reuse,
): Promise<Cast> {
  const spec = ctx.plan.spec.vote;
  const cast: Cast = { ballots: [], judgements: [], missing: [] };
  const anonymise = anonymiseContext(ctx.plan);
  /** Reviews so far, by reviewed candidate: shown to later voters with `show_reviews`. */
  const reviews: { voter: string; candidate: string; text: string }[] = [];
  const halt: Halt = {};
  // With `show_reviews`, a voter's prompt holds the reviews written before it: once one call is
  // asked anew, the later prompts may differ from the recorded ones, so nothing after it is reused.
  const record: RecordedAnswers = { calls: 'calls' in reuse ? reuse.calls : new Map(), stopAtFirstFresh: spec.show_reviews };
  const one = async (voter: Voter, view: VoterView): Promise<void> => {
    const asker = new Asker(ctx, voter, anonymise, halt, record);
    const shown: ShownMaterial[] = view.shown.map((s) => {
      const m = materials.get(s.candidate) as Material;
      return { label: s.label, material: m.text, checks: m.info.checks };
    });
    const labels = view.shown.map((s) => s.label);
    // Earlier reviews of the candidates this voter sees, relabelled; never of its own (it sees none of its own).
    const earlier: EarlierReview[] = spec.show_reviews
      ? reviews
          .filter((r) => r.voter !== voter.info.id)
          .flatMap((r) => {
            const label = labelForCandidate(view, r.candidate);
            return label === undefined ? [] : [{ label, text: r.text }];
          })
      : [];
    if (spec.cross_review && shown.length > 0) {
      const recorded = asker.recorded('review');
      if (recorded?.reviews) {
        emitCall(ctx, { ...recorded, reused: true });
        for (const [candidate, text] of Object.entries(recorded.reviews)) reviews.push({ voter: voter.info.id, candidate, text });
      } else {
        const answer = await asker.ask('review', crossReviewPrompt({ task: ctx.plan.prompt, shown, earlierReviews: earlier }), (text) =>
          parseReviews(text, labels),
        );
        const byCandidate: { [candidate: string]: string } = {};
        for (const [label, text] of answer.value ?? new Map<string, string>()) {
          const candidate = candidateForLabel(view, label);
          if (candidate !== undefined) byCandidate[candidate] = text;
        }
        emitCall(ctx, {
          voter: voter.info.id,
          purpose: 'review',
          answers: answer.answers,
          costUsd: answer.costUsd,
          ...(answer.error ? { error: answer.error } : { reviews: byCandidate }),
        });
        if (answer.value) for (const [candidate, text] of Object.entries(byCandidate)) reviews.push({ voter: voter.info.id, candidate, text });
      }
    }
    if (ctx.signal.aborted) return;
    if (spec.method === 'pairwise') {
      await pairBallots(ctx, asker, view, shown, seed, cast);
      return;
    }
    if (shown.length < 2) return; // a ballot of one candidate counts for nothing (src/vote/tally.ts)
    const recorded = asker.recorded('ranking');
    if (recorded?.ranking) {
      emitCall(ctx, { ...recorded, reused: true });
      cast.ballots.push({ voter: voter.info.id, ranking: recorded.ranking });
      return;
    }
    const answer = await asker.ask('ranking', rankingPrompt({ task: ctx.plan.prompt, shown, reviews: earlier }), (text) => parseRanking(text, { labels }));
    const ranking = answer.value ? deanonymiseRanking(view, answer.value) : undefined;
    emitCall(ctx, {
      voter: voter.info.id,
      purpose: 'ranking',
      answers: answer.answers,
      costUsd: answer.costUsd,
      ...(ranking ? { ranking } : { error: answer.error ?? 'no answer' }),
    });
    if (ranking) cast.ballots.push({ voter: voter.info.id, ranking });
    else cast.missing.push({ voter: voter.info.id, reason: answer.error ?? 'no answer' });
  };
  const pairs = voters.map((voter, i) => ({ voter, view: views[i] as VoterView }));
  if (spec.show_reviews) {
    for (const { voter, view } of seededShuffle(pairs, seededRandom(`${seed}\u0000voters`))) {
      if (ctx.signal.aborted) break;
      await one(voter, view);
    }
  } else {
    // Under `[parallel] max_concurrency`, like the candidates and the final scoring.
    // Every voter settles before a leak is reported, so that no call is still running (or recorded) after it.
    const settled = await Promise.allSettled(pairs.map(({ voter, view }) => ctx.queue.add(() => one(voter, view))));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }
  // Ballots in the voters' order, whatever order the calls ended in: the tally's steps read the same on every run.
  const order = new Map(voters.map((v, i) => [v.info.id, i]));
  cast.ballots.sort((a, b) => (order.get(a.voter) ?? 0) - (order.get(b.voter) ?? 0));
  cast.judgements.sort((a, b) => (order.get(a.voter) ?? 0) - (order.get(b.voter) ?? 0) || a.a.localeCompare(b.a) || a.b.localeCompare(b.b));
  cast.missing.sort((a, b) => (order.get(a.voter) ?? 0) - (order.get(b.voter) ?? 0));
  return cast;
}

async function pairBallots(ctx: RunContext, asker: Asker, view: VoterView, shown: readonly ShownMaterial[], seed: string, cast: Cast): Promise<void> {
  const byLabel = new Map(shown.map((s) => [s.label, s]));
  const verdicts = new Map<string, PairOutcome | undefined>();
  const failures: string[] = [];
  for (const q of pairwiseQuestions(seed, view)) {
    if (ctx.signal.aborted) return;
    const recorded = asker.recorded('pair', q.first.candidate, q.second.candidate);
    if (recorded?.verdict) {
      emitCall(ctx, { ...recorded, reused: true });
      verdicts.set(`${q.first.candidate}\u0000${q.second.candidate}`, recorded.verdict);
      continue;
    }
    const first = byLabel.get(q.first.label) as ShownMaterial;
    const second = byLabel.get(q.second.label) as ShownMaterial;
    const answer = await asker.ask('pair', pairwisePrompt({ task: ctx.plan.prompt, first, second }), (text) =>
      parsePairVerdict(text, [first.label, second.label]),
    );
    const verdict: PairOutcome | undefined =
      answer.value === undefined ? undefined : 'tie' in answer.value ? { tie: true } : { winner: candidateForLabel(view, answer.value.winner) as string };
    verdicts.set(`${q.first.candidate}\u0000${q.second.candidate}`, verdict);
    if (!verdict) failures.push(`${q.first.candidate} before ${q.second.candidate}: ${answer.error ?? 'no answer'}`);
    emitCall(ctx, {
      voter: view.voter,
      purpose: 'pair',
      first: q.first.candidate,
      second: q.second.candidate,
      answers: answer.answers,
      costUsd: answer.costUsd,
      ...(verdict ? { verdict } : { error: answer.error ?? 'no answer' }),
    });
  }
  const ids = view.shown.map((s) => s.candidate).sort();
  ids.forEach((a, i) => {
    for (const b of ids.slice(i + 1)) {
      cast.judgements.push({ voter: view.voter, a, b, aFirst: verdicts.get(`${a}\u0000${b}`), bFirst: verdicts.get(`${b}\u0000${a}`) });
    }
  });
  if (failures.length > 0) cast.missing.push({ voter: view.voter, reason: `${plural(failures.length, 'pair question')} unanswered: ${failures.join('; ')}` });
}

function emitCall(ctx: RunContext, call: VoteCall): void {
  ctx.emit({ type: 'vote.call', ...call });
}

interface Asked<T> {
  readonly answers: string[];
  readonly value?: T;
  readonly error?: string;
  readonly costUsd: number;
}

/** Set once a prompt leaked: the vote is over, and no voter is asked anything more. */
interface Halt {
  leak?: LeakFound;
}

/** The interrupted vote's counted answers (../../vote/reuse.ts), shared by every voter's Asker. */
interface RecordedAnswers {
  readonly calls: ReadonlyMap<string, VoteCall>;
  readonly stopAtFirstFresh: boolean;
  /** A call was asked anew (with `stopAtFirstFresh`: nothing more is reused). */
  fresh?: boolean;
}

/** Asks one voter, once more when the answer cannot be read; every prompt is scanned before it goes. */
class Asker {
  /** Calls made so far, folders of an interrupted run included: each call's artifacts get a folder of their own. */
  private calls: number | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly voter: Voter,
    private readonly anonymise: AnonymiseContext,
    private readonly halt: Halt,
    private readonly record: RecordedAnswers,
  ) {}

  /** The answer the interrupted vote recorded for this question, when it may be reused. */
  recorded(purpose: VoteCall['purpose'], first?: string, second?: string): VoteCall | undefined {
    if (this.record.stopAtFirstFresh && this.record.fresh) return undefined;
    return this.record.calls.get(callKey(this.voter.info.id, purpose, first, second));
  }

  async ask<T>(purpose: string, prompt: string, parse: (text: string) => Result<T, BallotError>): Promise<Asked<T>> {
    const answers: string[] = [];
    let costUsd = 0;
    let error = '';
    for (let attempt = 1; attempt <= 2; attempt++) {
      // The reason quotes the voter's answer, which may name what the material must not: normalised too.
      const asked = attempt === 1 ? prompt : `${prompt}\n\nYour previous answer could not be counted: ${normaliseMaterial(error, this.anonymise).text}.\n`;
      if (this.halt.leak) throw this.halt.leak;
      this.scan(asked);
      this.record.fresh = true;
      this.calls = (this.calls ?? (await readdir(join(voteDir(this.ctx.plan.runDir), this.voter.info.id)).catch(() => [])).length) + 1;
      const answer = await askVoter(this.ctx, this.voter, asked, `${String(this.calls).padStart(2, '0')}-${purpose}`);
      costUsd += answer.costUsd;
      if (answer.text === undefined) return { answers, error: answer.error ?? 'no answer', costUsd };
      answers.push(answer.text);
      const parsed = parse(answer.text);
      if (parsed.ok) return { answers, value: parsed.value, costUsd };
      error = parsed.error.message;
      if (this.ctx.signal.aborted) break;
    }
    return { answers, error: `${purpose === 'review' ? 'review' : 'ballot'} unparsable twice: ${error}`, costUsd };
  }

  private scan(prompt: string): void {
    const leaks = scanForLeaks(prompt, this.anonymise, { trusted: [this.ctx.plan.prompt] });
    if (leaks.length === 0) return;
    this.halt.leak = new LeakFound(
      `the vote is stopped: ${describeLeaks(leaks, this.voter.info.id)}; ${CHECKS_ALONE}. ` +
        'Set [vote] formatter to a command that removes it from the material, or report it as a bug of the anonymiser',
    );
    throw this.halt.leak;
  }
}
