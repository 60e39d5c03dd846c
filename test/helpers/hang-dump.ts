/**
 * What a test that timed out while a bestof it started was still running needs to say: the process
 * tree under that bestof (state and kernel wait channel of each), what it had printed, and the tail
 * of the newest run's event log. A hang seen once in CI (a test timing out, nothing else said) is a
 * bug report that cannot be read without this; `startCli` prints it when its test fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface PsRow {
  readonly pid: number;
  readonly ppid: number;
  readonly line: string;
}

function psRows(): PsRow[] {
  try {
    const out = execFileSync('ps', ['-eo', 'pid=,ppid=,etimes=,stat=,wchan:32=,args='], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [pid, ppid] = line.trim().split(/\s+/, 2).map(Number);
        return { pid: pid ?? 0, ppid: ppid ?? 0, line: line.trim() };
      });
  } catch (error) {
    return [{ pid: 0, ppid: 0, line: `(ps failed: ${(error as Error).message})` }];
  }
}

/** The pids of `root` and every process under it, parents first. */
export function processTree(root: number): { pid: number; depth: number; line: string }[] {
  const rows = psRows();
  const out: { pid: number; depth: number; line: string }[] = [];
  const visit = (pid: number, depth: number): void => {
    const row = rows.find((r) => r.pid === pid);
    if (row) out.push({ pid, depth, line: row.line });
    for (const child of rows.filter((r) => r.ppid === pid)) visit(child.pid, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** The newest `.bestof/runs/<id>/events.jsonl` at or above `cwd`, its last lines. */
function newestEventsTail(cwd: string, lines = 20): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const runs = join(dir, '.bestof', 'runs');
    if (existsSync(runs)) {
      const logs = readdirSync(runs)
        .map((id) => join(runs, id, 'events.jsonl'))
        .filter((path) => existsSync(path))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
      const newest = logs[0];
      if (!newest) return `(no events.jsonl under ${runs})`;
      const tail = readFileSync(newest, 'utf8').trimEnd().split('\n').slice(-lines);
      return `${newest}, last ${tail.length} lines:\n${tail.map((line) => `  ${line.slice(0, 400)}`).join('\n')}`;
    }
    if (dirname(dir) === dir) return '(no .bestof/runs folder found)';
  }
}

export function describeHang(opts: { pid: number; args: readonly string[]; cwd: string; stdout: string; stderr: string }): string {
  const tree = processTree(opts.pid);
  const tail = (text: string): string => (text.length > 3000 ? `...${text.slice(-3000)}` : text) || '(nothing)';
  return [
    `bestof ${opts.args.join(' ')} (pid ${opts.pid}, in ${opts.cwd}) was still running when its test failed.`,
    'Processes under it (pid ppid seconds state wchan args):',
    ...tree.map((p) => `${'  '.repeat(p.depth + 1)}${p.line.slice(0, 300)}`),
    `Its stdout:\n${tail(opts.stdout)}`,
    `Its stderr:\n${tail(opts.stderr)}`,
    `Event log: ${newestEventsTail(opts.cwd)}`,
  ].join('\n');
}
