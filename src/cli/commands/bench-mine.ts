/**
 * `bestof bench mine [--out DIR] [--commits N] [--max N] [--since DATE|REV] [--paths GLOBS]
 * [--check NAME] [--max-diff LINES] [--jobs N] [--reference]`: a bench of the repo made from its own
 * fix+test commits (src/bench/mine/mine.ts). Progress on stderr: one line rewritten on a terminal,
 * else one line per commit. Ctrl-C or SIGTERM stops the runs, writes the folder from what was
 * done, and exits 130; the same command goes on where it was.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_MAX_DIFF, mine, type MineProgress } from '../../bench/mine/mine.js';
import type { CommitVerdict } from '../../bench/mine/types.js';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { openRepo } from '../../git/running/repo.js';
import { isInside, probeSandbox } from '../../process/sandbox.js';
import { printable } from '../../printable.js';
import { parseCommandArgs } from '../args.js';
import { UsageError } from '../usage-error.js';

export async function benchMineCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('bench mine', args);
  if (positionals.length > 0) throw new UsageError(`bench mine: takes no file (${positionals.join(' ')}); run it in the repo to mine`);
  const count = (name: string, value: string | undefined, fallback: number | undefined): number | undefined => {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`bench mine: --${name} ${value}: expected a whole number of 1 or more`);
    return Number(value);
  };
  const commits = count('commits', values.commits, 300) as number;
  const maxTasks = count('max', values.max, undefined);
  const maxDiff = count('max-diff', values['max-diff'], DEFAULT_MAX_DIFF) as number;
  const jobs = count('jobs', values.jobs, undefined);
  const repo = await openRepo(process.cwd());
  if (!repo.ok) {
    process.stderr.write(`bestof bench mine: ${repo.error}\n`);
    return EXIT_CODES.badInput;
  }
  const root = realpathSync(repo.value.root);
  const out = resolve(values.out ?? join(dirname(root), `${basename(root)}-bench`));
  if (isInside(realOrSelf(out), root)) {
    process.stderr.write(
      `bestof bench mine: --out ${out} is inside the repo; the hidden tests must be outside it (no agent may see them): choose a folder beside the repo, e.g. --out ${join(dirname(root), `${basename(root)}-bench`)}\n`,
    );
    return EXIT_CODES.badInput;
  }
  const sandbox = await probeSandbox();
  // The commits' own tests run as the checks do; without bubblewrap they run as you, which is said once.
  if (!sandbox.ok) process.stderr.write(`bestof bench mine: no sandbox (${sandbox.reason}): the validation runs each commit's tests as you\n`);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = progressPrinter(process.stderr.isTTY === true);
  try {
    const mined = await mine({
      root,
      out,
      commits,
      maxTasks,
      since: values.since,
      paths: values.paths
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
      check: values.check,
      maxDiff,
      reference: values.reference === true,
      jobs,
      env: process.env,
      signal: controller.signal,
      onVerdict: progress.verdict,
    });
    progress.end();
    if (!mined.ok) {
      process.stderr.write(`bestof bench mine: ${mined.error}\n`);
      return EXIT_CODES.badInput;
    }
    const s = mined.value;
    const reasons = Object.entries(s.rejectedByReason)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    process.stdout.write(
      `${controller.signal.aborted ? 'stopped: ' : ''}${s.commitsLookedAt} commits looked at, ${s.kept.length} tasks kept, ${s.rejected.length} rejected${reasons ? ` (${reasons})` : ''}\n` +
        `wrote ${join(out, 'bench.toml')}, ${join(out, 'mined.md')} and mined.json\n` +
        (controller.signal.aborted
          ? 'run the same command again to go on where it stopped\n'
          : values.reference
            ? `check it end to end: bestof bench ${join(out, 'bench.toml')}\n`
            : `add your agents to bench.toml, then: bestof bench ${join(out, 'bench.toml')}\n`),
    );
    return controller.signal.aborted ? EXIT_CODES.cancelled : EXIT_CODES.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** One line rewritten on a terminal; one line per commit otherwise (a log, CI). */
function progressPrinter(terminal: boolean): { verdict: (v: CommitVerdict, p: MineProgress) => void; end: () => void } {
  let drawn = false;
  const byReason = new Map<string, number>();
  return {
    verdict(v, p) {
      if (v.outcome === 'rejected') byReason.set(v.reason, (byReason.get(v.reason) ?? 0) + 1);
      const what =
        v.outcome === 'kept'
          ? `kept ${v.id} (${v.failToPass.length} fail-to-pass, ${v.passToPass.length} pass-to-pass, ${(v.validationMs / 1000).toFixed(1)} s)`
          : `rejected ${v.sha.slice(0, 10)} ${v.reason}: ${v.detail}`;
      if (terminal) {
        const reasons = [...byReason.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([reason, n]) => `${reason} ${n}`)
          .join(', ');
        const line = `[${p.lookedAt}/${p.total} commits] kept ${p.kept}, rejected ${p.rejected}${reasons ? ` (${reasons})` : ''} · ${printable(v.subject).slice(0, 40)}`;
        process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
        drawn = true;
      } else {
        process.stderr.write(`[${p.lookedAt}/${p.total}]${p.fromJournal ? ' (journal)' : ''} ${printable(what)}\n`);
      }
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
