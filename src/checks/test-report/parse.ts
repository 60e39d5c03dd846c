/**
 * A check's test report read, test by test (a `[[checks.items]]` entry's `report` key): the one
 * entry point the engine calls, over the format's parser (./junit.ts, ./tap.ts, ./go-json.ts,
 * each a pure function of the text), with the two rules every format shares: no text larger than
 * MAX_REPORT_CHARS is parsed, and a name met twice is numbered (./duplicate-names.ts).
 *
 * A report over the bound is `unreadable`, not read in part: a part would pass for the whole, and
 * every test after the cut would be judged missing for a reason the report would not say.
 */
import type { TestReportKind } from '../../spec/schema-parts.js';
import { numberDuplicates } from './duplicate-names.js';
import { readGoTestJson } from './go-json.js';
import { readJunitXml } from './junit.js';
import { readTap } from './tap.js';
import type { ParsedReport, ReportInput, TestCaseResult } from './types.js';

/**
 * Bumped whenever a parser changes the names or outcomes it reads from the same report: base's
 * tests are cached by it (src/engine/scoring/base-reference.ts), and names read by an older parser
 * would not match a candidate's read by this one (its tests would go missing).
 */
export const REPORT_PARSER_VERSION = 2;

/** The most of one report file or of stdout that is parsed, in characters (32 Mi: a report of some 100,000 tests). */
export const MAX_REPORT_CHARS = 32 * 1024 * 1024;

/** The tests the check's report gives, or why it gives none. */
export function parseTestReport(kind: TestReportKind, input: ReportInput): ParsedReport {
  const parsed = parseByKind(kind, input);
  return parsed.ok ? { ok: true, tests: numberDuplicates(parsed.tests) } : parsed;
}

function parseByKind(kind: TestReportKind, input: ReportInput): ParsedReport {
  switch (kind) {
    case 'junit':
      return readJunitFiles(input.files);
    case 'tap':
      return oversized('stdout', input.stdout) ?? readTap(input.stdout);
    case 'go-json':
      return oversized('stdout', input.stdout) ?? readGoTestJson(input.stdout);
    default: {
      const unknown: never = kind;
      throw new Error(`no parser for test reports of kind ${String(unknown)}`);
    }
  }
}

/** Every `*.xml` file of the report folder, in the order of their names, as one report. */
function readJunitFiles(files: ReportInput['files']): ParsedReport {
  const xmlFiles = files.filter((file) => /\.xml$/i.test(file.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (xmlFiles.length === 0) {
    const others =
      files.length === 0
        ? 'nothing'
        : `only ${files
            .map((file) => file.name)
            .slice(0, 5)
            .join(', ')}${files.length > 5 ? ', ...' : ''}`;
    return { ok: false, reason: 'missing', detail: `no *.xml file in the report folder (the check wrote ${others} there)` };
  }
  const tests: TestCaseResult[] = [];
  for (const file of xmlFiles) {
    const tooLarge = oversized(file.name, file.text);
    if (tooLarge !== undefined) return tooLarge;
    const read = readJunitXml(file.text);
    if (!read.ok) return { ok: false, reason: 'unreadable', detail: `${file.name} is not a JUnit XML report: ${read.message}` };
    tests.push(...read.tests);
  }
  return { ok: true, tests };
}

function oversized(what: string, text: string): ParsedReport | undefined {
  if (text.length <= MAX_REPORT_CHARS) return undefined;
  const mebi = (chars: number) => `${Math.round(chars / (1024 * 1024))} Mi`;
  return {
    ok: false,
    reason: 'unreadable',
    detail: `${what} holds ${mebi(text.length)} characters, more than the ${mebi(MAX_REPORT_CHARS)} a test report may have; it was not read`,
  };
}
