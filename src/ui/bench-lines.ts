/**
 * `bestof bench` without a terminal (CI, a pipe, --json): one line per finished trial, with how
 * many of the slice are done, and a line when the bench starts and ends.
 */
import type { BenchEvent } from '../bench/events.js';
import type { TrialRecord } from '../bench/types.js';
import { plural } from '../engine/words.js';
import { printable } from '../printable.js';
import { UNKNOWN_COST } from './format/numbers.js';

export function createBenchPlainReporter(write: (line: string) => void): (event: BenchEvent) => void {
  let total = 0;
  let done = 0;
  return (event) => {
    switch (event.type) {
      case 'bench.started': {
        total = event.cells.length;
        done = event.done.length;
        const { tasks, agents, trials } = event.matrix;
        const slice = event.shard
          ? ` (shard ${event.shard.index}/${event.shard.count}: ${total} of ${plural(tasks.length * agents.length * trials, 'trial')})`
          : '';
        const resumed = done > 0 ? `; ${done} recorded before, kept` : '';
        write(
          `bench ${event.bench}${slice}: ${plural(tasks.length, 'task')} x ${plural(agents.length, 'agent')} x ${plural(trials, 'trial')}, ${event.concurrency} at a time${resumed}; results in ${event.outDir}\n`,
        );
        return;
      }
      case 'trial.started':
        return;
      case 'trial.finished':
        done += 1;
        write(`[${done}/${total}] ${trialLine(event.record)}\n`);
        return;
      case 'bench.finished':
        if (event.cancelled) write(`bench cancelled after ${done} of ${plural(total, 'trial')}: the rest are recorded "not run"; go on with --resume\n`);
        return;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  };
}

/** One trial in words; its infra reason can hold what a setup command or an agent printed, so the line is printable. */
export function trialLine(r: TrialRecord): string {
  return printable(trialWords(r));
}

function trialWords(r: TrialRecord): string {
  const cell = `${r.task}/${r.agent}#${r.trial}`;
  if (r.infra) return `${cell}: infra failure, left out of the rates: ${r.infraReason ?? r.outcome.reason}`;
  // A cost no agent call reported (a command agent) is "–", never $0.00.
  const money = `${r.costKnown === false ? UNKNOWN_COST : `$${r.costUsd.toFixed(2)}`}, ${Math.round(r.durationMs / 1000)}s`;
  // The words of the bench's reports (src/bench/format.ts's tamperedWords, which the UI may not import).
  const cheat = r.tampered && r.tampered.length > 0 ? `, tampered: ${plural(r.tampered.length, 'frozen path')}, first ${r.tampered[0]}` : '';
  const verdict = `${r.resolved ? 'resolved' : 'not resolved'}${cheat}`;
  return `${cell}: ${verdict} (score ${r.score}/${r.maxScore}, ${r.iterations} iteration(s), ${money}, run ${r.runId})${oracleWords(r)}`;
}

/** `; oracle: 1 of 3 candidates pass; tie_break picked c2 ✗`, when the task has an oracle. */
function oracleWords(r: TrialRecord): string {
  if (!r.oracle) return '';
  const passing = r.oracle.candidates.filter((c) => c.passed).length;
  const picks = r.oracle.picks.map((p) => `${p.selection} picked ${p.candidate ?? 'no one'} ${p.passes ? '✓' : '✗'}`);
  return `; oracle: ${passing} of ${r.oracle.candidates.length} candidates pass${picks.length > 0 ? `; ${picks.join(', ')}` : ''}`;
}
