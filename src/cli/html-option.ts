/**
 * `--html [file]` of `bestof show` and `--html` of `bestof bench`: taken out of the arguments
 * before parseArgs sees them, because parseArgs has no option with an optional value. The word
 * after `--html` is its file only when it ends in `.html` or `.htm` (`bestof show --html
 * latest` names a run, not a file); `--html=<file>` always is.
 */
import { UsageError } from './usage-error.js';

export interface HtmlOption {
  /** The arguments without `--html` and its file. */
  readonly args: string[];
  /** false: not asked; true: asked, default file; a string: the file asked for. */
  readonly html: boolean | string;
}

const HTML_FILE = /\.html?$/i;

export function takeHtmlOption(command: string, args: readonly string[], options: { readonly valued: boolean }): HtmlOption {
  const rest: string[] = [];
  let html: boolean | string = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (arg === '--html') {
      const next = args[i + 1];
      if (options.valued && next !== undefined && HTML_FILE.test(next)) {
        html = next;
        i += 1;
      } else html = true;
    } else if (arg.startsWith('--html=')) {
      const file = arg.slice('--html='.length);
      if (!options.valued) throw new UsageError(`${command}: --html takes no file here: the report is written as bench.html in the --out folder`);
      if (file === '') throw new UsageError(`${command}: --html= needs a file name, e.g. --html=report.html (or --html alone for the default)`);
      html = file;
    } else rest.push(arg);
  }
  return { args: rest, html };
}
