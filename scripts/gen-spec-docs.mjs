#!/usr/bin/env node
// Writes the documents generated from the spec schema: the README's spec reference (between
// the spec-reference markers), configs/bestof.schema.json and configs/bench.schema.json. The logic is in
// src/spec/reference.ts (tested against the committed files by test/spec/generated.test.ts);
// this script only writes its output, from the build: run it as `npm run gen:spec`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reference = await import('../dist/spec/reference.js').catch((error) => {
  console.error(`gen-spec-docs: cannot load dist/spec/reference.js (${error.message}); run \`npm run gen:spec\`, which builds first`);
  process.exit(2);
});

const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const updated = reference.withReferenceRegion(readme, reference.specReferenceMarkdown());
writeFileSync(readmePath, updated);
writeFileSync(join(root, reference.JSON_SCHEMA_PATH), reference.specJsonSchemaText());
const bench = await import('../dist/bench/bench-spec.js');
writeFileSync(join(root, bench.BENCH_JSON_SCHEMA_PATH), bench.benchJsonSchemaText());
console.log(`${updated === readme ? 'unchanged' : 'updated'}: README.md (spec reference)\nwritten: ${reference.JSON_SCHEMA_PATH}, ${bench.BENCH_JSON_SCHEMA_PATH}`);
