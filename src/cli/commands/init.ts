import { EXIT_CODES } from '../../engine/exit-codes.js';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseCommandArgs } from '../args.js';
import { DEFAULT_SPEC } from '../load-spec-or-explain.js';
import { installedSchemaUrl, starterSpec } from '../../spec/starter.js';
import { openRepo } from '../../git/repo.js';

/** `bestof init`: a commented starter spec at the root of the current repo. */
export async function initCommand(args: readonly string[]): Promise<number> {
  const { values } = parseCommandArgs('init', args, { force: { type: 'boolean' } });
  const repo = await openRepo(process.cwd());
  if (!repo.ok) {
    process.stderr.write(`bestof init: ${repo.error}\n`);
    return EXIT_CODES.badInput;
  }
  const path = resolve(repo.value.root, DEFAULT_SPEC);
  if (existsSync(path) && !values.force) {
    process.stderr.write(`bestof init: ${path} already exists; nothing written (use --force to overwrite it)\n`);
    return EXIT_CODES.badInput;
  }
  const name = basename(repo.value.root).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'task';
  // The `#:schema` line lets editors with TOML support complete and check the spec as it is edited.
  writeFileSync(path, starterSpec({ name, schema: installedSchemaUrl() }));
  process.stdout.write(`wrote ${path}\nedit the task and the checks, then: bestof validate && bestof run\n`);
  return EXIT_CODES.ok;
}
