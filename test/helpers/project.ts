/**
 * A small project in a real temp git repo, with a failing test and a check script, and a
 * place outside it for specs and worktrees, for the engine's integration tests.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, makeTempRepo, type TempRepo } from './temp-repo.js';

export const FIXTURE_BIN = fileURLToPath(new URL('../fixtures/bin', import.meta.url));

export interface Project {
  readonly repo: TempRepo;
  /** A folder outside the repo for specs and scripts. */
  readonly outside: string;
  readonly worktreesDir: string;
  /** Writes a file outside the repo and returns its path. */
  writeOutside(path: string, content: string): string;
  cleanup(): void;
}

export const PROJECT_FILES: Record<string, string> = {
  'src/add.mjs': 'export const add = (a, b) => 0;\n',
  'test/add.test.mjs': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { add } from '../src/add.mjs';",
    "test('adds', () => assert.equal(add(2, 3), 5));",
    '',
  ].join('\n'),
  'scripts/check.sh': '#!/bin/sh\nexec node --test test/*.test.mjs\n',
  'README.md': '# project\n',
};

export function makeProject(): Project {
  const repo = makeTempRepo(PROJECT_FILES);
  chmodSync(join(repo.dir, 'scripts/check.sh'), 0o755);
  repo.commitAll('make check executable');
  const outside = makeTempDir('bestof-outside-');
  const worktreesDir = join(outside, 'worktrees');
  return {
    repo,
    outside,
    worktreesDir,
    writeOutside(path, content) {
      const full = join(outside, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
      return full;
    },
    cleanup() {
      repo.cleanup();
      rmSync(outside, { recursive: true, force: true });
    },
  };
}

/** A fixing script agent: writes the correct add(). */
export const FIX_SCRIPT = `
[[steps]]
say = "fixing add"
[[steps]]
write = "src/add.mjs"
content = "export const add = (a, b) => a + b;\\n"
`;

/** A script agent that does nothing useful. */
export const IDLE_SCRIPT = `
[[steps]]
write = "notes.txt"
content = "I looked at it.\\n"
`;

export function specToml(repoDir: string, body: string): string {
  return `name = "t"\nrepo = ${JSON.stringify(repoDir)}\n\n[prompt]\ntext = "Make the tests pass."\n\n${body}`;
}

export const ADD_CHECKS = `
[checks]
frozen = ["test/**", "scripts/check.sh"]

[[checks.items]]
name = "tests"
command = "scripts/check.sh"
score = 10
timeout = "60s"
`;
