/**
 * Text that agents and check commands wrote, put into report.md so that it cannot change the
 * page's shape: a table cell it cannot end, a fenced block it cannot close. Control characters are
 * made printable over the whole report at its end (src/printable.ts), not here.
 */

/** A table cell: a `|` would start the next cell, a newline (a CR too: report.md's last step reads it as one) would end the row. */
export const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r\n?|\n/g, ' ');

/** Lines in a fenced block whose fence is longer than any run of backticks in them, so that they cannot close it. */
export function fenced(lines: readonly string[]): string[] {
  const fence = '`'.repeat(Math.max(3, ...(lines.join('\n').match(/`+/g) ?? []).map((run) => run.length + 1)));
  return [fence, ...lines, fence];
}

/** The last `count` lines of an output that are not blank. */
export function lastLines(output: string, count: number): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count);
}
