/**
 * Where a shannon session keeps its things.
 *
 *   <tmpdir>/bestof-<8 hex of the run folder's path>/
 *       tmux.sock               the run's own tmux server (short path: a Unix socket path must
 *                               stay under ~100 bytes, a run folder's path may not)
 *       hook-<id>/bridge.sock   the candidate's hook bridge (./hook-bridge.ts) and its state
 *       hook-<id>/state         file; this folder alone is bound into the sandbox (read-only)
 *   <run folder>/candidates/<candidate>/
 *       shannon.json            the record `bestof attach` and `bestof clean` read
 *       shannon-config/         CLAUDE_CONFIG_DIR, kept across iterations (transcripts, long prompts)
 *       shannon-settings.json   the --settings file (hooks)
 *       shannon-tmp/            TMPDIR outside the sandbox
 *       shannon-exit            the exit status of the session's program
 *
 * A reviewer's session (its artifacts folder is below an iteration's, its id `<candidate>-review`)
 * gets the same files with `-review` in their names.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, sep } from 'node:path';

export const RECORD_FILE = 'shannon.json';

export interface SessionPaths {
  readonly runDir: string;
  readonly candidateDir: string;
  /** The tmux session's name (the candidate id, or `<id>-review`). */
  readonly name: string;
  readonly baseDir: string;
  readonly tmuxSocket: string;
  readonly hookDir: string;
  readonly bridgeSocket: string;
  readonly stateFile: string;
  readonly record: string;
  readonly configDir: string;
  readonly settingsFile: string;
  readonly tmpDir: string;
  readonly exitFile: string;
  /** Where prompts too long to paste are written (inside the config folder, which the agent can read). */
  readonly promptsDir: string;
}

/** The run's short folder under the system temp dir, from the run folder's path. */
export function runBaseDir(runDir: string): string {
  const hex = createHash('sha256').update(runDir).digest('hex').slice(0, 8);
  return join(tmpdir(), `bestof-${hex}`);
}

export function tmuxSocketOf(runDir: string): string {
  return join(runBaseDir(runDir), 'tmux.sock');
}

/**
 * The paths of the session for a request. `artifactsDir` is `<run>/candidates/<id>/iteration-<n>`
 * (a reviewer's is deeper); anything else is used as the candidate folder itself.
 */
export function sessionPaths(artifactsDir: string, candidateId: string): SessionPaths {
  const marker = `${sep}candidates${sep}`;
  const at = artifactsDir.lastIndexOf(marker);
  let runDir: string;
  let candidateDir: string;
  if (at >= 0) {
    runDir = artifactsDir.slice(0, at);
    const rest = artifactsDir.slice(at + marker.length).split(sep);
    candidateDir = join(runDir, 'candidates', rest[0] ?? candidateId);
  } else {
    runDir = artifactsDir;
    candidateDir = artifactsDir;
  }
  const name = safeName(candidateId);
  const suffix = name === basename(candidateDir) ? '' : `-${name}`;
  const baseDir = runBaseDir(runDir);
  const hookDir = join(baseDir, `hook-${name}`);
  const configDir = join(candidateDir, `shannon-config${suffix}`);
  return {
    runDir,
    candidateDir,
    name,
    baseDir,
    tmuxSocket: join(baseDir, 'tmux.sock'),
    hookDir,
    bridgeSocket: join(hookDir, 'bridge.sock'),
    stateFile: join(hookDir, 'state'),
    record: join(candidateDir, suffix ? `shannon${suffix}.json` : RECORD_FILE),
    configDir,
    settingsFile: join(candidateDir, `shannon-settings${suffix}.json`),
    tmpDir: join(candidateDir, `shannon-tmp${suffix}`),
    exitFile: join(candidateDir, `shannon-exit${suffix}`),
    promptsDir: join(configDir, 'bestof-prompts'),
  };
}

/** What `<candidate>/shannon.json` holds. */
export interface SessionRecord {
  readonly socket: string;
  readonly session: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly startedAt: string;
}

export async function readSessionRecord(candidateDir: string): Promise<SessionRecord | undefined> {
  try {
    const value = JSON.parse(await readFile(join(candidateDir, RECORD_FILE), 'utf8')) as Partial<SessionRecord>;
    if (typeof value.socket !== 'string' || typeof value.session !== 'string') return undefined;
    return value as SessionRecord;
  } catch {
    return undefined;
  }
}

/** A tmux session name: letters, digits, `-` and `_` (tmux treats `.` and `:` as separators). */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '-') || 'agent';
}
