/** The keys of a check that count tests by name (`report`, `partial`) and that bring files no agent sees (`hidden`, `into`, `show_output`). */
import { describe, expect, it } from 'vitest';
import { formatSpecProblems } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { writeSpec } from './helpers.js';

async function load(check: string, files: Record<string, string> = {}) {
  const { specPath } = writeSpec(`[prompt]\ntext = "x"\n\n[[checks.items]]\nname = "t"\ncommand = "true"\n${check}\n`, files);
  return loadSpec(specPath);
}

async function problems(check: string, files: Record<string, string> = {}): Promise<string> {
  const result = await load(check, files);
  if (result.ok) throw new Error('expected the spec to be invalid');
  return formatSpecProblems(result.error);
}

describe('a check that reads a test report', () => {
  it('takes report, partial, hidden, into and show_output', async () => {
    const result = await load('report = "junit"\npartial = true\nhidden = "hidden-tests"\ninto = "test/hidden"\nshow_output = true', {
      'hidden-tests/a.test.js': '',
    });
    if (!result.ok) throw new Error(formatSpecProblems(result.error));
    expect(result.value.spec.checks.items[0]).toMatchObject({ report: 'junit', partial: true, hidden: 'hidden-tests', into: 'test/hidden', show_output: true });
  });

  it('refuses a report kind it cannot read, naming the kinds', async () => {
    const text = await problems('report = "xunit"');
    expect(text).toContain('checks.items[0].report');
    expect(text).toMatch(/junit.*tap.*go-json/);
  });

  it('refuses partial without report, hidden without into, into without hidden, show_output without hidden', async () => {
    expect(await problems('partial = true')).toMatch(/partial = true needs `report`/);
    expect(await problems('hidden = "h"', { 'h/x': '' })).toMatch(/hidden needs `into`/);
    expect(await problems('into = "test/h"')).toMatch(/into goes with `hidden`/);
    expect(await problems('show_output = true')).toMatch(/show_output is for a hidden check/);
  });

  it('refuses a hidden folder that does not exist or is a file, and an into that leaves the repo', async () => {
    expect(await problems('hidden = "nowhere"\ninto = "test/h"')).toMatch(/folder not found: .*nowhere/);
    expect(await problems('hidden = "f"\ninto = "test/h"', { f: 'x' })).toMatch(/is a file, expected a folder/);
    expect(await problems('hidden = "h"\ninto = "../out"', { 'h/x': '' })).toMatch(/leaves the repo/);
  });
});
