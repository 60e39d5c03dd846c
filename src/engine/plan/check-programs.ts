/**
 * `validate` and `run` warn about a check whose program is nowhere on PATH: it would fail with exit
 * 127 for every candidate, and only after each agent had worked (and cost what it cost). A
 * heuristic on the check's shell text, as networkWarnings (../sandbox/agent-sandbox.ts) is: the first word
 * of each simple command (the text split at `;`, `&`, `&&`, `||`, `|` and new lines), past
 * `VAR=value` assignments, shell keywords (`if`, `then`, `!`, ...) and the wrappers `env`, `time`,
 * `exec`, `command`, `nohup`, `nice`, `timeout` and `xargs` with their options. Left alone: bash's
 * builtins, a function the line defines, a word with a `/` (a path: of the repository, or one a
 * [setup] command makes), a word the shell would expand or that is quoted; and everything after a
 * `source` (`.`: a virtualenv's activate) or a PATH the line sets, which run with another PATH.
 * Never a refusal: a program a [setup] command installs onto PATH is not there yet when the run
 * starts.
 */
import { delimiter, isAbsolute } from 'node:path';
import { findOnPath } from '../../process/find-on-path.js';

/** Words after which the next word is still not the program. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time', 'exec', 'command', 'env', 'nohup', 'nice', 'timeout', 'xargs']);

/** bash's builtins and keywords that can stand first: no program on PATH is needed for them. */
const BUILTINS = new Set(
  (
    'alias bg bind break builtin caller cd compgen complete compopt continue declare dirs disown echo enable eval exit export false fc fg getopts ' +
    'hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend ' +
    'test times trap true type typeset ulimit umask unalias unset wait . : [ [[ fi done esac case for select function in'
  ).split(' '),
);

/** A word the shell would expand, or quoted: what it names is not knowable from the text. */
const EXPANDED = /[$`'"*?~\\]/;

/** The programs a check's shell line starts, as far as the text says (see the module doc). */
export function programsOfCheck(command: string): string[] {
  const programs: string[] = [];
  // Redirections that hold an `&` (`2>&1`, `>&2`, `&>log`) are no command separators.
  const line = command.replace(/\d*[<>]&\d*-?|&>>?/g, ' ');
  // Functions the line defines (`f() { ...; }; f`) are no programs.
  const functions = new Set([...command.matchAll(/([A-Za-z_][\w-]*)\s*\(\)/g)].map((match) => match[1]));
  for (const segment of line.split(/&&|\|\||[;&|\n]/)) {
    // A subshell's or a group's parentheses and braces belong to no word: `(cd sub && make)`.
    const words = segment
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/^[({]+/, '').replace(/[)}]+$/, ''))
      .filter(Boolean);
    let i = 0;
    while (i < words.length) {
      const word = words[i] as string;
      // An assignment (`CI=1 npm test`), an option of a wrapper (`nice -n 5`, `timeout 60`, `env -i`).
      const after = i > 0 ? (words[i - 1] as string) : '';
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || ((KEYWORDS.has(after) || after.startsWith('-')) && /^(-|\d)/.test(word))) {
        i++;
        continue;
      }
      if (KEYWORDS.has(word)) {
        i++;
        continue;
      }
      break;
    }
    const program = words[i];
    // What comes after `source` (a virtualenv's activate) or a PATH set by the line runs with
    // another PATH: what is found there is not knowable from here.
    if (
      program === 'source' ||
      program === '.' ||
      words.some((word) => /^(export\s+)?PATH=/.test(word)) ||
      (program === 'export' && words.some((word) => word.startsWith('PATH=')))
    )
      break;
    if (program === undefined || BUILTINS.has(program) || functions.has(program) || program.includes('/') || EXPANDED.test(program) || /[(){}<>]/.test(program))
      continue;
    if (!programs.includes(program)) programs.push(program);
  }
  return programs;
}

/** One warning per check and program that no absolute folder of `pathVariable` holds. */
export async function missingProgramWarnings(checks: readonly { readonly command: string }[], pathVariable: string): Promise<string[]> {
  // The checks' PATH has no relative folder (src/engine/plan/candidate-env.ts): nor has this one.
  const path = pathVariable
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .join(delimiter);
  const warnings: string[] = [];
  for (const [i, check] of checks.entries()) {
    for (const program of programsOfCheck(check.command)) {
      if ((await findOnPath(program, path)) !== undefined) continue;
      warnings.push(
        `checks.items[${i}].command runs \`${program}\`, which is on no folder of your PATH: the check would fail (exit 127) for every candidate, after its agent has worked; install it, or name it by its full path (unless a [setup] command installs it onto PATH)`,
      );
    }
  }
  return warnings;
}
