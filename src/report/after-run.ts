/**
 * What happens to a run after it has finished, recorded like everything else: an event appended
 * to its log, then state.json and the reports (report.json, report.md, report.html) rewritten
 * from the fold of the whole log. The run's own record writer is closed by then (`bestof
 * show`), or done with the run (`bestof run` waits in the compare view before it closes it,
 * and writes nothing more), so nothing else writes these files meanwhile. Today the one such
 * event is the compare view's winner.chosen.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../engine/record/events.js';
import { REPORT_HTML_FILE, STATE_FILE } from '../engine/record/run-folder.js';
import type { RunState } from '../engine/record/run-state.js';
import { appendEvent, foldEventLog } from './event-log.js';
import { writeRunHtml } from './html/write-run-html.js';
import { writeReports } from './report-files.js';
import { writeFileAtomic } from './state-file.js';

/** Appends `event` to the run's log and rewrites its snapshot and reports; returns the new state. */
export async function recordAfterRun(runDir: string, event: RunEvent): Promise<RunState> {
  let state = await appendAndRewrite(runDir, event);
  const html = await writeRunHtml(runDir, state);
  if (!html.ok) {
    // An HTML page that names the old winner would be wrong: it goes, and the record says why
    // (a run warning, in report.md and report.json).
    rmSync(join(runDir, REPORT_HTML_FILE), { force: true, recursive: true });
    state = await appendAndRewrite(runDir, {
      t: new Date().toISOString(),
      type: 'run.warning',
      message: `${html.error}; \`bestof show ${state.runId} --html\` writes it again`,
    });
  }
  return state;
}

async function appendAndRewrite(runDir: string, event: RunEvent): Promise<RunState> {
  appendEvent(runDir, event);
  // The fold of the log, not the caller's state plus the event: the log is the record, and every
  // view of the run (state.json, the reports, `ls`, `show`) is a fold of it.
  const state = await foldEventLog(runDir);
  writeFileAtomic(join(runDir, STATE_FILE), JSON.stringify(state, null, 2));
  writeReports(runDir, state);
  return state;
}
