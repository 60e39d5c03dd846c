/**
 * A hidden check's files in the scoring tree (src/checks/hidden-files.ts through runChecks): laid
 * for that check alone and taken away after it, whatever happened; never written through a link,
 * never over a file, never a link followed out of the hidden folder; rewritten by the code the
 * check ran, the check fails. Real folders, real shell checks.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChecks, type CheckOutcome } from '../../src/checks/run-checks.js';
import { hiddenFilesRecord, layHiddenFiles, removeLeftHiddenFiles } from '../../src/checks/hidden-files.js';
import type { CheckSpec } from '../../src/spec/schema.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const { tempDir } = tempRepos();

const MARKER = 'HIDDEN-MARKER-5f1c';

function check(name: string, command: string, extra: Partial<CheckSpec> = {}): CheckSpec {
  return { name, command, score: 1, timeout: 30_000, from_iteration: 1, kind: 'score', ...extra } as CheckSpec;
}

/** A scoring tree with one file, and a hidden folder outside it holding two files (one in a subfolder). */
function setUp(): { tree: string; hidden: string; logs: string } {
  // A folder of its own inside a temp one: the record goes beside it (hiddenFilesRecord).
  const tree = join(tempDir(), 'worktree');
  mkdirSync(tree);
  writeFileSync(join(tree, 'README.md'), '# tree\n');
  const hidden = tempDir();
  writeFileSync(join(hidden, 'acceptance.test.js'), `// ${MARKER}\n`);
  mkdirSync(join(hidden, 'more'));
  writeFileSync(join(hidden, 'more', 'extra.test.js'), '// more\n');
  return { tree, hidden, logs: tempDir() };
}

async function run(tree: string, logs: string, checks: readonly CheckSpec[], signal = new AbortController().signal): Promise<CheckOutcome[]> {
  return runChecks(checks, { cwd: tree, env: process.env, signal, logDir: logs });
}

