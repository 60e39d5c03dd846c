/**
 * `[select.distinguish]` in the plan: the tester agent prepared (a missing CLI or script is bad
 * input, said before anything is made, as a jury voter's is) and the command that runs one
 * generated test file, given or derived from the runner of the spec's report check.
 */
import { prepareAgent } from '../../providers/definitions.js';
import type { PreparedAgent } from '../../providers/types.js';
import type { Script } from '../../providers/script-steps.js';
import type { DistinguishSpec } from '../../spec/schema-distinguish.js';
import type { ProviderSettings, Spec } from '../../spec/schema.js';

export interface DistinguishPlan {
  readonly spec: DistinguishSpec;
  readonly settings: ProviderSettings;
  readonly agent: PreparedAgent;
  /** Runs one test file: `{file}` is its path relative to the repo root. */
  readonly command: string;
}

const KEY = 'select.distinguish';

/** The tester's settings: `[provider]`'s timeout and env, never its program or script. */
export function testerSettings(spec: Spec): ProviderSettings | undefined {
  const d = spec.select.distinguish;
  if (!d) return undefined;
  return {
    ...spec.provider,
    kind: d.provider.kind,
    model: d.provider.model,
    script: d.provider.script,
    command: d.provider.command,
    args: d.provider.args,
    label: 'tester',
  };
}

/**
 * The command that runs one file with the runner the spec's report check runs: pytest, vitest or
 * node's test runner. Undefined when none of them is named there (a Go package's tests cannot be
 * run one file at a time from another folder; a make target says nothing about its runner).
 */
export function defaultTestCommand(spec: Spec): string | undefined {
  const commands = spec.checks.items.filter((c) => c.report !== undefined).map((c) => c.command);
  for (const command of commands) {
    if (/\bpytest\b/.test(command)) return 'python3 -m pytest -q {file}';
    if (/\bvitest\b/.test(command)) return 'npx vitest run {file}';
    if (/node\s+--test\b|--test-reporter/.test(command)) return 'node --test {file}';
  }
  return undefined;
}

export async function planDistinguish(
  spec: Spec,
  context: { readonly specDir: string; readonly scripts: Map<string, Script>; readonly sandboxed: boolean; readonly problems: string[] },
): Promise<DistinguishPlan | undefined> {
  const d = spec.select.distinguish;
  const settings = testerSettings(spec);
  if (!d || !settings) return undefined;
  const prepared = await prepareAgent(settings, {
    specDir: context.specDir,
    key: `${KEY}.provider`,
    scripts: context.scripts,
    sandboxed: context.sandboxed,
    shannon: spec.shannon,
  });
  if (!prepared.ok) {
    context.problems.push(prepared.error);
    return undefined;
  }
  const command = d.command ?? defaultTestCommand(spec);
  if (command === undefined) {
    context.problems.push(
      `${KEY}.command: no command runs one generated test file, and none can be derived (no check with \`report\` runs pytest, vitest or node --test); ` +
        'set command = "<runner> {file}" (python3 -m pytest -q {file}, npx vitest run {file}, node --test {file})',
    );
    return undefined;
  }
  return { spec: d, settings, agent: prepared.value, command };
}
