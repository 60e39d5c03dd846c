/**
 * The program tmux actually starts in a pane (see ./tmux.ts for why): `node launcher.cjs <spec
 * file>`. It reads the spec (program, argv, cwd, the program's whole environment, the exit
 * file), deletes the file at once (it holds secrets), and spawns the program with exactly that
 * environment on the pane's terminal. It stays as the program's parent to write the exit
 * status to the exit file (written to a temp name and renamed, so a reader never sees half of
 * it): the program's exit code, 128+N for signal N, 127 when it could not be started.
 *
 * Signals: Ctrl-C on a terminal not in raw mode signals the whole foreground group, the
 * launcher too; it ignores SIGINT and SIGQUIT (the program decides) so that it can still write
 * the status. SIGHUP (the pane closed) and SIGTERM are passed on to the program, and the launcher
 * waits for it. A handler, unlike an ignored signal, does not carry over to the program.
 *
 * Its source is written as `launcher.cjs` next to the spec file (CommonJS whatever package.json
 * lies above that folder; no build step, so tests can run src/) and run as `node launcher.cjs
 * spec.json`. Both go with their folder once the program started: Node has read its script by
 * then, so `ps` shows paths that no longer exist, which is expected.
 */

/** What the launcher reads from its spec file. */
export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly exitFile: string;
}

export const LAUNCHER_SOURCE = `${[
  "const fs = require('fs'), { spawn } = require('child_process'), { constants } = require('os')",
  'const specFile = process.argv[2]',
  "const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'))",
  'fs.rmSync(specFile, { force: true })',
  'const finish = (status) => {',
  "  try { fs.writeFileSync(spec.exitFile + '.tmp', status + '\\n'); fs.renameSync(spec.exitFile + '.tmp', spec.exitFile) } catch {}",
  '  process.exit(Math.min(status, 255))',
  '}',
  "for (const name of ['SIGINT', 'SIGQUIT']) process.on(name, () => {})",
  "const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: 'inherit' })",
  "for (const name of ['SIGHUP', 'SIGTERM']) process.on(name, () => { child.kill(name) })",
  "child.on('error', (error) => { process.stderr.write('cannot start ' + spec.command + ': ' + error.message + '\\n'); finish(127) })",
  "child.on('exit', (code, signal) => finish(code !== null ? code : 128 + (constants.signals[signal] || 0)))",
].join('\n')}\n`;