describe('hidden files in the scoring tree', () => {
  it('are there for their check only: the check lists them, the next check and the tree after do not find them', async () => {
    const { tree, hidden, logs } = setUp();
    const outcomes = await run(tree, logs, [
      check('acceptance', 'find test -type f | sort && grep -q HIDDEN-MARKER test/hidden/acceptance.test.js', { hidden, into: 'test/hidden' }),
      check('after', 'test ! -e test'),
    ]);
    expect(outcomes.map((o) => [o.name, o.passed])).toEqual([
      ['acceptance', true],
      ['after', true],
    ]);
    expect(readFileSync(join(logs, readdirSync(logs).find((f) => f.startsWith('acceptance'))!), 'utf8')).toContain(
      'test/hidden/acceptance.test.js\ntest/hidden/more/extra.test.js',
    );
    // The folders made for them went too: the tree is as it was.
    expect(readdirSync(tree)).toEqual(['README.md']);
    // The hidden folder is untouched.
    expect(readFileSync(join(hidden, 'acceptance.test.js'), 'utf8')).toBe(`// ${MARKER}\n`);
  });

  it('are taken away when the check fails, and when it is cancelled while it runs', async () => {
    const { tree, hidden, logs } = setUp();
    const failed = await run(tree, logs, [check('acceptance', 'exit 3', { hidden, into: 'test/hidden' })]);
    expect(failed[0]).toMatchObject({ passed: false, exitCode: 3, hidden: true });
    expect(existsSync(join(tree, 'test'))).toBe(false);

    const abort = new AbortController();
    const running = run(tree, logs, [check('acceptance', 'touch started.flag; sleep 30', { hidden, into: 'test/hidden' })], abort.signal);
    await waitUntil(() => existsSync(join(tree, 'started.flag')), 'the check to start');
    expect(existsSync(join(tree, 'test', 'hidden', 'acceptance.test.js'))).toBe(true);
    abort.abort();
    expect(await running).toEqual([]);
    expect(existsSync(join(tree, 'test'))).toBe(false);
  });

  it('keep an existing folder above `into` and take away only what was made for them', async () => {
    const { tree, hidden, logs } = setUp();
    mkdirSync(join(tree, 'test'));
    writeFileSync(join(tree, 'test', 'visible.test.js'), '// visible\n');
    await run(tree, logs, [check('acceptance', 'test -f test/hidden/acceptance.test.js', { hidden, into: 'test/hidden' })]);
    expect(readdirSync(join(tree, 'test'))).toEqual(['visible.test.js']);
  });

  it('are never written through a link above `into`: the check fails and the link target stays empty', async () => {
    const { tree, hidden, logs } = setUp();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(tree, 'test'));
    const [outcome] = await run(tree, logs, [check('acceptance', 'true', { hidden, into: 'test/hidden' })]);
    expect(outcome).toMatchObject({ passed: false, points: 0, why: 'its hidden files could not be laid' });
    expect(outcome!.outputTail).toContain('`test` is a symbolic link');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('are never laid over what is at `into` already (a file the candidate committed there)', async () => {
    const { tree, hidden, logs } = setUp();
    mkdirSync(join(tree, 'test', 'hidden'), { recursive: true });
    writeFileSync(join(tree, 'test', 'hidden', 'acceptance.test.js'), '// the candidate\n');
    const [outcome] = await run(tree, logs, [check('acceptance', 'true', { hidden, into: 'test/hidden' })]);
    expect(outcome).toMatchObject({ passed: false, points: 0 });
    expect(outcome!.outputTail).toContain('`test/hidden` is already in the tree scored');
    expect(readFileSync(join(tree, 'test', 'hidden', 'acceptance.test.js'), 'utf8')).toBe('// the candidate\n');
  });

  it('follow no link of the hidden folder: the check fails and the link target is not copied', async () => {
    const { tree, hidden, logs } = setUp();
    const secret = join(tempDir(), 'secret.txt');
    writeFileSync(secret, 'not for the tree\n');
    symlinkSync(secret, join(hidden, 'more', 'link.txt'));
    const [outcome] = await run(tree, logs, [check('acceptance', 'true', { hidden, into: 'test/hidden' })]);
    expect(outcome).toMatchObject({ passed: false, points: 0 });
    expect(outcome!.outputTail).toContain('"more/link.txt", which is not a file');
    expect(existsSync(join(tree, 'test'))).toBe(false);
  });

  it('rewritten by the code the check runs (no sandbox): the check fails whatever it exited with', async () => {
    const { tree, hidden, logs } = setUp();
    const [outcome] = await run(tree, logs, [check('acceptance', 'echo "// gutted" > test/hidden/acceptance.test.js', { hidden, into: 'test/hidden' })]);
    expect(outcome).toMatchObject({ passed: false, points: 0, exitCode: 0, why: 'its hidden files were changed while it ran', hidden: true });
    expect(outcome!.outputTail).toContain('acceptance.test.js');
  });

  it('with show_output = true the outcome is not withheld; without, it is', async () => {
    const { tree, hidden, logs } = setUp();
    const outcomes = await run(tree, logs, [
      check('withheld', 'cat test/hidden/acceptance.test.js; exit 1', { hidden, into: 'test/hidden' }),
      check('shown', 'cat test/hidden/acceptance.test.js; exit 1', { hidden, into: 'test/hidden', show_output: true }),
    ]);
    expect(outcomes[0]).toMatchObject({ hidden: true });
    expect(outcomes[1]!.hidden).toBeUndefined();
    expect(outcomes[1]!.outputTail).toContain(MARKER);
  });

  it('left in the tree by a bestof killed while they were there, are taken away by their record (resume, clean)', async () => {
    const { tree, hidden } = setUp();
    // Laid and never taken away: what a kill -9 during the check leaves.
    const laid = await layHiddenFiles(tree, { name: 'acceptance', hidden, into: 'test/hidden' });
    expect(laid.ok).toBe(true);
    expect(existsSync(hiddenFilesRecord(tree))).toBe(true);
    expect(await removeLeftHiddenFiles(tree)).toBe('test');
    expect(readdirSync(tree)).toEqual(['README.md']);
    expect(existsSync(hiddenFilesRecord(tree))).toBe(false);
    expect(await removeLeftHiddenFiles(tree)).toBeUndefined();
  });

  it('not laid (`into` already there): no record is left, so nothing of the tree is ever taken for them', async () => {
    const { tree, hidden } = setUp();
    mkdirSync(join(tree, 'test', 'hidden'), { recursive: true });
    writeFileSync(join(tree, 'test', 'hidden', 'mine.js'), '// the candidate\n');
    expect((await layHiddenFiles(tree, { name: 'acceptance', hidden, into: 'test/hidden' })).ok).toBe(false);
    expect(await removeLeftHiddenFiles(tree)).toBeUndefined();
    expect(readdirSync(join(tree, 'test', 'hidden'))).toEqual(['mine.js']);
  });
});
