import { createHash } from 'node:crypto';

/**
 * The file a check's whole output goes to, in an iteration's `checks/` (or `final-checks/`): its
 * name, where that is safe in a file name; else the safe part and a short hash of the name, so
 * that checks named "unit/api" and "unit_api" never share one (the second overwrote the first's
 * log, which the report points to). A module of its own: `bestof show` names the file too.
 */
export function checkLogName(name: string): string {
  const safe = name.replace(/[^\w.-]+/g, '_');
  return safe === name ? `${name}.log` : `${safe}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}.log`;
}
