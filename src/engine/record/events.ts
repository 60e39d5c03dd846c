/**
 * RunEvent: the one stream that flows from the engine to every front end (the Ink UI,
 * the plain reporter, the event log). Every step of a run emits exactly one event; the
 * event log is the record of what happened, and state.json / report.json are folds of it
 * (./run-state.ts). The types are declared in ./run-types.ts, with the state's; this module
 * says the record's format and names the event types for the modules that emit or read them.
 */
export type {
  CandidateInfo,
  CandidateStatus,
  EventOf,
  MergeOnto,
  RunEvent,
  RunEventListener,
  RunEventType,
  RunHeader,
  RunStatus,
  UnstampedEvent,
} from './run-types.js';

/**
 * The format of a run's record (events.jsonl, and state.json folded from it), said in its
 * run.started. Raise it when a change makes an older bestof misread a run (an event it would fold
 * wrongly, a field it would need and not find): that bestof then refuses to resume, send to, attach
 * to or clean the run, which it would act on without understanding it, and `ls` and `show` say whose
 * it is (src/cli/run-lookup.ts). A new event or field that an older bestof can ignore needs no new
 * format. Runs recorded before the number existed are format 1.
 */
export const RECORD_FORMAT = 1;
