/**
 * The passwords and tokens the user keeps in git's config never written, printed or committed
 * (issue 43, Secrets), end to end: a real `bestof run` in a repository whose `.git/config` has a
 * remote `https://bob:s3cr3t-pa55@example.invalid/x.git`, an `http.extraHeader` with a bearer
 * token and a `store` credential helper whose file holds another password. Its `command` agent
 * (test/fixtures/bin/git-config-leaky-agent) copies the config and the store into files left to be
 * committed, prints them, and prints the three values bare, where no URL or header shape is left
 * to find them by. One run; each test looks at one place the values could land.
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

const REMOTE_PASSWORD = 's3cr3t-pa55';
const BEARER_TOKEN = `brr${randomBytes(18).toString('hex')}`;
const STORED_PASSWORD = `st0re-${randomBytes(8).toString('hex')}`;
const SECRETS = { REMOTE_PASSWORD, BEARER_TOKEN, STORED_PASSWORD };

/** The secrets `text` holds, by name (never printed with their values in a failure). */
const leaked = (text: string): string[] => leakedNames(text, SECRETS);

let project: Project;
let result: CliResult;
let runDir: string;

beforeAll(async () => {
  project = makeProject();
  const store = project.writeOutside('git-credentials', `https://alice:${STORED_PASSWORD}@example.invalid\n`);
  project.repo.git('config', 'remote.origin.url', `https://bob:${REMOTE_PASSWORD}@example.invalid/x.git`);
  project.repo.git('config', 'http.extraHeader', `Authorization: Bearer ${BEARER_TOKEN}`);
  project.repo.git('config', 'credential.helper', `store --file ${store}`);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[parallel]
candidates = 1
[provider]
kind = "command"
command = ${JSON.stringify(join(FIXTURE_BIN, 'git-config-leaky-agent'))}
args = ["{prompt_file}"]
[select]
merge = "merge"
[sandbox]
mode = "off"
${ADD_CHECKS}`,
    ),
  );
  result = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  const runs = join(project.repo.dir, '.bestof', 'runs');
  runDir = join(runs, readdirSync(runs)[0] as string);
}, 120_000);

afterAll(() => {
  if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
});

describe("a run whose agent leaks the git config's password, token and credential store", () => {
  it('finishes with the fix merged', () => {
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as ReportJson).winner).toBe('c1');
    expect(project.repo.git('show', 'HEAD:src/add.mjs')).toContain('a + b');
  });

  it("prints none of them, and the agent's bare line is there, redacted by name", () => {
    expect(result.stderr).toContain('bare: <redacted:git-config:remote.origin.url> <redacted:git-config:http.extraheader> <redacted:git-credentials:');
    expect(leaked(result.stdout)).toEqual([]);
    expect(leaked(result.stderr)).toEqual([]);
  });

  it("records none of them: events.jsonl, state.json, report.json, report.md, report.html, the call's output.log", () => {
    const files = filesUnder(runDir).map((file) => relative(runDir, file));
    for (const file of ['events.jsonl', 'state.json', 'report.json', 'report.md', 'report.html']) expect(files).toContain(file);
    expect(files.some((file) => file.endsWith('output.log'))).toBe(true);
    const holding = files.flatMap((file) => leaked(readFileSync(join(runDir, file), 'latin1')).map((name) => `${file}: ${name}`));
    expect(holding).toEqual([]);
  });

  it('commits none of them: the files that hold one are left out, and said so', () => {
    const report = JSON.parse(result.stdout) as ReportJson;
    const committed = project.repo.git('ls-tree', '-r', '--name-only', report.candidates[0]!.commit!).split('\n');
    expect(committed).toContain('src/add.mjs');
    for (const file of ['leaked-config.txt', 'leaked-store.txt', 'bare.txt']) expect(committed).not.toContain(file);
    expect(leaked(project.repo.git('log', '-p', '--all', '--binary'))).toEqual([]);
    // Only the user's own config holds them: no object of the repository does.
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: project.repo.dir, maxBuffer: 256 * 1024 * 1024 }).toString(
      'latin1',
    );
    expect(leaked(objects)).toEqual([]);
    expect(result.stderr).toMatch(/leaked-config\.txt.*holds the value of git-config:/);
  });
});
