/**
 * The one shape of "a value, or a problem the user can act on". Every layer returns it for
 * failures that belong to the user's situation (a bad spec, a missing CLI, a git command
 * that refused), so callers branch on `ok` and never guess from the shape. Only bugs throw.
 *
 * The problem is a one-line message by default; a producer that has a richer problem (a list
 * of spec problems with positions) says so in `E`.
 */
export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Err<E> {
  readonly ok: false;
  readonly error: E;
}

export type Result<T, E = string> = Ok<T> | Err<E>;

export function ok<T>(value: T): Ok<T>;
export function ok(): Ok<void>;
export function ok<T>(value?: T): Ok<T | undefined> {
  return { ok: true, value };
}

export function err<E>(error: E): Err<E> {
  return { ok: false, error };
}
