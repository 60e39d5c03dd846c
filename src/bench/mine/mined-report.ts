/**
 * mined.json and mined.md: every commit looked at, kept or rejected and why, each task's size,
 * its fail-to-pass and pass-to-pass counts, and the time validation took.
 */
import { REJECTION_REASONS, type CommitVerdict, type KeptTask, type RejectedCommit, type RejectionReason } from './types.js';

export interface MinedSummary {
  readonly repo: string;
  readonly head: string;
  readonly settings: Readonly<Record<string, unknown>>;
  /** Where the check came from: bestof.toml or bestof init. */
  readonly checkSource: string;
  readonly commitsLookedAt: number;
  readonly kept: readonly KeptTask[];
  readonly rejected: readonly RejectedCommit[];
  readonly rejectedByReason: Readonly<Partial<Record<RejectionReason, number>>>;
  /** Commits still to look at when the mining stopped (0 when it finished). */
  readonly notLookedAt: number;
  readonly timing: {
    /** Validation time over the commits that were run (the others were sorted out by their files). */
    readonly validatedCommits: number;
    readonly validationMsTotal: number;
    readonly validationMsPerValidatedCommit: number | null;
    /** The mining's wall time in this session, over the commits it looked at in this session. */
    readonly wallMs: number;
    readonly wallMsPerCommit: number | null;
    readonly jobs: number;
  };
}

export function summarize(input: {
  repo: string;
  head: string;
  settings: Readonly<Record<string, unknown>>;
  checkSource: string;
  verdicts: readonly CommitVerdict[];
  notLookedAt: number;
  wallMs: number;
  lookedAtThisSession: number;
  jobs: number;
}): MinedSummary {
  const kept = input.verdicts.filter((v): v is KeptTask => v.outcome === 'kept');
  const rejected = input.verdicts.filter((v): v is RejectedCommit => v.outcome === 'rejected');
  const byReason: Partial<Record<RejectionReason, number>> = {};
  for (const r of rejected) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
  const validated = input.verdicts.filter((v) => v.validationMs > 0);
  const total = validated.reduce((sum, v) => sum + v.validationMs, 0);
  return {
    repo: input.repo,
    head: input.head,
    settings: input.settings,
    checkSource: input.checkSource,
    commitsLookedAt: input.verdicts.length,
    kept,
    rejected,
    rejectedByReason: byReason,
    notLookedAt: input.notLookedAt,
    timing: {
      validatedCommits: validated.length,
      validationMsTotal: total,
      validationMsPerValidatedCommit: validated.length > 0 ? Math.round(total / validated.length) : null,
      wallMs: input.wallMs,
      wallMsPerCommit: input.lookedAtThisSession > 0 ? Math.round(input.wallMs / input.lookedAtThisSession) : null,
      jobs: input.jobs,
    },
  };
}

export function minedJson(summary: MinedSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 120);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function minedMarkdown(summary: MinedSummary): string {
  const lines = [
    `# Tasks mined from ${summary.repo}`,
    '',
    `${summary.commitsLookedAt} commits looked at (newest first, from ${summary.head.slice(0, 10)}): ${summary.kept.length} kept, ${summary.rejected.length} rejected${summary.notLookedAt > 0 ? `; ${summary.notLookedAt} not looked at yet (the mining was stopped: run it again to go on)` : ''}.`,
    `The check: \`${String(summary.settings.command)}\` (from ${summary.checkSource}).`,
    summary.timing.validationMsPerValidatedCommit !== null
      ? `Validation: ${summary.timing.validatedCommits} commits run, ${seconds(summary.timing.validationMsPerValidatedCommit)} each on average (four runs of the tests, ${summary.timing.jobs} at a time).`
      : 'Validation: no commit needed a run.',
    '',
    '## Kept',
    '',
  ];
  if (summary.kept.length === 0) lines.push('None.');
  else {
    lines.push(
      '| task | commit | fix (lines, files) | fail-to-pass | pass-to-pass | flaky dropped | validation |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const t of summary.kept)
      lines.push(
        `| ${t.id} | ${t.sha.slice(0, 10)} ${cell(t.subject)} | ${t.size.lines}, ${t.size.files} | ${t.failToPass.length} | ${t.passToPass.length} | ${t.flaky.length} | ${seconds(t.validationMs)} |`,
      );
  }
  lines.push('', '## Rejected', '');
  const reasons = Object.entries(summary.rejectedByReason) as [RejectionReason, number][];
  if (reasons.length === 0) lines.push('None.');
  else {
    for (const [reason, n] of reasons.sort((a, b) => b[1] - a[1])) lines.push(`- ${reason} (${n}): ${REJECTION_REASONS[reason]}`);
    lines.push('', '| commit | reason | detail |', '| --- | --- | --- |');
    for (const r of summary.rejected) lines.push(`| ${r.sha.slice(0, 10)} ${cell(r.subject)} | ${r.reason} | ${cell(r.detail)} |`);
  }
  return `${lines.join('\n')}\n`;
}
