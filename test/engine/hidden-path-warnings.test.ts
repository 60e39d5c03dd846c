/**
 * `validate` and `run` warn when a check or setup command names a path in the user's HOME, which
 * the checks' sandbox hides (src/engine/sandbox/agent-sandbox.ts hiddenPathWarnings).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenPathWarnings } from '../../src/engine/sandbox/agent-sandbox.js';

const HOME = '/home/me';
const env = { HOME, PATH: `${HOME}/.cargo/bin:/usr/bin`, CARGO_HOME: `${HOME}/.cargo`, GOPATH: undefined };
const spec = (checks: string[], setup: string[] = []) => ({ checks: { items: checks.map((command) => ({ command })) }, setup: { commands: setup } });

describe('hiddenPathWarnings', () => {
  it('names a check or setup command that uses a path in HOME, with `~/` or in full, and says what to do', () => {
    const warnings = hiddenPathWarnings(
      spec(['npm test', '~/bin/check.sh --fast', 'PYTHONPATH=/home/me/lib python3 -m pytest'], ['cp "/home/me/fixtures/db.sql" .']),
      env,
    );
    expect(warnings).toEqual([
      "checks.items[1].command names /home/me/bin/check.sh, inside your HOME, which the checks' sandbox hides: the command would not find it there; put what it needs in the repo (the check runs in the candidate's worktree) or outside your HOME, or name it by its full path and set [sandbox] checks = false (a check's `~` is a fresh HOME of its own, with or without the sandbox)",
      "checks.items[2].command names /home/me/lib, inside your HOME, which the checks' sandbox hides: the command would not find it there; put what it needs in the repo (the check runs in the candidate's worktree) or outside your HOME, or name it by its full path and set [sandbox] checks = false (a check's `~` is a fresh HOME of its own, with or without the sandbox)",
      "setup.commands[0] names /home/me/fixtures/db.sql, inside your HOME, which the checks' sandbox hides: the command would not find it there; put what it needs in the repo (the check runs in the candidate's worktree) or outside your HOME, or name it by its full path and set [sandbox] checks = false (a check's `~` is a fresh HOME of its own, with or without the sandbox)",
    ]);
  });

  it('leaves alone what the sandbox shows or never hides: PATH folders, toolchain homes, paths outside HOME, relative paths', () => {
    expect(
      hiddenPathWarnings(spec(['~/.cargo/bin/cargo test', '/usr/bin/env node test.js > /tmp/out.log', 'scripts/check.sh', 'ls ~', 'echo a/home/me/b']), env),
    ).toEqual([]);
  });

  it('leaves alone a path the environment loads code from (PYTHONPATH), which the sandbox shows too', () => {
    const home = mkdtempSync(join(tmpdir(), 'bestof-home-'));
    try {
      mkdirSync(join(home, 'pylib'));
      const command = `python3 ${home}/pylib/run_tests.py ${home}/notes`;
      expect(hiddenPathWarnings(spec([command]), { HOME: home, PATH: '/usr/bin', PYTHONPATH: `${home}/pylib` })).toEqual([
        expect.stringContaining(`checks.items[0].command names ${home}/notes, inside your HOME`),
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('counts a toolchain home the checks get from the HOME when its variable is unset (checkEnv), as the sandbox does', () => {
    const home = mkdtempSync(join(tmpdir(), 'bestof-home-'));
    try {
      mkdirSync(join(home, 'go'));
      const command = `ls ${home}/go/pkg/mod ${home}/notes`;
      expect(hiddenPathWarnings(spec([command]), { HOME: home, PATH: '/usr/bin' })).toEqual([
        expect.stringContaining(`checks.items[0].command names ${home}/notes, inside your HOME`),
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
