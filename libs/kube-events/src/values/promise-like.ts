/** Whether `value` is a promise or another thenable: what a method returns when it settles later. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
