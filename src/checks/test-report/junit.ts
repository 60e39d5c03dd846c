/**
 * JUnit XML, as test runners write it into a check's report folder: every `*.xml` file there is
 * read, in the order of their names, and their tests are one report. A runner may write several
 * (one per suite or per package), and the folder is the check's own, so a file that is not JUnit
 * makes the whole report unreadable rather than leaving its tests out unseen.
 *
 * The XML is read by fast-xml-parser (pinned in package.json), a widely used parser with no native
 * code, kept by its author's organisation together with the small packages it depends on; it is
 * checked first by its validator, so that a broken file is reported with its line and column.
 * Entities are decoded here, only XML's own five and character references (`&#60;`, `&#x3C;`):
 * no DOCTYPE entity is ever expanded, so a file cannot grow in memory by its entities. Depth is
 * bounded by the parser (MAX_DEPTH), the size by ./parse.ts.
 *
 * What a file may hold: `<testsuites>` or `<testsuite>` at the root, suites nested in suites
 * (node's runner writes a suite per `describe` and per test with subtests), `<testcase>` anywhere
 * among them. A test case's outcome: `<skipped>` wins (node writes a failing todo test with both
 * `<skipped type="todo">` and `<failure>`; a todo is not counted as failed), then `<error>`
 * (errored), then `<failure>` (failed, or errored for node's failures that say the test did not
 * run: ./not-run-failures.ts), else passed.
 *
 * A test's name: `classname::name` when the test case has a class name (pytest:
 * `test_mod.TestClass::test_x`), else its enclosing suites' names and its own, joined by ` > `
 * (`outer > inner > test`; the name of a root `<testsuites>` is the document's, not a suite's, and
 * is left out). Node's junit reporter (Node 20.13 and later, 21.3 and later) gives every test case the
 * class name `test`, the same for all: it says nothing of the test, so it is read as no class name,
 * and a node test is named by its `describe` blocks and parent tests, as the TAP parser names it
 * (a pytest module named `test.py` at the root is named so too: `pytest > test_x`, stable all the
 * same). Node's junit report leaves out a parent test's own failure (a throw after its subtests
 * passed): the TAP report keeps it.
 *
 * Node's junit reporter (every version to date) escapes a `"` of a name as `&quot;` and then the
 * `&` of that again, so the file says `&amp;quot;`, which reads as the text `&quot;`: in a node
 * test's name (and its suites') that text is read back as the `"` it was, so that the name is the
 * one the TAP report, the retry prompt and the user's test file give. A name written with the text
 * `&quot;` itself cannot be told apart from it in node's file; it is read as `"` too.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { boundedMessage, joinedMessage } from './bounded-message.js';
import { isNotRunFailure } from './not-run-failures.js';
import type { TestCaseResult, TestOutcome } from './types.js';

/** The deepest nesting of elements a report may have (node nests a suite per `describe`). */
export const MAX_DEPTH = 100;

/** The class name node's junit reporter gives every test case. */
const NODE_PLACEHOLDER_CLASSNAME = 'test';
const SUITE_SEPARATOR = ' > ';
const ATTRIBUTES = ':@';
const TEXT = '#text';
const CDATA = '#cdata';

/** An element as fast-xml-parser gives it with `preserveOrder`: `{ tag: children, ':@': attributes }`. */
type OrderedNode = Record<string, unknown>;

/** A JUnit file read: its tests, or the parser's message. */
export type JunitReading = { readonly ok: true; readonly tests: TestCaseResult[] } | { readonly ok: false; readonly message: string };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Decoded here (decodeEntities), so that no DOCTYPE entity is expanded and CDATA is kept as written.
  processEntities: false,
  cdataPropName: CDATA,
  commentPropName: false,
  maxNestedTags: MAX_DEPTH,
});

