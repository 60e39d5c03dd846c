// Keeps x at or below hi.
export function clamp(x, lo, hi) {
  return Math.min(x, hi);
}
