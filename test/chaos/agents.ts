/**
 * Deterministic fake agents for the kill -9 campaign: what each one writes depends only on what
 * its worktree already holds, so an agent killed half-way and started again after a resume goes
 * on where it was, and the winner of an interrupted run must be the winner of an uninterrupted one.
 *
 * The checks (see CHAOS_CHECKS): `add` passes when src/add.mjs adds, `docs` when docs.md exists.
 *   thorough: iteration 1 fixes add, iteration 2 writes docs -> full score at iteration 2
 *   partial:  writes docs only -> half the points
 *   idle:     writes notes only -> nothing
 * Each sleeps a little and prints a few lines, so that kills land inside agent calls too.
 */
export const THOROUGH_AGENT = `#!/bin/bash
set -e
for i in 1 2 3; do echo "thinking $i"; sleep 0.2; done
if ! grep -q 'a + b' src/add.mjs; then
  echo 'export const add = (a, b) => a + b;' > src/add.mjs
  echo "fixed add"
else
  printf '# docs\\n' > docs.md
  echo "wrote docs"
fi
`;

export const PARTIAL_AGENT = `#!/bin/bash
set -e
for i in 1 2; do echo "looking $i"; sleep 0.3; done
printf '# docs\\n' > docs.md
`;

export const IDLE_AGENT = `#!/bin/bash
sleep 0.4
echo "I looked at it." >> notes.txt
`;

export const CHAOS_CHECKS = `
[checks]
frozen = ["test/**", "scripts/check.sh"]
[[checks.items]]
name = "add"
command = "./scripts/check.sh"
score = 60
[[checks.items]]
name = "docs"
command = "test -f docs.md"
score = 40
`;
