/**
 * What the planner says of a spec that loads but is not finished or not safe yet: init's
 * placeholder task still in it (a problem: nothing is created), no `[checks] editable` (a warning,
 * said by `validate` and once by `run`).
 */
import { PROMPT_PLACEHOLDER } from '../../spec/prompt-placeholder.js';
import type { Spec } from '../../spec/schema.js';

/**
 * For a spec without `[checks] editable`: every change a candidate makes then counts as its work,
 * and some change what a check runs without any name bestof could list (a module the tests import
 * from the folder they run in).
 */
export const NO_EDITABLE_WARNING =
  'checks.editable is not set: every file a candidate adds or changes counts as its work, and one that changes what a check runs under a name bestof does not keep (a module the tests import from the folder they run in) can pass the checks without the fix; list where your code lives, e.g. `editable = ["lib/**"]` (`bestof init` writes it from what package.json, pyproject.toml, go.mod or Cargo.toml declare)';

export function noEditableWarnings(spec: Pick<Spec, 'checks'>): string[] {
  return spec.checks.editable.length === 0 && spec.checks.items.length > 0 ? [NO_EDITABLE_WARNING] : [];
}

/** The task as read (`prompt.text`, or `prompt.file`'s text) still holds `bestof init`'s placeholder. */
export function unfinishedTaskProblems(spec: Pick<Spec, 'prompt'>, prompt: string): string[] {
  if (!prompt.includes(PROMPT_PLACEHOLDER)) return [];
  const key = spec.prompt.file ? 'prompt.file' : 'prompt.text';
  return [
    `${key}: still the placeholder \`bestof init\` wrote ("${PROMPT_PLACEHOLDER}, as you would to a colleague ..."); write the task itself there: what to change, where, and how you will judge it`,
  ];
}
