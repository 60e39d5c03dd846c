#!/usr/bin/env node
// The scripted tester of the clamp task: below the range, above it, inside it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BESTOF_TESTS_DIR;
const head = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { clamp } from '../lib/clamp.mjs';\n\n";
const file = (name, body) => writeFileSync(join(dir, name), `${head}${body}\n`);
file('above.test.mjs', "test('above', () => assert.equal(clamp(15, 0, 10), 10));");
file('below.test.mjs', "test('below', () => assert.equal(clamp(-5, 0, 10), 0));");
file('inside.test.mjs', "test('inside', () => assert.equal(clamp(3, 0, 10), 3));");
