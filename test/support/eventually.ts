// Polling for what a server or a process does in its own time: a loaded machine makes every such wait longer.
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep asking before giving up. */
  timeoutMs?: number;
  /** The pause between two asks. */
  everyMs?: number;
  /** What to add to the timeout's message, e.g. the last lines a process logged. */
  context?: () => string;
}

/**
 * Asks `check` until it returns something other than undefined or false, and returns that; a throw counts as "not
 * yet". Rejects after `timeoutMs` with `what` and the last error in the message.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 20_000, everyMs = 100, context }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: Error | undefined;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error instanceof Error ? error : new Error(String(error));
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}` +
          (context ? `\n${context()}` : ''),
      );
    }
    await sleep(everyMs);
  }
}

/**
 * Asks `probe` until `done` says yes or `timeoutMs` have passed, and returns the last answer either way: the test's
 * own assertion on it then says what was missing.
 */
export async function lastProbe<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 10_000, everyMs = 50 }: Omit<EventuallyOptions, 'context'> = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await sleep(everyMs);
  }
}
