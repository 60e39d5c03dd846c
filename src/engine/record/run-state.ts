/**
 * The run's state as a pure fold of its events. state.json is this state, report.json is
 * built from it, `bestof show` and `ls` read state.json (or fold events.jsonl through the same
 * reducer when it is missing), and `resume` always folds events.jsonl, so every view of a run
 * agrees with the record of what happened.
 */
import type { TamperedPath } from '../../checks/frozen.js';
import type { CandidateState, EventOf, IterationState, RunEvent, RunState } from './run-types.js';
import { costReported } from './cost-known.js';
import { chooseWinner } from './winner-choice.js';
import { reduceDistinguishEvent } from './distinguish-state.js';
import { reduceVoteEvent } from './vote-state.js';

// Read by the front ends and reports beside the state they describe (the types are declared in ./run-types.ts).
export { costIsKnown } from './cost-known.js';
export { chosenByUser } from './winner-choice.js';
export type { CandidateState, CandidateVote, IterationState, RunState, WinnerChoice } from './run-types.js';

export function initialRunState(): RunState {
  return {
    runId: '',
    name: '',
    repo: '',
    base: '',
    baseCommit: '',
    runDir: '',
    specPath: '',
    startedAt: '',
    status: 'running',
    checks: [],
    maxScore: 0,
    scoreThreshold: 0,
    maxIterations: 1,
    mergeMode: 'branch',
    order: [],
    candidates: {},
    ranking: [],
    warnings: [],
    costUsd: 0,
    voteCostUsd: 0,
    durationMs: 0,
  };
}

function updateCandidate(state: RunState, id: string, update: (c: CandidateState) => Partial<CandidateState>): RunState {
  const current = state.candidates[id];
  if (!current) return state;
  return { ...state, candidates: { ...state.candidates, [id]: { ...current, ...update(current) } } };
}

function updateIteration(c: CandidateState, iteration: number, update: (it: IterationState) => Partial<IterationState>): readonly IterationState[] {
  const existing = c.iterations.find((it) => it.iteration === iteration);
  const base: IterationState = existing ?? { iteration, checks: [], tampered: [] };
  const next = { ...base, ...update(base) };
  return existing ? c.iterations.map((it) => (it.iteration === iteration ? next : it)) : [...c.iterations, next];
}

export function reduceRunState(state: RunState, event: RunEvent): RunState {
  const next = reduceEvent(state, event);
  // A run that has not finished (or never will: it was interrupted) lasted, as far as its record
  // knows, until its last event. A choice made after the run is not part of it.
  if (next.status !== 'running' || event.type === 'winner.chosen' || next.startedAt === '') return next;
  const durationMs = Math.max(0, Date.parse(event.t) - Date.parse(next.startedAt));
  return Number.isNaN(durationMs) || durationMs === next.durationMs ? next : { ...next, durationMs };
}

/** The events of each family, and the family's reducer: each switch is exhaustive over its family, this one over the families. */
function reduceEvent(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'run.started':
    case 'run.resumed':
    case 'run.warning':
    case 'run.stopping_others':
    case 'reference.started':
    case 'reference.finished':
    case 'run.finished':
      return reduceRunEvent(state, event);
    case 'candidate.status':
    case 'candidate.setup':
    case 'candidate.setup_progress':
    case 'candidate.provider':
    case 'candidate.activity':
    case 'candidate.waiting':
    case 'channel.received':
    case 'candidate.finished':
      return reduceCandidateEvent(state, event);
    case 'provider.finished':
    case 'candidate.committed':
    case 'check.finished':
    case 'candidate.tampered':
    case 'review.finished':
    case 'candidate.scored':
      return reduceIterationEvent(state, event);
    case 'vote.started':
    case 'vote.call':
    case 'vote.finished':
    case 'vote.skipped':
      return reduceVoteEvent(state, event);
    case 'distinguish.started':
    case 'distinguish.tester':
    case 'distinguish.cross':
    case 'distinguish.run':
    case 'distinguish.finished':
    case 'distinguish.skipped':
      return reduceDistinguishEvent(state, event);
    case 'selection.finished':
    case 'merge.started':
    case 'merge.finished':
    case 'winner.chosen':
      return reduceOutcomeEvent(state, event);
    default: {
      // Every type is handled (the compiler checks it); at run time an event of a newer bestof's,
      // which RECORD_FORMAT says an older one may ignore, leaves the state as it was.
      const unknown: never = event;
      void unknown;
      return state;
    }
  }
}

