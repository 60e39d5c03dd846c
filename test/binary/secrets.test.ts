/**
 * Secrets never written or printed, and no oversized file committed (issue 9, item 10 and the
 * file-size half of item 9), end to end: a real `bestof run` whose `command` agent
 * (test/fixtures/bin/leaky-agent) prints the tokens of its environment and of the spec's `env`,
 * gets an Authorization header on its argv, dumps its environment into env-dump.txt and writes a
 * file over `[git] max_file_size`. One run; each test looks at one place the secrets could land.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ADD_CHECKS, FIXTURE_BIN, makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';
import { filesUnder, leakedNames } from '../helpers/files.js';

const token = (prefix: string, length = 32): string => `${prefix}${randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length)}`;
/** In bestof's environment: a secret-looking name, and GitHub's own token. */
const FAKE_SERVICE_TOKEN = token('fst-');
const GITHUB_TOKEN = token('ghp_', 36);
/** In the spec's `env`, for the agent only. */
const SPEC_SERVICE_TOKEN = token('sst', 24);
/** Only on the agent's argv, in an Authorization header: found by its shape. */
const HEADER_TOKEN = token('hdr', 24);
const SECRETS = { FAKE_SERVICE_TOKEN, GITHUB_TOKEN, SPEC_SERVICE_TOKEN, HEADER_TOKEN };

/** The secrets `text` holds, by name (never printed with their values in a failure). */
const leaked = (text: string): string[] => leakedNames(text, SECRETS);

let project: Project;
let result: CliResult;
let runDir: string;

beforeAll(async () => {
  project = makeProject();
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[parallel]
candidates = 1
[provider]
kind = "command"
command = ${JSON.stringify(join(FIXTURE_BIN, 'leaky-agent'))}
args = ["--header", "Authorization: Bearer ${HEADER_TOKEN}", "{prompt_file}"]
env = { SPEC_SERVICE_TOKEN = "${SPEC_SERVICE_TOKEN}" }
[git]
max_file_size = "1KB"
[select]
merge = "merge"
[sandbox]
mode = "off"
${ADD_CHECKS}`,
    ),
  );
  result = await runCli(['run', spec, '--json'], {
    cwd: project.repo.dir,
    worktreesDir: project.worktreesDir,
    env: { FAKE_SERVICE_TOKEN, GITHUB_TOKEN },
  });
  const runs = join(project.repo.dir, '.bestof', 'runs');
  runDir = join(runs, readdirSync(runs)[0] as string);
}, 120_000);

afterAll(() => {
  if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
});

describe('a run whose agent leaks every secret it can', () => {
  it('finishes with the fix merged', () => {
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ReportJson;
    expect(report.winner).toBe('c1');
    expect(project.repo.git('show', 'HEAD:src/add.mjs')).toContain('a + b');
  });

  it('prints no secret: stdout (--json), stderr (the event lines)', () => {
    // The agent's lines are there, redacted: the redactor ran, not a filter that dropped them.
    expect(result.stderr).toContain('FAKE_SERVICE_TOKEN=<redacted:FAKE_SERVICE_TOKEN> GITHUB_TOKEN=<redacted:GITHUB_TOKEN>');
    expect(result.stderr).toContain('the spec gave me SPEC_SERVICE_TOKEN=<redacted:SPEC_SERVICE_TOKEN>');
    expect(result.stderr).toContain('--header Authorization: Bearer <redacted>');
    expect(leaked(result.stdout)).toEqual([]);
    expect(leaked(result.stderr)).toEqual([]);
  });

  it('records no secret: events.jsonl, state.json, report.json, report.md', () => {
    for (const file of ['events.jsonl', 'state.json', 'report.json', 'report.md']) {
      expect(leaked(readFileSync(join(runDir, file), 'utf8')), file).toEqual([]);
    }
  });

  // spec.toml is the spec file as the user wrote it, kept for `bestof resume`: a token written
  // literally in the spec is there as it is in the spec itself (docs/how-a-run-works.md says so).
  it('no file of the run folder holds a secret (raw logs, prompts, invocations, check logs), but the copy of the spec', () => {
    const holding = filesUnder(runDir)
      .filter((file) => relative(runDir, file) !== 'spec.toml')
      .flatMap((file) => leaked(readFileSync(file, 'latin1')).map((name) => `${relative(runDir, file)}: ${name}`));
    expect(holding).toEqual([]);
  });

  it('commits no secret and no oversized file, keeps them out of .git, and says which files it left out', () => {
    const history = project.repo.git('log', '-p', '--all', '--binary');
    expect(leaked(history)).toEqual([]);
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: project.repo.dir, maxBuffer: 256 * 1024 * 1024 }).toString(
      'latin1',
    );
    expect(leaked(objects)).toEqual([]);
    // No blob of the 4 KB file: its content is 4,096 times "x".
    expect(objects.includes('x'.repeat(4096))).toBe(false);
    const report = JSON.parse(result.stdout) as ReportJson;
    const committed = project.repo.git('ls-tree', '-r', '--name-only', report.candidates[0]!.commit!).split('\n');
    expect(committed).toContain('src/add.mjs');
    expect(committed).not.toContain('env-dump.txt');
    expect(committed).not.toContain('big-output.bin');
    expect(result.stderr).toMatch(/env-dump\.txt.*holds the value of (FAKE_SERVICE_TOKEN|GITHUB_TOKEN|SPEC_SERVICE_TOKEN)/);
    // One line each, naming the candidate once.
    expect(result.stderr).toMatch(/^warning: c1: big-output\.bin was not committed: 4 KB > git\.max_file_size 1 KB/m);
  });
});
