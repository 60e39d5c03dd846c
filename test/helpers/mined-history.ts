/**
 * A small repo whose history holds one commit of each kind `bestof bench mine` must tell apart
 * (node --test, TAP report): a real fix with its test, a docs-only commit, a test-only commit, a
 * commit whose new test already passes before it, a fix that changes what an old test expects, and
 * a source-only commit. Built with real git in a temp folder.
 */
import { makeTempRepo, type TempRepo } from './temp-repo.js';

export interface MinedHistory {
  readonly repo: TempRepo;
  /** Commit ids by what they are. */
  readonly commits: {
    readonly fix: string;
    readonly docs: string;
    readonly testOnly: string;
    readonly passesBefore: string;
    readonly changesOldTest: string;
    readonly sourceOnly: string;
  };
}

const CHECK = `[[checks.items]]
name = "test"
command = "node --test --test-reporter=tap"
report = "tap"
score = 100

[checks]
frozen = ["test/**"]
`;

/** `slowCheck`: the check sleeps this many seconds first (a mining slow enough to be killed midway). */
export function minedHistory(options: { slowCheck?: number } = {}): MinedHistory {
  const check = options.slowCheck ? CHECK.replace('command = "', `command = "sleep ${options.slowCheck} && `) : CHECK;
  const repo = makeTempRepo({
    'bestof.toml': check,
    'lib/add.mjs': 'export const add = (a, b) => a + b;\n',
    'test/add.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../lib/add.mjs';\ntest('add adds', () => assert.equal(add(2, 3), 5));\n",
    'README.md': '# numbers\n',
  });

  repo.write('lib/mul.mjs', 'export const mul = (a, b) => a * b;\n');
  repo.write(
    'test/mul.test.mjs',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { mul } from '../lib/mul.mjs';\ntest('mul multiplies the secret operands', () => assert.equal(mul(6, 7), 42));\ntest('mul by zero is zero', () => assert.equal(mul(9, 0), 0));\n",
  );
  const fix = repo.commitAll('Add mul\n\nmul(a, b) multiplies two numbers, as add adds them.');

  repo.write('README.md', '# numbers\n\nadd and mul.\n');
  const docs = repo.commitAll('Docs: say what the library has');

  repo.write('test/add.test.mjs', `${repo.git('show', 'HEAD:test/add.test.mjs')}\ntest('add is commutative', () => assert.equal(add(1, 4), add(4, 1)));\n`);
  const testOnly = repo.commitAll('Test that add is commutative');

  repo.write('lib/add.mjs', '/** Adds. */\nexport const add = (a, b) => a + b;\n');
  repo.write(
    'test/zero.test.mjs',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../lib/add.mjs';\ntest('add with zero', () => assert.equal(add(0, 7), 7));\n",
  );
  const passesBefore = repo.commitAll('Document add, test it with zero');

  const changesOldTest = changeOldExpectation(repo);

  repo.write('lib/mul.mjs', '/** Multiplies. */\nexport const mul = (a, b) => a * b;\n');
  const sourceOnly = repo.commitAll('Document mul');

  return { repo, commits: { fix, docs, testOnly, passesBefore, changesOldTest, sourceOnly } };
}

/**
 * A fix whose commit also changes an old test's expectation: the parent has `test/float.test.mjs`
 * expecting add(0.1, 0.2) to be 0.3 to within a float's error; the fix rounds, so the old test fails
 * with the fix, while the commit's own version of it passes.
 */
function changeOldExpectation(repo: TempRepo): string {
  repo.write(
    'test/float.test.mjs',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../lib/add.mjs';\ntest('add keeps fractions', () => assert.ok(Math.abs(add(0.1, 0.2) - 0.3) < 1e-9));\n",
  );
  repo.commitAll('Test that add keeps fractions');
  repo.write('lib/add.mjs', '/** Adds, rounded to an integer. */\nexport const add = (a, b) => Math.round(a + b);\n');
  repo.write(
    'test/float.test.mjs',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../lib/add.mjs';\ntest('add keeps fractions', () => assert.equal(add(0.1, 0.2), 0));\ntest('add rounds', () => assert.equal(add(2.2, 2.2), 4));\n",
  );
  return repo.commitAll('Round the sum to an integer');
}
