/** The JUnit XML of a bench (src/bench/junit.ts), parsed back by a small XML reader of this test's own. */
import { describe, expect, it } from 'vitest';
import { escapeXml, renderJUnit } from '../../src/bench/junit.js';
import { summarizeBench } from '../../src/bench/summary.js';
import { handWorkedBench, handWorkedRecords } from './hand-worked-bench.js';

interface Element {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: Element[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  // Every & must start one of the five entities: a bare & is not well-formed XML.
  return text.replace(/&([a-z]+);|&/g, (whole, name: string | undefined) => {
    const value = name === undefined ? undefined : ENTITIES[name];
    if (value === undefined) throw new Error(`not well-formed: ${whole} in ${JSON.stringify(text)}`);
    return value;
  });
}

/**
 * Enough of XML for JUnit: a declaration, elements, attributes in double quotes, text. Every
 * position matches one alternative (a `<` that starts no tag is the last one), so nothing is
 * skipped; it throws on anything not well-formed.
 */
function parseXml(xml: string): Element {
  const root: Element = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const TOKEN = /<\?xml[^?]*\?>|<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  for (let m = TOKEN.exec(xml); m !== null && m[0] !== ''; m = TOKEN.exec(xml)) {
    const top = stack[stack.length - 1] as Element;
    if (m[6] !== undefined) throw new Error(`not well-formed at ${m.index}: ${xml.slice(m.index, m.index + 40)}`);
    if (m[1] !== undefined) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`);
      stack.pop();
    } else if (m[2] !== undefined) {
      const attrs = Object.fromEntries([...(m[3] ?? '').matchAll(/([\w:.-]+)="([^"]*)"/g)].map((a) => [a[1] as string, unescapeXml(a[2] as string)]));
      const element: Element = { name: m[2], attrs, children: [], text: '' };
      top.children.push(element);
      if (m[4] !== '/') stack.push(element);
    } else if (m[5] !== undefined) {
      if (/[<>]/.test(m[5])) throw new Error(`raw < or > in text: ${m[5]}`);
      top.text += unescapeXml(m[5]);
    }
  }
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1]?.name}> is never closed`);
  return root;
}

function only(parent: Element, name: string): Element {
  const found = parent.children.filter((c) => c.name === name);
  if (found.length !== 1) throw new Error(`${found.length} <${name}> in <${parent.name}>`);
  return found[0] as Element;
}

describe('renderJUnit', () => {
  it('the hand-worked bench: 6 test cases, 3 failures (codex on t1 and t2, gemini on t2), counts that add up', () => {
    const doc = parseXml(renderJUnit(summarizeBench(handWorkedBench())));
    const suites = only(doc, 'testsuites');
    const suite = only(suites, 'testsuite');
    // 426 s: claude 30+40+50+60+70+80, codex 6 x 10, gemini 5+1+6+7+8+9.
    expect(suite.attrs).toMatchObject({
      name: 'nightly',
      tests: '6',
      failures: '3',
      errors: '0',
      skipped: '0',
      time: '426.000',
      timestamp: '2025-01-10T02:00:00.000Z',
    });
    expect(suites.attrs).toMatchObject({ tests: '6', failures: '3', errors: '0', skipped: '0' });
    const cases = suite.children.filter((c) => c.name === 'testcase');
    expect(cases.map((c) => [c.attrs.classname, c.attrs.name, c.attrs.time, c.children.map((x) => x.name).join(',')])).toEqual([
      ['t1', 'claude-sonnet', '120.000', 'system-out'],
      ['t1', 'codex-mini', '30.000', 'failure'],
      ['t1', 'gemini-flash', '12.000', 'system-out'],
      ['t2', 'claude-sonnet', '210.000', 'system-out'],
      ['t2', 'codex-mini', '30.000', 'failure'],
      ['t2', 'gemini-flash', '24.000', 'failure'],
    ]);
    const failure = only(cases[1] as Element, 'failure');
    expect(failure.attrs.message).toBe('resolved 33.3% (1/3), under the bar of 50.0%');
    expect(failure.text.split('\n')[1]).toBe('trial 2: resolved, score 10/10, winner: c1 reached 10/10, $0.050, 10s (run r-t1-codex-mini-2)');
    expect(only(cases[2] as Element, 'system-out').text).toContain('trial 2: infra failure: setup failed: npm ci exited with code 1 (run r-t1-gemini-flash-2)');
    const properties = only(suite, 'properties').children.map((p) => `${p.attrs.name}=${p.attrs.value}`);
    expect(properties).toEqual([
      'bestof.version=0.1.0',
      'bestof.commit=8b1b4470c0ffee00112233445566778899aabbcc',
      'bench.specHash=sha256:0123abcd',
      'bench.trials=3',
    ]);
  });

  it('a task x agent whose every trial was an infra failure is skipped, and counted as skipped', () => {
    const records = handWorkedRecords().map((r) =>
      r.task === 't2' && r.agent === 'gemini-flash' ? { ...r, infra: true, resolved: false, infraReason: 'gemini could not start: command not found' } : r,
    );
    const suite = only(only(parseXml(renderJUnit(summarizeBench(handWorkedBench(records)))), 'testsuites'), 'testsuite');
    expect(suite.attrs).toMatchObject({ tests: '6', failures: '2', skipped: '1' });
    const gemini = suite.children.find((c) => c.attrs.classname === 't2' && c.attrs.name === 'gemini-flash') as Element;
    expect(only(gemini, 'skipped').attrs.message).toBe('every trial (3) was an infra failure: nothing measured the agent');
  });

  it('escapes what XML must not hold raw, and drops what XML cannot hold (ANSI colours, control characters)', () => {
    const nasty = 'exit 1: <stderr> "a" & \'b\' \u001b[31mred\u001b[0m\u0007bell';
    expect(escapeXml(nasty)).toBe('exit 1: &lt;stderr&gt; &quot;a&quot; &amp; &apos;b&apos; redbell');
    const file = handWorkedBench();
    const matrix = { ...file.matrix, tasks: [{ id: 'fix <login> & "auth"', bar: 1 }] };
    const records = handWorkedRecords()
      .filter((r) => r.task === 't1')
      .map((r) => ({ ...r, task: 'fix <login> & "auth"', outcome: { ...r.outcome, reason: nasty } }));
    const xml = renderJUnit(summarizeBench({ ...file, bench: 'a&b', matrix, records }));
    const suite = only(only(parseXml(xml), 'testsuites'), 'testsuite');
    expect(suite.attrs.name).toBe('a&b');
    const first = suite.children.find((c) => c.name === 'testcase') as Element;
    expect(first.attrs.classname).toBe('fix <login> & "auth"');
    expect(only(first, 'system-out').text).toContain('winner: exit 1: <stderr> "a" & \'b\' redbell');
  });

  it('the reader of this test refuses XML that is not well-formed', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(/closes/);
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow(/not well-formed/);
    expect(() => parseXml('<a>1 < 2</a>')).toThrow(/not well-formed/);
  });
});
