/** Which slice of a long list fits on screen, keeping the selected item visible and roughly centred. */
export interface ListWindow {
  readonly start: number;
  readonly end: number;
  readonly hiddenAbove: number;
  readonly hiddenBelow: number;
}

export function listWindow(length: number, selected: number, capacity: number): ListWindow {
  const size = Math.max(1, capacity);
  if (length <= size) return { start: 0, end: length, hiddenAbove: 0, hiddenBelow: 0 };
  const at = Math.min(Math.max(selected, 0), length - 1);
  const start = Math.min(Math.max(0, at - Math.floor(size / 2)), length - size);
  return { start, end: start + size, hiddenAbove: start, hiddenBelow: length - start - size };
}
