// Results, not exceptions, across trust boundaries: a denial is data the recorder keeps.
// Ground floor (src/core): every room may import this; it imports nothing of ours.
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<C extends string> = { readonly ok: false; readonly error: C; readonly message: string };
export type Result<T, C extends string> = Ok<T> | Err<C>;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function err<C extends string>(error: C, message: string): Err<C> {
  return { ok: false, error, message };
}