/** The tests of one JUnit XML text, in the order of the file. */
export function readJunitXml(text: string): JunitReading {
  const xml = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return { ok: false, message: `line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}` };
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (error) {
    // The parser's own refusals (too deep, a tag it cannot read) are about the file, not bugs of ours.
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const root = nodes.find((node) => !tagOf(node).startsWith('?') && !tagOf(node).startsWith('!'));
  const rootTag = root === undefined ? undefined : tagOf(root);
  if (root === undefined || (rootTag !== 'testsuites' && rootTag !== 'testsuite')) {
    return { ok: false, message: `its root element is ${rootTag === undefined ? 'missing' : `<${rootTag}>`}, not <testsuites> or <testsuite>` };
  }
  const tests: TestCaseResult[] = [];
  const rootPath = rootTag === 'testsuite' ? suitePath([], root) : [];
  collectTests(childrenOf(root), rootPath, tests);
  return { ok: true, tests };
}

/** The test cases under these elements, depth first, in the order of the file. */
function collectTests(nodes: readonly OrderedNode[], suites: readonly string[], into: TestCaseResult[]): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === 'testsuite' || tag === 'testsuites') collectTests(childrenOf(node), suitePath(suites, node), into);
    else if (tag === 'testcase') into.push(testCase(node, suites));
  }
}

function suitePath(suites: readonly string[], suite: OrderedNode): readonly string[] {
  const name = attribute(suite, 'name');
  return name === undefined || name === '' ? suites : [...suites, name];
}

function testCase(node: OrderedNode, suites: readonly string[]): TestCaseResult {
  const name = attribute(node, 'name') ?? '';
  const classname = attribute(node, 'classname') ?? '';
  const fullName =
    classname === NODE_PLACEHOLDER_CLASSNAME
      ? [...suites, name].map(nodeQuotesRestored).join(SUITE_SEPARATOR)
      : classname !== ''
        ? `${classname}::${name}`
        : [...suites, name].join(SUITE_SEPARATOR);
  const children = childrenOf(node);
  const skipped = children.find((child) => tagOf(child) === 'skipped');
  if (skipped !== undefined) return withMessage(fullName, 'skipped', boundedMessage(attribute(skipped, 'message')));
  const error = children.find((child) => tagOf(child) === 'error');
  if (error !== undefined) return withMessage(fullName, 'errored', problemMessage(error));
  const failure = children.find((child) => tagOf(child) === 'failure');
  if (failure !== undefined) return withMessage(fullName, isNotRunFailure(attribute(failure, 'type')) ? 'errored' : 'failed', problemMessage(failure));
  return { name: fullName, outcome: 'passed' };
}

/** A name of node's junit report with its doubly escaped quotes (`&amp;quot;`, read as `&quot;`) read back as `"`. */
function nodeQuotesRestored(name: string): string {
  return name.replaceAll('&quot;', '"');
}

function withMessage(name: string, outcome: TestOutcome, message: string | undefined): TestCaseResult {
  return message === undefined ? { name, outcome } : { name, outcome, message };
}

/** A `<failure>`'s or `<error>`'s message: its `message` attribute, then its text when that says more. */
function problemMessage(node: OrderedNode): string | undefined {
  return joinedMessage(attribute(node, 'message'), textOf(node));
}

function tagOf(node: OrderedNode): string {
  return Object.keys(node).find((key) => key !== ATTRIBUTES) ?? '';
}

function childrenOf(node: OrderedNode): OrderedNode[] {
  const children = node[tagOf(node)];
  return Array.isArray(children) ? (children as OrderedNode[]) : [];
}

function attribute(node: OrderedNode, name: string): string | undefined {
  const attributes = node[ATTRIBUTES] as Record<string, unknown> | undefined;
  const value = attributes?.[name];
  return typeof value === 'string' ? decodeEntities(value) : undefined;
}

/** An element's own text and CDATA, in order. */
function textOf(node: OrderedNode): string {
  let text = '';
  for (const child of childrenOf(node)) {
    const value = child[TEXT];
    if (typeof value === 'string') text += decodeEntities(value);
    else if (Array.isArray(child[CDATA])) text += (child[CDATA] as OrderedNode[]).map((part) => String(part[TEXT] ?? '')).join('');
  }
  return text;
}

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's five entities and character references decoded; any other `&...;` kept as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, named: string | undefined, decimal: string | undefined, hex: string | undefined) => {
    if (named !== undefined) return NAMED_ENTITIES[named] ?? whole;
    const codePoint = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
  });
}
