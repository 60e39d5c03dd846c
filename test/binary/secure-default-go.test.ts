/**
 * Secure by default in a Go repository: a candidate that adds `x_test.go` with
 * `func TestMain(m *testing.M) { os.Exit(0) }` beside a package's tests makes `go test ./...`
 * pass with none of them run. Through the real binary and the real go, on a spec written by hand
 * with neither `frozen`, `protected` nor `editable`: the added test file is kept as in base (gone
 * for the checks, src/spec/runner-files.ts RUNNER_DEFAULT_FILES.go), so the cheat scores nothing,
 * cannot win and does not reach main; the honest fix wins.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { ReportJson } from '../helpers/run-record.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

const GO_REPO: Record<string, string> = {
  'go.mod': 'module example.com/calc\n\ngo 1.19\n',
  'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
  'calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("2 + 3")\n\t}\n}\n',
};
const CHEAT = `printf 'package calc\\n\\nimport (\\n\\t"os"\\n\\t"testing"\\n)\\n\\nfunc TestMain(m *testing.M) { os.Exit(0) }\\n' > x_test.go`;
const FIX = "printf 'package calc\\n\\nfunc Add(a, b int) int { return a + b }\\n' > calc.go";

describe.runIf(hasGo)('secure by default in a Go repo: a TestMain that exits 0', () => {
  it('passes `go test` with the failing test never run when nothing keeps it out', () => {
    const r = repo(GO_REPO);
    const home = tempDir();
    const env = { ...process.env, GOCACHE: join(home, 'go-cache'), GOPATH: join(home, 'go'), GOFLAGS: '-mod=mod' };
    expect(spawnSync('go', ['test', './...'], { cwd: r.dir, env }).status).not.toBe(0);
    execFileSync('sh', ['-c', CHEAT], { cwd: r.dir });
    expect(spawnSync('go', ['test', './...'], { cwd: r.dir, env }).status).toBe(0);
  });

  it('a spec with neither frozen, protected nor editable: the cheat scores nothing and does not reach main, the honest fix wins', async () => {
    const r = repo(GO_REPO);
    const dir = tempDir();
    writeFileSync(join(dir, 'cheat.sh'), `#!/bin/sh\n${CHEAT}\n`, { mode: 0o755 });
    writeFileSync(join(dir, 'honest.sh'), `#!/bin/sh\n${FIX}\n`, { mode: 0o755 });
    const spec = join(dir, 'spec.toml');
    writeFileSync(
      spec,
      [
        `repo = ${JSON.stringify(r.dir)}`,
        '[prompt]\ntext = "Add should add."',
        ...['cheat', 'honest'].map((agent) => `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(dir, `${agent}.sh`))}`),
        '[checks]',
        '[[checks.items]]\nname = "test"\ncommand = "go test ./..."\nscore = 100\ntimeout = "300s"',
        '[select]\nmerge = "merge"',
        '',
      ].join('\n'),
    );
    const home = tempDir();
    const env = { GOCACHE: join(home, 'go-cache'), GOPATH: join(home, 'go'), GOFLAGS: '-mod=mod' };
    const result = await runCli(['run', spec, '--no-tui'], { cwd: r.dir, worktreesDir: tempDir(), env });
    const runs = join(r.dir, '.bestof', 'runs');
    const [runId] = readdirSync(runs);
    const report = JSON.parse(readFileSync(join(runs, runId as string, 'report.json'), 'utf8')) as ReportJson;
    const output = result.stdout + result.stderr;
    const cheater = report.candidates.find((c) => c.id === 'c1');
    expect(cheater?.score, output).toBe(0);
    expect(cheater?.tamperedPaths.map((t) => t.path)).toEqual(['x_test.go']);
    expect(report.winner, output).toBe('c2');
    expect(report.candidates.find((c) => c.id === 'c2')?.score).toBe(100);
    expect(r.git('ls-tree', '-r', '--name-only', 'main').split('\n')).not.toContain('x_test.go');
    expect(readFileSync(join(r.dir, 'calc.go'), 'utf8')).toContain('a + b');
  }, 300_000);
});
