/**
 * The language of the built-in `script` agent: a TOML file of steps that a candidate
 * "performs" instead of calling a model. It makes demos and tests deterministic:
 *
 *   [[steps]]                       # the same steps in every iteration, or
 *   [[iterations]]                  # iteration i performs iterations[min(i, n) - 1]
 *   [[iterations.steps]]
 *
 * Each step has exactly one action key:
 *   say = "text"                              an activity line (and the final answer)
 *   write = "path", content = "..."           create or overwrite a file in the worktree
 *                                             ({iteration} and {candidate} in content and say are replaced)
 *   replace = "path", find = "a", with = "b"  replace every occurrence of `find`
 *   delete = "path"                           delete a file or folder
 *   symlink = "path", target = "..."          replace a path by a symbolic link
 *   run = "shell command"                     run in the worktree (fails the step on non-zero exit)
 *   sleep = "2s"                              wait (cancellable)
 *   usage = { input = 1000, output = 200 }, cost_usd = 0.01   report tokens and cost
 *   fail = "crashed", message = "..."         end the invocation with this outcome
 *     times = 1                               ...only the first N times this step is reached (then skip it)
 *     retry_after = "2s"                      ...and tell bestof how long to wait (rate / usage limits)
 */
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { parseDuration } from '../spec/duration.js';
import { OUTCOMES } from './outcomes.js';
import { err, ok, type Result } from '../result.js';

const ACTIONS = ['say', 'write', 'replace', 'delete', 'symlink', 'run', 'sleep', 'usage', 'fail'] as const;

const stepSchema = z
  .strictObject({
    say: z.string().optional(),
    write: z.string().min(1).optional(),
    content: z.string().optional(),
    replace: z.string().min(1).optional(),
    find: z.string().min(1).optional(),
    with: z.string().optional(),
    delete: z.string().min(1).optional(),
    symlink: z.string().min(1).optional(),
    target: z.string().optional(),
    run: z.string().min(1).optional(),
    sleep: z
      .string()
      .refine((value) => parseDuration(value) !== undefined, 'expected a duration like "500ms" or "2s"')
      .optional(),
    usage: z
      .strictObject({
        input: z.number().int().nonnegative().default(0),
        output: z.number().int().nonnegative().default(0),
        cache_read: z.number().int().nonnegative().default(0),
        cache_write: z.number().int().nonnegative().default(0),
      })
      .optional(),
    cost_usd: z.number().nonnegative().optional(),
    fail: z.enum(OUTCOMES.filter((o) => o !== 'success') as [string, ...string[]]).optional(),
    message: z.string().optional(),
    times: z.number().int().min(1).optional(),
    retry_after: z
      .string()
      .refine((value) => parseDuration(value) !== undefined, 'expected a duration like "500ms" or "2s"')
      .optional(),
  })
  .superRefine((step, ctx) => {
    const actions = ACTIONS.filter((action) => step[action] !== undefined);
    if (actions.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a step needs exactly one of ${ACTIONS.join(', ')}; got ${actions.length === 0 ? 'none' : actions.join(' and ')}`,
      });
    }
    if (step.write !== undefined && step.content === undefined) ctx.addIssue({ code: 'custom', message: 'write needs content' });
    if (step.replace !== undefined && (step.find === undefined || step.with === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'replace needs find and with' });
    }
    if (step.symlink !== undefined && step.target === undefined) ctx.addIssue({ code: 'custom', message: 'symlink needs target' });
  });

const scriptSchema = z
  .strictObject({
    steps: z.array(stepSchema).optional(),
    iterations: z.array(z.strictObject({ steps: z.array(stepSchema) })).optional(),
  })
  .refine((s) => (s.steps === undefined) !== (s.iterations === undefined), {
    message: 'a script needs either [[steps]] or [[iterations]], not both and not neither',
  });

export type ScriptStep = z.output<typeof stepSchema>;
export type Script = z.output<typeof scriptSchema>;

export type ScriptLoad = Result<Script>;

/** Reads and validates a script file; problems are values with the file and the step named. */
export async function loadScript(path: string): Promise<ScriptLoad> {
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch {
    return err(`${path}: script file not found`);
  }
  let data: unknown;
  try {
    data = parse(source);
  } catch (error) {
    const where = error instanceof TomlError ? `:${error.line}:${error.column}` : '';
    return err(`${path}${where}: ${(error as Error).message.split('\n')[0]}`);
  }
  const result = scriptSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = issue?.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('')
      .replace(/^\./, '');
    return err(`${path}: ${key ? `${key}: ` : ''}${issue?.message ?? 'invalid script'}`);
  }
  return ok(result.data);
}

/** The steps a candidate performs in the given (1-based) iteration. */
export function stepsForIteration(script: Script, iteration: number): readonly ScriptStep[] {
  if (script.steps) return script.steps;
  const iterations = script.iterations ?? [];
  return iterations[Math.min(iteration, iterations.length) - 1]?.steps ?? [];
}
