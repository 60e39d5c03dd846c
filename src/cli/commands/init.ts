import { EXIT_CODES } from '../../engine/exit-codes.js';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { parseCommandArgs } from '../args.js';
import { bestofInvocation } from '../invocation.js';
import { DEFAULT_SPEC } from '../load-spec-or-explain.js';
import { installedSchemaUrl, starterSpec } from '../../spec/starter.js';
import { openRepo } from '../../git/running/repo.js';
import { probeAt } from '../../checks/probe-at.js';
import type { RepoProbe } from '../../spec/repo-probe.js';

export { probeAt };

/**
 * `bestof init`: a commented starter spec at the root of the current repo (also when run from a
 * subfolder: the run reads it there), with the checks, frozen paths and links found in the repo.
 */
export async function initCommand(args: readonly string[]): Promise<number> {
  const { values } = parseCommandArgs('init', args);
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
  const name =
    basename(repo.value.root)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '') || 'task';
  const probe = await probeAt(repo.value.root);
  // The `#:schema` line lets editors with TOML support complete and check the spec as it is edited.
  writeFileSync(path, starterSpec({ name, schema: installedSchemaUrl(), probe }));
  const sub = relative(repo.value.root, resolve(process.cwd()));
  const where = sub === '' ? '' : ` (at the root of the repo, not in ${sub}/: bestof validate and bestof run find it from any folder of the repo)`;
  // The next commands in the form the user started this one with (bestof on PATH, or npx).
  const bestof = bestofInvocation();
  process.stdout.write(`wrote ${path}${where}\n${foundLine(probe)}\nedit the task and the checks, then: ${bestof} validate && ${bestof} run\n`);
  return EXIT_CODES.ok;
}

function foundLine(probe: RepoProbe): string {
  if (probe.checks.length === 0)
    return 'found no test command (package.json scripts, pytest, Cargo.toml, go.mod, a Makefile test target): the spec has a placeholder check to replace';
  const parts = [
    `checks: ${probe.checks.map((check) => `\`${check.command}\``).join(', ')}`,
    probe.frozen.length > 0 ? `frozen: ${probe.frozen.join(', ')}` : 'no test folder to freeze found',
    ...(probe.protected.length > 0
      ? [
          `protected: ${probe.protected.length} names of files that change what the test runner runs (${probe.protected.slice(0, 2).join(', ')}${probe.protected.length > 2 ? ', ...' : ''})`,
        ]
      : []),
    ...(probe.editable.length > 0 ? [`editable: ${probe.editable.join(', ')}`] : []),
    ...(probe.link.length > 0 ? [`setup.link: ${probe.link.join(', ')}`] : []),
  ];
  return `found ${probe.kinds.join(', ')}: ${parts.join('; ')}`;
}
