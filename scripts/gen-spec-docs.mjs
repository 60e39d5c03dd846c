#!/usr/bin/env node
// Writes the documents generated from the spec schema: the spec reference in docs/spec.md (between
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

const pagePath = join(root, reference.SPEC_REFERENCE_PATH);
const page = readFileSync(pagePath, 'utf8');
const updated = reference.withReferenceRegion(page, reference.specReferenceMarkdown());
writeFileSync(pagePath, updated);
writeFileSync(join(root, reference.JSON_SCHEMA_PATH), reference.specJsonSchemaText());
const bench = await import('../dist/bench/bench-spec.js');
writeFileSync(join(root, bench.BENCH_JSON_SCHEMA_PATH), bench.benchJsonSchemaText());
console.log(
  `${updated === page ? 'unchanged' : 'updated'}: ${reference.SPEC_REFERENCE_PATH} (spec reference)\nwritten: ${reference.JSON_SCHEMA_PATH}, ${bench.BENCH_JSON_SCHEMA_PATH}`,
);
