/**
 * report.html's diffs come from git (src/report/html/collect-diffs.ts): base against each
 * candidate's kept ref in a real repo, its recorded commit when the ref is gone, and a reason
 * when neither is there. writeRunHtml reads the run's spec.toml for the tie-break order and
 * the agents' env secrets, and the repository's git config for its passwords and tokens.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents, type RunState } from '../../src/engine/record/run-state.js';
import { collectRunDiffs } from '../../src/report/html/collect-diffs.js';
import { runSpecContext, writeRunHtml } from '../../src/report/html/write-run-html.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { finishedRun } from '../ui/scripted-runs.js';

const { repo, tempDir } = tempRepos();

/** finishedRun() played in a real repo: each candidate's commit made on top of base and kept under its ref. */
function runIn(dir: string, base: string, commits: Readonly<Record<string, string>>, runDir: string): RunState {
  return foldEvents(
    finishedRun().map((e): RunEvent => {
      if (e.type === 'run.started') return { ...e, repo: dir, baseCommit: base, runDir };
      const commit = 'candidate' in e && e.candidate !== undefined ? commits[e.candidate] : undefined;
      if (commit !== undefined && (e.type === 'candidate.committed' || e.type === 'candidate.finished')) return { ...e, commit };
      return e;
    }),
  );
}

describe('collectRunDiffs', () => {
  it('reads base..ref for each candidate, the recorded commit when the ref is gone, and says why when neither is there', async () => {
    const r = repo({ 'src/a.js': 'old\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('src/a.js', 'from c1\n');
    const c1 = r.commitAll('c1');
    r.git('update-ref', 'refs/bestof/r1/c1/kept', c1);
    r.git('reset', '--quiet', '--hard', base);
    r.write('src/a.js', 'from c2\n');
    const c2 = r.commitAll('c2');
    // c2's ref was removed (bestof clean); its commit is still in the repo.
    r.git('reset', '--quiet', '--hard', base);
    const state = runIn(r.dir, base, { c1, c2, c3: 'f'.repeat(40) }, tempDir());
    const diffs = await collectRunDiffs(state);
    expect([...diffs.keys()]).toEqual(['c1', 'c2', 'c3']);
    expect(diffs.get('c1')).toMatchObject({ ok: true, value: expect.stringContaining('+from c1') });
    expect(diffs.get('c2')).toMatchObject({ ok: true, value: expect.stringContaining('+from c2') });
    expect(diffs.get('c3')).toEqual({ ok: false, error: `neither refs/bestof/r1/c3/kept nor its commit ffffffffff is in ${r.dir} any more` });
  });
});

describe('collectRunDiffs: git processes', () => {
  it('every kept ref in one rev-parse, then one git diff per candidate', async () => {
    const r = repo({ 'src/a.js': 'old\n' });
    const base = r.git('rev-parse', 'HEAD');
    const commits: Record<string, string> = {};
    for (const id of ['c1', 'c2', 'c3']) {
      r.write('src/a.js', `from ${id}\n`);
      commits[id] = r.commitAll(id);
      r.git('update-ref', `refs/bestof/r1/${id}/kept`, commits[id]!);
      r.git('reset', '--quiet', '--hard', base);
    }
    const state = runIn(r.dir, base, commits, tempDir());
    const { result: diffs, calls } = await recordGitCalls(tempDir(), () => collectRunDiffs(state));
    expect([...diffs.values()].map((d) => d.ok && d.value.includes('+from'))).toEqual([true, true, true]);
    const asked = calls.map((c) => c.replace(/^(-c \S+ )+/, ''));
    // (Besides git's first look at a repository this process had not seen: its dirs and its config's drivers, exec.ts.)
    expect(asked.filter((c) => c.includes('refs/bestof/'))).toEqual([
      'rev-parse refs/bestof/r1/c1/kept^{commit} refs/bestof/r1/c2/kept^{commit} refs/bestof/r1/c3/kept^{commit} --',
    ]);
    expect(asked.filter((c) => c.startsWith('diff '))).toHaveLength(3);
  });
});

describe('writeRunHtml', () => {
  it("writes report.html in the run folder, with the spec's tie-break order and its env secrets redacted", async () => {
    const SECRET = 'agent-env-secret-value-42';
    const r = repo({ 'src/a.js': 'old\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('src/a.js', `token = "${SECRET}"\n`);
    const c1 = r.commitAll('c1');
    r.git('update-ref', 'refs/bestof/r1/c1/kept', c1);
    const runDir = join(tempDir(), 'run');
    mkdirSync(runDir);
    writeFileSync(
      join(runDir, 'spec.toml'),
      `[provider]\nkind = "command"\ncommand = "x"\nenv = { SERVICE_TOKEN = "${SECRET}" }\n[select]\ntie_break = ["score", "diff_size", "cost"]\n`,
    );
    expect(runSpecContext(runDir)).toEqual({ tieBreak: ['score', 'diff_size', 'cost'], agentEnvs: [{ SERVICE_TOKEN: SECRET }] });
    const written = await writeRunHtml(runDir, runIn(r.dir, base, { c1 }, runDir));
    expect(written).toEqual({ ok: true, value: join(runDir, 'report.html') });
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('token = &quot;&lt;redacted:SERVICE_TOKEN&gt;&quot;');
    expect(html).not.toContain(SECRET);
  });

  it("with no secret set given (`bestof show --html`), reads the repository's git config for its passwords and tokens", async () => {
    const PASSWORD = 'g1t-config-pa55word';
    const r = repo({ 'src/a.js': 'old\n' });
    r.git('config', 'remote.origin.url', `https://bob:${PASSWORD}@example.invalid/x.git`);
    const base = r.git('rev-parse', 'HEAD');
    // A committed file that holds the bare password (no URL shape around it to find it by).
    r.write('src/a.js', `pw = "${PASSWORD}"\n`);
    const c1 = r.commitAll('c1');
    r.git('update-ref', 'refs/bestof/r1/c1/kept', c1);
    const runDir = join(tempDir(), 'run');
    mkdirSync(runDir);
    expect((await writeRunHtml(runDir, runIn(r.dir, base, { c1 }, runDir))).ok).toBe(true);
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('pw = &quot;&lt;redacted:git-config:remote.origin.url&gt;&quot;');
    expect(html).not.toContain(PASSWORD);
  });

  it('says which file could not be written, and why, as a value', async () => {
    const r = repo();
    const runDir = tempDir();
    const state = runIn(r.dir, r.git('rev-parse', 'HEAD'), {}, runDir);
    const written = await writeRunHtml(runDir, state, { file: join(runDir, 'missing-folder', 'report.html') });
    expect(written.ok).toBe(false);
    expect(!written.ok && written.error).toMatch(new RegExp(`^report.html of run r1 was not written to ${runDir}/missing-folder/report.html: ENOENT`));
  });

  it('reads the spec defaults when the run folder has no spec.toml', () => {
    expect(runSpecContext(tempDir())).toEqual({ tieBreak: ['score', 'cost', 'diff_size', 'duration'], agentEnvs: [] });
  });
});
