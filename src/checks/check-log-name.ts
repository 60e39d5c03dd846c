/**
 * The file a check's whole output goes to, in an iteration's `checks/` (or `final-checks/`): its
 * name, where that is safe in a file name; else the safe part and a short hash of the name, so
 * that checks named "unit/api" and "unit_api" never share one (the second overwrote the first's
 * log, which the report points to). A module of its own: `bestof show` names the file too, and
 * loads nothing for it (FNV-1a here, not node:crypto).
 */
export function checkLogName(name: string): string {
  const safe = name.replace(/[^\w.-]+/g, '_');
  return safe === name ? `${name}.log` : `${safe}-${fnv1a(name)}.log`;
}

/** FNV-1a, 32 bits, of the UTF-16 code units, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
