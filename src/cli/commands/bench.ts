/**
 * `bestof bench <bench.toml> [--shard i/n] [--baseline old.json] [--out dir] [--resume] [--json]`: runs the
 * matrix (or one shard of it) and writes bench.json, bench.md and junit.xml into `--out`
 * (default `.bestof/bench/<name>`). `bestof bench merge <a.json> <b.json> ... [--out dir]
 * [--baseline old.json] [--spec bench.toml]` joins the shards of one bench and writes the same
 * three files, refusing a set that is incomplete or overlaps. With `--html`, either also writes
 * bench.html (src/report/html/bench-html.ts) beside them.
 *
 * Exit codes: 0 done; 1 a regression against `--baseline`; 2 bad input (a wrong spec, a shard
 * that does not parse, shards that cannot be merged, a baseline that cannot be read), nothing
 * written; 130 cancelled (bench.json then holds the trials that ended, the rest "not run").
 * A task whose JUnit case fails does not change the exit code: CI reads junit.xml for that.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadBenchSpec } from '../../bench/bench-spec.js';
import { compareToBaseline, type BaselineComparison, type BaselineTolerance } from '../../bench/baseline.js';
import { parseBenchFile } from '../../bench/bench-file.js';
import { renderJUnit } from '../../bench/junit.js';
import { renderBenchMarkdown } from '../../bench/markdown.js';
import { mergeBenchFiles } from '../../bench/merge.js';
import { resumedRecords, runBench } from '../../bench/run-bench.js';
import { parseShard } from '../../bench/shard.js';
import { summarizeBench } from '../../bench/summary.js';
import type { BenchFile, TrialRecord } from '../../bench/types.js';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { printable, printableJson } from '../../printable.js';
import { formatSpecProblems } from '../../spec/errors.js';
import { parseCommandArgs } from '../args.js';
import { takeHtmlOption } from '../html-option.js';
import { renderBenchHtml } from '../../report/html/bench-html.js';
import { UsageError } from '../usage-error.js';
import { createBenchPlainReporter } from '../../ui/bench-lines.js';
import { startBenchView, type BenchFrontEnd } from '../../ui/bench/bench-front-end.js';
import { wantsInteractiveUi } from '../interactive-ui.js';
import { version } from '../version.js';

const DEFAULT_TOLERANCE: BaselineTolerance = { resolvedRateDrop: 0.05, costUsdRise: 0.25 };

export async function benchCommand(allArgs: readonly string[]): Promise<number> {
  if (allArgs[0] === 'merge') return mergeCommand(allArgs.slice(1));
  if (allArgs[0] === 'mine') return (await import('./bench-mine.js')).benchMineCommand(allArgs.slice(1));
  const { args, html } = takeHtmlOption('bench', allArgs, { valued: false });
  const { values, positionals } = parseCommandArgs('bench', args);
  const specPath = positionals[0];
  if (specPath === undefined) throw new UsageError('bench: which bench spec? `bestof bench bench.toml` (see docs/bench.md)');
  const shard = values.shard === undefined ? null : parseShard(values.shard);
  if (shard !== null && !shard.ok) throw new UsageError(`bench: --shard ${values.shard}: ${shard.error}`);
  const loaded = await loadBenchSpec(specPath);
  if (!loaded.ok) {
    process.stderr.write(`${formatSpecProblems(loaded.error)}\nbestof: ${specPath} is not a valid bench spec; nothing was run or created.\n`);
    return EXIT_CODES.badInput;
  }
  const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline);
  if (baseline !== undefined && 'problems' in baseline) return refuse(baseline.problems);
  const bench = loaded.value;
  const outDir = resolve(values.out ?? join('.bestof', 'bench', bench.spec.name));
  const shardValue = shard?.ok ? shard.value : null;
  let resumed: TrialRecord[] | undefined;
  if (values.resume) {
    const kept = resumedRecords(outDir, bench, shardValue);
    if (!kept.ok) return refuse([kept.error]);
    resumed = kept.value;
  }
  mkdirSync(outDir, { recursive: true });

  const controller = new AbortController();
  let view: BenchFrontEnd | undefined;
  // Set once the bench has ended and written its results.
  let ended: number | undefined;
  const onSignal = (name: NodeJS.Signals): void => {
    // A signal while Node winds down after the bench ends bestof with the bench's own exit code,
    // not the signal's default 130 or 143 (as a run does: ../run-session.ts).
    if (ended !== undefined) process.exit(ended);
    // The view says it itself (a line on stderr would land in the middle of its frame).
    if (view) view.cancelling();
    else process.stderr.write(`\nbestof bench: ${name}: cancelling the running trials (each keeps its work); the trials not started are recorded "not run"\n`);
    controller.abort(new Error(`cancelled by ${name}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = values.json ? process.stderr : process.stdout;
  const write = (line: string): void => {
    progress.write(line);
  };
  // On a terminal the Ink view of the matrix (q or Ctrl-C cancels, as SIGINT does); else, or when
  // it cannot start, one plain line per finished trial.
  if (wantsInteractiveUi({ json: values.json, noTui: values['no-tui'] })) {
    view = await startBenchView({
      cancel: () => controller.abort(new Error('cancelled from the terminal view')),
      write,
      warn: (line) => process.stderr.write(line),
    });
  }
  try {
    const file = await runBench({
      bench,
      outDir,
      shard: shardValue,
      signal: controller.signal,
      bestofVersion: version(),
      ...(resumed ? { resume: resumed } : {}),
      onEvent: view ? view.listener : createBenchPlainReporter(write),
    });
    // The last frame stays on the screen, above the lines that say what was written.
    view?.close();
    const tolerance = { resolvedRateDrop: bench.spec.tolerance.resolved_rate, costUsdRise: bench.spec.tolerance.cost };
    const code = writeResults(file, outDir, baseline?.file, tolerance, { json: values.json === true, html: html !== false });
    ended = controller.signal.aborted ? EXIT_CODES.cancelled : code;
    return ended;
  } finally {
    view?.close();
    // Kept once the bench has ended (see onSignal): removed, a signal would take its default action.
    if (ended === undefined) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

async function mergeCommand(allArgs: readonly string[]): Promise<number> {
  const { args, html } = takeHtmlOption('bench merge', allArgs, { valued: false });
  const { values, positionals } = parseCommandArgs('bench merge', args);
  if (positionals.length === 0) throw new UsageError('bench merge: which files? `bestof bench merge shard-1/bench.json shard-2/bench.json ...`');
  const inputs: { name: string; value: unknown }[] = [];
  const problems: string[] = [];
  for (const name of positionals) {
    try {
      inputs.push({ name, value: JSON.parse(readFileSync(name, 'utf8')) as unknown });
    } catch (error) {
      problems.push(`${name}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not a bench.json: ${(error as Error).message}`}`);
    }
  }
  if (problems.length > 0) return refuse(problems);
  const merged = mergeBenchFiles(inputs);
  if (!merged.ok) return refuse(merged.error);
  const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline);
  if (baseline !== undefined && 'problems' in baseline) return refuse(baseline.problems);
  let tolerance = DEFAULT_TOLERANCE;
  if (values.spec !== undefined) {
    const spec = await loadBenchSpec(values.spec);
    if (!spec.ok) {
      process.stderr.write(`${formatSpecProblems(spec.error)}\n`);
      return refuse([`${values.spec} is not a valid bench spec`]);
    }
    tolerance = { resolvedRateDrop: spec.value.spec.tolerance.resolved_rate, costUsdRise: spec.value.spec.tolerance.cost };
  }
  const outDir = resolve(values.out ?? '.');
  mkdirSync(outDir, { recursive: true });
  return writeResults(merged.value, outDir, baseline?.file, tolerance, { json: values.json === true, html: html !== false });
}

function refuse(problems: readonly string[]): number {
  for (const p of problems) process.stderr.write(`bestof bench: ${p}\n`);
  process.stderr.write('bestof bench: nothing was written.\n');
  return EXIT_CODES.badInput;
}

function readBaseline(path: string): { file: BenchFile } | { problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return {
      problems: [`--baseline ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not JSON: ${(error as Error).message}`}`],
    };
  }
  const parsed = parseBenchFile(value, path);
  return parsed.ok ? { file: parsed.value } : { problems: parsed.error.map((p) => `--baseline: ${p}`) };
}

/** bench.json, bench.md, junit.xml and, with --html, bench.html (without it, an older bench.html is removed); the exit code (1 on a regression against the baseline). */
function writeResults(
  file: BenchFile,
  outDir: string,
  baseline: BenchFile | undefined,
  tolerance: BaselineTolerance,
  options: { readonly json: boolean; readonly html: boolean },
): number {
  const { json } = options;
  const summary = summarizeBench(file);
  const comparison: BaselineComparison | undefined = baseline ? compareToBaseline(summary, summarizeBench(baseline), tolerance) : undefined;
  writeFileSync(join(outDir, 'bench.json'), printableJson(`${JSON.stringify(file, null, 2)}\n`));
  writeFileSync(join(outDir, 'bench.md'), renderBenchMarkdown(summary, comparison));
  writeFileSync(join(outDir, 'junit.xml'), renderJUnit(summary));
  // A bench.html of an earlier run would sit beside this run's bench.json as if it were its page.
  if (options.html) writeFileSync(join(outDir, 'bench.html'), renderBenchHtml(summary));
  else rmSync(join(outDir, 'bench.html'), { force: true });
  const out = json ? process.stderr : process.stdout;
  if (json) process.stdout.write(printableJson(`${JSON.stringify(file, null, 2)}\n`));
  out.write(`written: ${join(outDir, 'bench.json')}, bench.md, junit.xml${options.html ? ', bench.html' : ''}\n`);
  for (const r of comparison?.regressions ?? []) out.write(`regression: ${printable(r.message)}\n`);
  return comparison && comparison.regressions.length > 0 ? EXIT_CODES.noWinner : EXIT_CODES.ok;
}
