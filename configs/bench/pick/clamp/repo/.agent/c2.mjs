// Keeps x at or above lo.
export function clamp(x, lo, hi) {
  return Math.max(x, lo);
}
