#!/usr/bin/env node
// A scripted voter for the creative-draft example: it reads the prompt bestof wrote (argv[2])
// and answers by a fixed taste (argv[3]: words, best first, e.g. "lighthouse,harbor,fog"), a
// candidate's place being that of the first of these words its draft contains. It answers the
// three kinds of prompt a vote asks: a cross-review, a ranking, a pairwise question.
import { readFileSync } from 'node:fs';

const prompt = readFileSync(process.argv[2], 'utf8');
const taste = (process.argv[3] ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);

// "## Candidate A" sections, each up to the next "## " heading that is not inside a fence.
const sections = new Map();
const lines = prompt.split('\n');
let current;
let fence;
for (const line of lines) {
  const f = /^(`{3,})/.exec(line);
  if (f) fence = fence === undefined ? f[1] : line.trim() === fence ? undefined : fence;
  const m = fence === undefined ? /^## Candidate ([A-Z]+)$/.exec(line) : null;
  if (m) sections.set(m[1], (current = []));
  else if (fence === undefined && /^## /.test(line)) current = undefined;
  else current?.push(line);
}
const place = (label) => {
  const text = (sections.get(label) ?? []).join('\n').toLowerCase();
  const i = taste.findIndex((w) => text.includes(w));
  return i === -1 ? taste.length : i;
};
const labels = [...sections.keys()];
const best = [...labels].sort((a, b) => place(a) - place(b) || a.localeCompare(b));

if (prompt.startsWith('You are reviewing')) {
  for (const label of labels) {
    console.log(`## ${label}\n\n**Strengths**\n- a clear scene\n\n**Weaknesses**\n- ${place(label) === 0 ? 'little' : 'the ending is thin'}\n\n**Risks**\n- none\n`);
  }
} else if (prompt.startsWith('You are comparing')) {
  console.log(`I prefer the draft closer to my taste.\nWINNER: ${best[0]}`);
} else {
  console.log(`I ranked by which draft I would rather read.\n\nFINAL RANKING:\n${best.join('\n')}`);
}
