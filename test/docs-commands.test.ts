/**
 * The docs say what the tool does: the commands table of docs/commands.md names each command with
 * exactly the options its parser takes (COMMANDS in src/cli/help.ts, from which the help and the
 * parser are made), and the README's table has a row for every command a person runs. A new user
 * found `resume [--json]` in the table while `--help` also listed `--no-tui`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/help.js';
import { PROJECT_ROOT } from './helpers/cli.js';

/** The first cell of each row of the first table under a page's "| command |" header. */
function commandCells(markdown: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^\| command \|/.test(line));
  expect(start, 'a "| command | ... |" table').toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cell = /^\| `([^`]+)` \|/.exec(line)?.[1];
    if (cell !== undefined) rows.push(cell.replace(/\\\|/g, '|'));
  }
  return rows;
}

/** The command a cell's usage names: the longest command name after `bestof `. */
function commandOf(cell: string): string | undefined {
  const names = Object.values(COMMANDS)
    .map((c) => c.name)
    .sort((a, b) => b.length - a.length);
  return names.find((name) => cell === `bestof ${name}` || cell.startsWith(`bestof ${name} `));
}

const optionsIn = (cell: string): string[] => [...new Set([...cell.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1] as string))].sort();

describe('the commands table of docs/commands.md', () => {
  const cells = commandCells(readFileSync(join(PROJECT_ROOT, 'docs', 'commands.md'), 'utf8'));

  it('has one row per command', () => {
    expect(cells.map(commandOf).sort()).toEqual(
      Object.values(COMMANDS)
        .map((c) => c.name)
        .sort(),
    );
  });

  it.each(Object.values(COMMANDS).map((c) => [c.name]))('bestof %s: the row names exactly the options its parser takes', (name) => {
    const cell = cells.find((c) => commandOf(c) === name);
    expect(cell, `no row for bestof ${name}`).toBeDefined();
    const command = Object.values(COMMANDS).find((c) => c.name === name)!;
    expect(optionsIn(cell!), cell).toEqual(Object.keys(command.options).sort());
  });
});

describe("the README's commands table", () => {
  it('has a row for every command a person runs, and names no option a command does not take', () => {
    const cells = commandCells(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    const listed = Object.values(COMMANDS).filter((c) => !('internal' in c && c.internal));
    expect(cells.map(commandOf).sort()).toEqual(listed.map((c) => c.name).sort());
    for (const cell of cells) {
      const command = Object.values(COMMANDS).find((c) => c.name === commandOf(cell))!;
      for (const option of optionsIn(cell)) expect(Object.keys(command.options), cell).toContain(option);
    }
  });
});
