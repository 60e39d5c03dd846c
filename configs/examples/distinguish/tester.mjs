#!/usr/bin/env node
// A scripted tester for the distinguish example: it reads the prompt bestof wrote (argv[2]),
// checks that it shows solutions under labels, and writes five test files into
// $BESTOF_TESTS_DIR, as a model would after reading the diffs: an even count and numbers of two
// digits (where the solutions differ), two cases every solution gets right, and one broken file
// (it imports a module no solution has), which fails everywhere and is dropped.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const prompt = readFileSync(process.argv[2], 'utf8');
if (!/^### Solution A$/m.test(prompt) || !/^### Solution B$/m.test(prompt)) {
  console.error('the prompt shows no labelled solutions');
  process.exit(1);
}
const dir = process.env.BESTOF_TESTS_DIR;
if (!dir) {
  console.error('BESTOF_TESTS_DIR is not set');
  process.exit(1);
}
const file = (name, body) =>
  writeFileSync(
    join(dir, name),
    `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { median } from '../lib/median.mjs';\n\n${body}\n`,
  );
file('even.test.mjs', "test('an even count: the mean of the two middle values', () => assert.equal(median([4, 1, 3, 2]), 2.5));");
file('two-digits.test.mjs', "test('numbers of two digits sort as numbers', () => assert.equal(median([10, 9, 2]), 9));");
file('odd.test.mjs', "test('an odd count', () => assert.equal(median([3, 1, 2]), 2));");
file('single.test.mjs', "test('one number', () => assert.equal(median([5]), 5));");
writeFileSync(join(dir, 'broken.test.mjs'), "import { mean } from '../lib/mean.mjs';\nimport { test } from 'node:test';\ntest('mean', () => mean([1]));\n");
console.log('wrote 5 test files');
