// A bound on how long a test waits for a promise, so a hang fails with a message instead of jest's timeout.

/** Settles as `work` does, or rejects with `stalled()` once `ms` have passed; leaves no timer behind either way. */
export async function within<T>(work: Promise<T>, ms: number, stalled: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(stalled())), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** The same, with the message "timed out after `ms` ms waiting for `what`". */
export const waitingFor = <T>(what: string, work: Promise<T>, ms: number): Promise<T> =>
  within(work, ms, () => `timed out after ${ms} ms waiting for ${what}`);

/** What `work` settled to within `ms`, or 'too slow' if it had not by then. */
export const unlessTooSlow = <T>(work: Promise<T>, ms: number): Promise<T | 'too slow'> =>
  Promise.race([work, new Promise<'too slow'>((resolve) => setTimeout(() => resolve('too slow'), ms).unref())]);
