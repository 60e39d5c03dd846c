/**
 * One line per vote event for the plain output (./plain-reporter.ts calls this for the
 * `vote.*` events), saying what happened and, for a call that did not count, why.
 */
import type { EventOf } from '../engine/record/events.js';
import { plural } from '../engine/words.js';

export type VoteEvent = EventOf<'vote.started'> | EventOf<'vote.call'> | EventOf<'vote.finished'> | EventOf<'vote.skipped'>;

export function voteEventLine(event: VoteEvent): string {
  switch (event.type) {
    case 'vote.started':
      return `vote (${event.method}, weight ${event.weight}, seed ${event.seed}): ${event.voters.map((v) => v.id).join(', ')} judge ${event.eligible.join(', ')}, blind`;
    case 'vote.call': {
      const what = event.purpose === 'pair' ? `pair ${event.first} / ${event.second}` : event.purpose;
      if (event.error !== undefined) return `vote ${event.voter} ${what}: not counted (${event.error})`;
      const said = event.ranking
        ? event.ranking.join(' > ')
        : event.verdict
          ? 'winner' in event.verdict
            ? `${event.verdict.winner} better`
            : 'tie'
          : plural(Object.keys(event.reviews ?? {}).length, 'review');
      const how = event.reused ? ' (answered before the interruption, from the record)' : event.answers.length > 1 ? ' (asked twice)' : '';
      return `vote ${event.voter} ${what}: ${said}${how}`;
    }
    case 'vote.finished':
      return event.message;
    case 'vote.skipped':
      return event.message;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
