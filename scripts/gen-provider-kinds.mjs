#!/usr/bin/env node
// Writes src/spec/provider-kinds.ts from the provider table (see scripts/lib/provider-kinds.mjs).
// Reads the source, not the build: a new row does not compile until this has run.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KINDS_PATH, kindsFromTable, kindsModule, TABLE_PATH } from './lib/provider-kinds.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const path = join(root, KINDS_PATH);
const text = kindsModule(kindsFromTable(readFileSync(join(root, TABLE_PATH), 'utf8')));
let before = '';
try {
  before = readFileSync(path, 'utf8');
} catch {
  // not there yet
}
writeFileSync(path, text);
console.log(`${before === text ? 'unchanged' : 'updated'}: ${KINDS_PATH} (provider kinds, from ${TABLE_PATH})`);