/** The state after the run's own events: its start (the header and every candidate queued), a resume, warnings, its end. */
function reduceRunEvent(
  state: RunState,
  event: EventOf<'run.started' | 'run.resumed' | 'run.warning' | 'run.stopping_others' | 'reference.started' | 'reference.finished' | 'run.finished'>,
): RunState {
  switch (event.type) {
    case 'run.started': {
      const candidates: Record<string, CandidateState> = {};
      for (const info of event.candidates) {
        candidates[info.id] = {
          ...info,
          status: 'queued',
          iteration: 0,
          score: undefined,
          maxScore: event.maxScore,
          costUsd: 0,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          commit: undefined,
          diff: { files: 0, insertions: 0, deletions: 0 },
          durationMs: 0,
          lastActivity: '',
          messages: [],
          iterations: [],
          tampered: [],
        };
      }
      return {
        ...state,
        ...(event.recordFormat !== undefined ? { recordFormat: event.recordFormat } : {}),
        runId: event.runId,
        name: event.name,
        repo: event.repo,
        base: event.base,
        baseCommit: event.baseCommit,
        runDir: event.runDir,
        specPath: event.specPath,
        startedAt: event.t,
        checks: event.checks,
        maxScore: event.maxScore,
        scoreThreshold: event.scoreThreshold,
        maxIterations: event.maxIterations,
        mergeMode: event.mergeMode,
        ...(event.intoCommit ? { intoCommit: event.intoCommit } : {}),
        ...(event.budget ? { budget: event.budget } : {}),
        order: event.candidates.map((c) => c.id),
        candidates,
      };
    }
    case 'run.resumed': {
      let next: RunState = { ...state, status: 'running', finishedAt: undefined, exitCode: undefined, message: undefined };
      for (const id of event.resumed) next = updateCandidate(next, id, () => ({ status: 'queued', reason: undefined, message: undefined }));
      return next;
    }
    case 'run.warning':
      return { ...state, warnings: [...state.warnings, event.candidate ? `${event.candidate}: ${event.message}` : event.message] };
    case 'run.stopping_others':
      // The first one counts: once it is set, no loop starts a new iteration (a resume keeps it).
      return state.stoppingOthers ? state : { ...state, stoppingOthers: { candidate: event.candidate, score: event.score, stopping: event.stopping } };
    case 'reference.started':
      return { ...state, reference: { startedAt: event.t, checks: [] } };
    case 'reference.finished':
      return {
        ...state,
        reference: {
          startedAt: state.reference?.startedAt ?? event.t,
          finishedAt: event.t,
          cached: event.cached,
          checks: event.checks,
          ...(event.error !== undefined ? { error: event.error } : {}),
        },
      };
    case 'run.finished':
      return {
        ...state,
        status: event.status,
        exitCode: event.exitCode,
        winner: event.winner ?? state.winner,
        message: event.message,
        finishedAt: event.t,
        durationMs: event.durationMs,
      };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The state after where each candidate is: its status, setup, agent CLI, activity, waits, messages, and how it finished. */
function reduceCandidateEvent(
  state: RunState,
  event: EventOf<
    | 'candidate.status'
    | 'candidate.setup'
    | 'candidate.setup_progress'
    | 'candidate.provider'
    | 'candidate.activity'
    | 'candidate.waiting'
    | 'channel.received'
    | 'candidate.finished'
  >,
): RunState {
  switch (event.type) {
    case 'candidate.status':
      return updateCandidate(state, event.candidate, (c) => ({
        status: event.status,
        iteration: event.iteration,
        phase: event.phase,
        iterations: event.iteration > 0 ? updateIteration(c, event.iteration, () => (event.phase ? { phase: event.phase } : {})) : c.iterations,
      }));
    case 'candidate.setup':
      return event.ok ? state : updateCandidate(state, event.candidate, () => ({ message: event.message }));
    case 'candidate.setup_progress':
      // The dashboard's row shows the last activity: while setting up, what setup is doing.
      return updateCandidate(state, event.candidate, () => ({ lastActivity: `setup: ${event.text}` }));
    case 'candidate.provider':
      return updateCandidate(state, event.candidate, () => ({ cli: { binary: event.binary, version: event.version, argv: event.argv, model: event.model } }));
    case 'candidate.activity':
      return updateCandidate(state, event.candidate, () => ({ lastActivity: event.text }));
    case 'candidate.waiting':
      return updateCandidate(state, event.candidate, () => ({
        lastActivity: `${event.reason === 'rate_limited' ? 'rate-limited' : 'usage limit'}: waiting ${Math.round(event.waitMs / 1000)}s`,
      }));
    case 'channel.received':
      return updateCandidate(state, event.candidate, (c) => ({ messages: [...c.messages, event.kind === 'stop' ? '(stop)' : event.text] }));
    case 'candidate.finished':
      return updateCandidate(state, event.candidate, () => ({
        status: event.status,
        reason: event.reason,
        message: event.message,
        iteration: event.iterations,
        score: event.score,
        commit: event.commit,
        diff: event.diff,
        durationMs: event.durationMs,
      }));
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The state after what an iteration of a candidate produced: its agent call, commit, checks, frozen paths, review and score. */
function reduceIterationEvent(
  state: RunState,
  event: EventOf<'provider.finished' | 'candidate.committed' | 'check.finished' | 'candidate.tampered' | 'review.finished' | 'candidate.scored'>,
): RunState {
  switch (event.type) {
    case 'provider.finished': {
      const known = costReported(event, state.candidates[event.candidate]?.provider);
      const next = updateCandidate(state, event.candidate, (c) => ({
        costUsd: c.costUsd + event.costUsd,
        ...(known ? {} : { costKnown: false }),
        usage: {
          input: c.usage.input + event.usage.input,
          output: c.usage.output + event.usage.output,
          cacheRead: c.usage.cacheRead + event.usage.cacheRead,
          cacheWrite: c.usage.cacheWrite + event.usage.cacheWrite,
        },
        iterations: updateIteration(c, event.iteration, (it) => ({
          outcome: event.outcome,
          providerMessage: event.message,
          costUsd: (it.costUsd ?? 0) + event.costUsd,
          ...(known ? {} : { costKnown: false }),
        })),
      }));
      return { ...next, costUsd: next.costUsd + event.costUsd, ...(known ? {} : { costKnown: false }) };
    }
    case 'candidate.committed':
      return updateCandidate(state, event.candidate, (c) => ({
        commit: event.commit,
        iterations: updateIteration(c, event.iteration, () => ({ commit: event.commit })),
      }));
    case 'check.finished':
      return updateCandidate(state, event.candidate, (c) => ({
        iterations: updateIteration(c, event.iteration, (it) => ({ checks: [...it.checks.filter((k) => k.name !== event.check.name), event.check] })),
      }));
    case 'candidate.tampered': {
      // Events of runs before `[checks] editable` carry no rule: every change they report was frozen.
      const paths = event.paths.map((p) => ({ ...p, rule: p.rule ?? 'frozen' }));
      return updateCandidate(state, event.candidate, (c) => ({
        tampered: mergeTampered(c.tampered, paths),
        // An iteration can be reported more than once (its agent's call, its checks, its review, the final scoring).
        iterations: updateIteration(c, event.iteration, (it) => ({ tampered: mergeTampered(it.tampered, paths) })),
      }));
    }
    case 'review.finished':
      return updateCandidate(state, event.candidate, (c) => ({
        iterations: updateIteration(c, event.iteration, () => ({ review: { verdict: event.verdict, reason: event.reason, points: event.points } })),
      }));
    case 'candidate.scored':
      return updateCandidate(state, event.candidate, (c) => ({
        score: event.score,
        maxScore: event.maxScore,
        iterations: event.final ? c.iterations : updateIteration(c, event.iteration, () => ({ score: event.score })),
        ...(event.final ? { finalScored: true } : {}),
      }));
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The state after how the run ended for the user's branch: the selection, the merge, and a winner the user chose after the run. */
function reduceOutcomeEvent(state: RunState, event: EventOf<'selection.finished' | 'merge.started' | 'merge.finished' | 'winner.chosen'>): RunState {
  switch (event.type) {
    case 'selection.finished':
      return { ...state, ranking: event.ranking, winner: event.winner, selectionMessage: event.message, ...(event.picks ? { picks: event.picks } : {}) };
    case 'merge.started':
      return {
        ...state,
        mergeStarted: {
          candidate: event.candidate,
          mode: event.mode,
          commit: event.commit,
          ...(event.into !== undefined ? { into: event.into } : {}),
          ...(event.intoBefore !== undefined ? { intoBefore: event.intoBefore } : {}),
        },
      };
    case 'merge.finished':
      return {
        ...state,
        merge: {
          candidate: event.candidate,
          mode: event.mode,
          ok: event.ok,
          commit: event.commit,
          branch: event.branch,
          message: event.message,
          ...(event.onto ? { onto: event.onto } : {}),
        },
      };
    case 'winner.chosen':
      return chooseWinner(state, event);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function mergeTampered(existing: readonly TamperedPath[], added: readonly TamperedPath[]): readonly TamperedPath[] {
  const byPath = new Map(existing.map((p) => [p.path, p]));
  for (const p of added) byPath.set(p.path, p);
  return [...byPath.values()];
}

export function foldEvents(events: readonly RunEvent[]): RunState {
  return events.reduce(reduceRunState, initialRunState());
}

/** Candidates lost to a failure of git or bestof during setup: not beaten, and not the spec's fault. */
export function lostCandidates(state: RunState): string[] {
  return state.order.filter((id) => state.candidates[id]?.reason === 'infrastructure_failed');
}
