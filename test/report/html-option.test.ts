/** `--html [file]` taken out of the arguments before parseArgs (src/cli/html-option.ts). */
import { describe, expect, it } from 'vitest';
import { takeHtmlOption } from '../../src/cli/html-option.js';

describe('takeHtmlOption', () => {
  it.each([
    [['latest', '--html'], { args: ['latest'], html: true }],
    [['--html', 'out/report.html'], { args: [], html: 'out/report.html' }],
    [['--html', 'latest'], { args: ['latest'], html: true }],
    [['--html=r.htm', 'r1', '--json'], { args: ['r1', '--json'], html: 'r.htm' }],
    [['r1'], { args: ['r1'], html: false }],
    [['--', '--html'], { args: ['--', '--html'], html: false }],
  ])('show %j', (args, expected) => {
    expect(takeHtmlOption('show', args, { valued: true })).toEqual(expected);
  });

  it('bench: --html takes no file (the next word is the bench spec), and --html=<file> is refused', () => {
    expect(takeHtmlOption('bench', ['--html', 'bench.html'], { valued: false })).toEqual({ args: ['bench.html'], html: true });
    expect(() => takeHtmlOption('bench', ['--html=x.html'], { valued: false })).toThrow(
      'bench: --html takes no file here: the report is written as bench.html in the --out folder',
    );
    expect(() => takeHtmlOption('show', ['--html='], { valued: true })).toThrow('show: --html= needs a file name');
  });
});
