/**
 * What a repo's check commands run, read from its files (for src/spec/repo-probe.ts): the scripts a
 * package.json script or a make recipe starts, and what make reads and decides by (the make file,
 * the files it includes, the targets `test` depends on). Only the repo's files are read here.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The start of a make rule's line, up to its colon: its targets (group 1), as written, no variable
 * or pattern; `::` rules too, not `:=` assignments.
 */
const MAKE_RULE = /^([^\s:#=$%][^:#=$%]*?)[ \t]*::?(?!=)/m;

/**
 * The files a make file includes (`include`, `-include`, `sinclude`), as written where a name holds
 * no variable: an optional `-include local.mk` that the repo does not have is the common case, and
 * a candidate that adds it can redefine the `test` target or a variable its recipe runs (checked:
 * `make test` then passes). Names are relative to the folder make runs in, the repo's root.
 */
export function makeIncludes(text: string): string[] {
  const names = new Set<string>();
  for (const [, list] of text.matchAll(/^[ \t]*(?:-include|sinclude|include)[ \t]+([^#\n]+)/gm)) {
    for (const name of (list ?? '').trim().split(/\s+/)) {
      if (name !== '' && !name.includes('$') && !name.startsWith('/') && !name.split('/').includes('..')) names.add(name.replace(/^(\.\/)+/, ''));
    }
  }
  return [...names];
}

/** The make file make reads first (GNUmakefile, makefile, Makefile), and its text. */
export function makeFileText(root: string): { name?: string; text: string } {
  const name = ['GNUmakefile', 'makefile', 'Makefile'].find((file) => existsSync(join(root, file)));
  return name === undefined ? { text: '' } : { name, text: readFileSync(join(root, name), 'utf8') };
}

/** The package.json scripts init may write a check for (`npm test`, `npm run lint`, `npm run typecheck`). */
export const NPM_CHECKED_SCRIPTS = ['test', 'lint', 'typecheck'] as const;

/** The scripts package.json's script `name` runs, and its `pre` and `post` scripts (npm runs all three). */
export function npmScriptFiles(root: string, scripts: Readonly<Record<string, unknown>>, name: string): string[] {
  const commands = [`pre${name}`, name, `post${name}`].map((script) => scripts[script]).filter((script): script is string => typeof script === 'string');
  return commands.flatMap((command) => filesNamed(root, command));
}

/**
 * `target` and every target of the make file it depends on, directly or not (normal and
 * order-only prerequisites, as written: no variable, no pattern, nothing outside the repo). A file
 * of any of these names, newer than what that target depends on, is taken for the target: make
 * runs none of its recipe.
 */
export function makeTargetNames(text: string, target: string): string[] {
  const rules = new Map<string, string[]>();
  for (const [, targets, prerequisites] of text.matchAll(new RegExp(`${MAKE_RULE.source}[ \\t]*([^=#\\n;]*)`, 'gm'))) {
    for (const name of (targets ?? '').trim().split(/\s+/)) {
      rules.set(name, [...(rules.get(name) ?? []), ...(prerequisites ?? '').split(/[\s|]+/).filter(Boolean)]);
    }
  }
  const names = [target];
  for (let i = 0; i < names.length; i++) {
    for (const name of rules.get(names[i] as string) ?? []) {
      if (
        !names.includes(name) &&
        rules.has(name) &&
        !name.startsWith('.') &&
        !name.startsWith('/') &&
        !/[$%*?[\]]/.test(name) &&
        !name.split('/').includes('..')
      )
        names.push(name);
    }
  }
  return names;
}

/**
 * The scripts the recipes of the make file's `test` target and of the targets it depends on run
 * (a recipe: the lines that start with a tab after the rule).
 */
export function makeTestFiles(root: string, text: string): string[] {
  const targets = new Set(makeTargetNames(text, 'test'));
  const lines = text.split('\n');
  const recipes: string[] = [];
  let inRecipe = false;
  for (const line of lines) {
    if (line.startsWith('\t')) {
      if (inRecipe) recipes.push(line.slice(1).replace(/^[@+-]+/, ''));
      continue;
    }
    const rule = MAKE_RULE.exec(line);
    inRecipe =
      rule !== null &&
      (rule[1] ?? '')
        .trim()
        .split(/\s+/)
        .some((name) => targets.has(name));
  }
  return recipes.flatMap((recipe) => filesNamed(root, recipe));
}

/** Programs that run the script named right after them (`node scripts/test.js`, `sh run-tests.sh`). */
const INTERPRETERS = new Set(['node', 'sh', 'bash', 'zsh', 'dash', 'python', 'python3', 'perl', 'ruby', 'tsx', 'ts-node']);

/**
 * The scripts of the repo a shell command runs, as written: the program of each simple command
 * (`./run-tests.sh`, `scripts/check.sh --fast`) and the script an interpreter is given first
 * (`node scripts/test.js`), where that is a relative path without a variable or a wildcard, inside
 * the repo, and a file on disk. Never the other arguments: `node --check src/add.js` and `eslint
 * lib/index.js` name the code under check, which candidates must be free to change.
 */
function filesNamed(root: string, command: string): string[] {
  const files: string[] = [];
  for (const simple of command.split(/&&|\|\||[;|&()\n]/)) {
    const words = simple
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/^["']|["']$/g, ''));
    while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string) || ['exec', 'env', 'time', 'command'].includes(words[0] as string)))
      words.shift();
    const [program, first] = words;
    if (program === undefined) continue;
    const script = INTERPRETERS.has(program.split('/').at(-1) as string) ? first : program;
    if (script === undefined || script.startsWith('-') || script.startsWith('/') || script.startsWith('~') || /[$*?[\]{}=\\`]/.test(script)) continue;
    const path = script.replace(/^(\.\/)+/, '');
    if (path !== '' && !path.split('/').includes('..') && isFile(join(root, path))) files.push(path);
  }
  return files;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
