import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { missingProgramWarnings, programsOfCheck } from '../../src/engine/plan/check-programs.js';

describe('programsOfCheck', () => {
  it.each([
    ['npm test', ['npm']],
    ['CI=1 npm test', ['npm']],
    ['cd sub && pytest -q', ['pytest']],
    ['if pytest; then echo ok; fi', ['pytest']],
    ['timeout 60 cargo test', ['cargo']],
    ['nice -n 5 make check', ['make']],
    ['env -i CI=1 go test ./...', ['go']],
    ['node --test test/ | tee out.txt', ['node', 'tee']],
    ['[ -f x ] && node a.js; node b.js', ['node']],
    ['python3 -c "import sys; sys.exit(0)"', ['python3']],
    ['(cd sub && make) && { go vet; }', ['make', 'go']],
    ['pytest -q 2>&1 | tee log', ['pytest', 'tee']],
    ['npm test >out.txt 2>&1', ['npm']],
    ['make &> build.log; make check >&2', ['make']],
    ['node a.js && . .venv/bin/activate && pytest', ['node']],
    ['source venv/bin/activate; pytest', []],
    ['PATH=$PWD/bin:$PATH my-tool', []],
    ['env -i PATH=/usr/bin go test ./...', []],
    ['export PATH="$HOME/.local/bin:$PATH" && my-tool', []],
  ])('%s: %j', (command, programs) => {
    expect(programsOfCheck(command)).toEqual(programs);
  });

  it.each([
    ['f() { echo hi; }; f'],
    ['scripts/check.sh'],
    ['./run.sh'],
    ['/usr/bin/true'],
    ['"$PYTHON" -m pytest'],
    ['test -f done.txt'],
    ['~/bin/check.sh'],
    ['$(which pytest) -q'],
  ])('names nothing it cannot judge: %s', (command) => {
    expect(programsOfCheck(command)).toEqual([]);
  });
});

describe('missingProgramWarnings', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('names each program no absolute folder of PATH holds, per check; a relative folder of PATH does not count (the checks get none)', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'bestof-programs-'));
    dirs.push(bin);
    for (const name of ['present', 'here-only-relative']) {
      writeFileSync(join(bin, name), '#!/bin/sh\n');
      chmodSync(join(bin, name), 0o755);
    }
    const warnings = await missingProgramWarnings(
      [{ command: 'present --fast && absent-tool --x' }, { command: 'present' }, { command: 'here-only-relative' }],
      [bin, '.'].join(':'),
    );
    expect(warnings).toEqual([
      'checks.items[0].command runs `absent-tool`, which is on no folder of your PATH: the check would fail (exit 127) for every candidate, after its agent has worked; install it, or name it by its full path (unless a [setup] command installs it onto PATH)',
    ]);
    // The same program through a relative folder only: not found by the checks.
    const relative = await missingProgramWarnings([{ command: 'present' }], 'bin-relative');
    expect(relative).toHaveLength(1);
  });
});
