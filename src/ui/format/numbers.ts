/** Short, fixed-width-friendly numbers for table cells. */
import type { CandidateState } from '../../engine/record/run-state.js';

type TokenUsage = CandidateState['usage'];

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 1 ? `$${usd.toFixed(3)}` : `$${usd.toFixed(2)}`;
}

/** The mark of a cost no agent reported (a command agent, or a model without a price). */
export const UNKNOWN_COST = '–';

/**
 * A cost that may not be known (run-state's costKnown): "–" when nothing was reported, "$0.020+"
 * when some calls reported it and others did not, never a "$0" that was only never reported.
 */
export function formatKnownCost(usd: number, known: boolean): string {
  if (known) return formatCost(usd);
  return usd === 0 ? UNKNOWN_COST : `${formatCost(usd)}+`;
}

/** Input and output tokens (cache reads are not work the agent did): "840", "5.6k", "1.2M". */
export function formatTokens(usage: TokenUsage): string {
  const n = usage.input + usage.output;
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A clock that grows slowly in width: "0.3s", "7.2s", "42s", "1m05s", "2h03m". */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : `${s}s`;
}

export function formatDiffSize(diff: { readonly files: number; readonly insertions: number; readonly deletions: number }): string {
  return `+${diff.insertions} -${diff.deletions} (${diff.files} file${diff.files === 1 ? '' : 's'})`;
}
