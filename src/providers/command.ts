/**
 * `command`: any CLI as an agent. The argv is a template:
 *   {prompt} {prompt_file} {cwd} {model} {iteration} {candidate}
 * With no `args`, the prompt is passed as the only argument. stdin is closed, stdout and
 * stderr are captured to the run folder, and a timeout kills the whole process group.
 * A command agent reports no tokens or cost; its outcome is success on exit 0, else crashed.
 * Inside the sandbox the prompt file (in the hidden run folder) is bound in read-only.
 */
import { access, constants, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { findOnPath } from '../process/find-on-path.js';
import { requestRedactor } from './cli-provider.js';
import { MAX_ARG_BYTES } from '../process/arg-limit.js';
import { runAgentProcess } from '../process/sandbox.js';
import { err, ok } from '../result.js';
import type { ProviderSettings } from '../spec/schema.js';
import {
  ZERO_USAGE,
  type PrepareContext,
  type PrepareResult,
  type Provider,
  type ProviderDefinition,
  type ProviderRequest,
  type ProviderResult,
} from './types.js';

export const commandDefinition: ProviderDefinition<'command'> = {
  kind: 'command',
  installHint: 'install it, or give its path (relative to the spec file)',
  prepare: prepareCommand,
  create(settings, agent) {
    if (!agent.command) throw new Error('bug: a command candidate without its command');
    return createCommandProvider({ command: agent.command, args: settings.args });
  },
};

/**
 * The program exists and is executable: a path (relative to the spec file), or a name on
 * PATH. A name that is a known CLI ("codex") gets that CLI's install hint.
 */
async function prepareCommand(settings: ProviderSettings, context: PrepareContext): Promise<PrepareResult> {
  const { key } = context;
  const program = settings.command ?? '';
  if (program.includes('/')) {
    const command = resolve(context.specDir, program);
    try {
      await access(command, constants.X_OK);
    } catch {
      return err(`${key}.command: ${command} does not exist or is not executable (paths are relative to the spec file; chmod +x it)`);
    }
    return ok({ command });
  }
  const command = await findOnPath(program, settings.env.PATH ?? process.env.PATH);
  if (!command) return err(`${key}.command: "${program}" was not found on PATH; ${context.installHintFor(program) ?? commandDefinition.installHint}`);
  return ok({ command });
}

export interface CommandProviderOptions {
  /** Absolute path, or a program name looked up on PATH. */
  readonly command: string;
  readonly args: readonly string[];
}

export function createCommandProvider(options: CommandProviderOptions): Provider {
  return {
    kind: 'command',
    run: (request) => runCommand(options, request),
    // One process per run, ended with the run (or killed by its signal): nothing outlives it.
    close: async () => {},
  };
}

export function expandArgs(args: readonly string[], values: Readonly<Record<string, string>>): string[] {
  const template = args.length > 0 ? args : ['{prompt}'];
  return template.map((arg) => arg.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole));
}

/**
 * Why an argument cannot be given to a program, or undefined when every one can: one longer than
 * Linux allows (MAX_ARG_BYTES; the prompt grows from iteration to iteration with what the checks
 * said), or one holding a NUL byte. Said before starting anything, with the way out: the prompt
 * in a file.
 */
function unpassableArgument(argv: readonly string[], template: readonly string[]): string | undefined {
  const index = argv.findIndex((arg) => Buffer.byteLength(arg) >= MAX_ARG_BYTES || arg.includes('\0'));
  if (index < 0) return undefined;
  const arg = argv[index] ?? '';
  const what = template[index]?.includes('{prompt}') ? 'the prompt' : `argument ${index + 1}`;
  const instead = 'give it the prompt as a file instead: `args = ["{prompt_file}"]` (the path of a file that holds the prompt)';
  if (arg.includes('\0')) return `${what} holds a NUL byte, which no program can be given as an argument; ${instead}`;
  return `${what} is ${Math.ceil(Buffer.byteLength(arg) / 1024)} KiB, longer than one argument of a program may be on Linux (${MAX_ARG_BYTES / 1024} KiB); ${instead}`;
}

async function runCommand(options: CommandProviderOptions, request: ProviderRequest): Promise<ProviderResult> {
  const promptFile = join(request.artifactsDir, 'prompt.md');
  // The record is redacted, and so is what the agent reads from {prompt_file}: it has the
  // environment itself, and the prompt's own secrets (a check's output quoting one) stay out of the run folder.
  const redact = requestRedactor(request);
  await writeFile(promptFile, redact ? redact(request.prompt) : request.prompt);
  const argv = expandArgs(options.args, {
    prompt: request.prompt,
    prompt_file: promptFile,
    cwd: request.cwd,
    model: request.model ?? '',
    iteration: String(request.iteration),
    candidate: request.candidateId,
  });
  const refused = unpassableArgument(argv, options.args.length > 0 ? options.args : ['{prompt}']);
  if (refused !== undefined) {
    return {
      text: '',
      usage: ZERO_USAGE,
      costUsd: 0,
      costEstimated: false,
      sessionId: undefined,
      turns: 0,
      durationMs: 0,
      outcome: 'crashed',
      message: `${options.command} was not started: ${refused}`,
    };
  }
  let lastLine = '';
  const result = await runAgentProcess(
    options.command,
    argv,
    {
      cwd: request.cwd,
      env: request.env,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      logFile: join(request.artifactsDir, 'output.log'),
      ...(request.logRedactor ? { logRedactor: request.logRedactor() } : {}),
      onStdoutLine: (line) => {
        if (line.trim() === '') return;
        lastLine = line;
        request.onActivity(line);
      },
    },
    request.sandbox,
    { readOnly: [promptFile] },
  );
  const base = {
    text: result.stdout.trim() || lastLine,
    usage: ZERO_USAGE,
    costUsd: 0,
    costEstimated: false,
    sessionId: undefined,
    turns: 1,
    durationMs: result.durationMs,
  };
  if (result.canceled) return { ...base, outcome: 'cancelled', message: 'cancelled' };
  if (result.timedOut) {
    return {
      ...base,
      outcome: 'timeout',
      message: `${options.command} did not finish within ${Math.round(request.timeoutMs / 1000)}s and was killed with its process tree`,
    };
  }
  if (result.spawnError) {
    return {
      ...base,
      outcome: 'crashed',
      message: `${result.spawnError} — check \`command\` in the spec (a path relative to the spec file, or a program on PATH)`,
    };
  }
  if (result.exitCode !== 0) {
    const why = result.stderr.trim().split('\n').pop() ?? '';
    const how = result.exitCode === undefined ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    return { ...base, outcome: 'crashed', message: `${options.command} ${how}${why ? `: ${why.slice(0, 200)}` : ''}` };
  }
  return { ...base, outcome: 'success' };
}
