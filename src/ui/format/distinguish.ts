/** The distinguish step's events as plain lines (the plain reporter, `bestof show`'s log). */
import type { DistinguishEvent } from '../../distinguish/types.js';

export function distinguishEventLine(event: DistinguishEvent): string {
  switch (event.type) {
    case 'distinguish.started':
      return `distinguish: asking a ${event.tester.kind} tester for tests that tell ${event.finalists.join(', ')} apart`;
    case 'distinguish.tester':
      if (event.error !== undefined) return `distinguish: the tester wrote no test: ${event.error}`;
      return `distinguish: the tester wrote ${event.tests.length} test file${event.tests.length === 1 ? '' : 's'}${event.reused ? ' (recorded before the interruption, reused)' : ''}${event.refused?.length ? `; left out: ${event.refused.map((r) => `${r.file} (${r.reason})`).join(', ')}` : ''}`;
    case 'distinguish.cross':
      return `distinguish: the finalists' own new test files, each run on the others: ${event.tests.length === 0 ? 'none' : event.tests.map((t) => `${t.id} ${t.path ?? t.file} (${t.author})`).join(', ')}`;
    case 'distinguish.run':
      return `distinguish: ${event.test} on ${event.target}: ${event.outcome.replace('_', ' ')}${event.reused ? ' (recorded, reused)' : ''}`;
    case 'distinguish.finished':
      return `distinguish: ${event.message}`;
    case 'distinguish.skipped':
      return `distinguish skipped: ${event.message}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
