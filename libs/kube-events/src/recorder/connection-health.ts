import type { PublishApiError } from '../errors.js';

/**
 * How long after the last attempt, at least, a publish made while the
 * server is unreachable tries the server itself rather than being rejected
 * at once: short, so that the first publish after the server is back
 * resolves; long enough that an outage costs a few requests a second.
 */
const PROBE_INTERVAL_MS = 100;

/**
 * The recorder's view of its connection to the API server, and its only
 * owner:
 * - `reachable`: writes go out as their series and budgets allow;
 * - `unreachable`: since `since`, `why`: publishes are rejected at once as
 *   queued, except one probe at a time, a {@link PROBE_INTERVAL_MS} after
 *   the last attempt, which tries the server with its own write.
 *
 * Only a failed connection attempt makes the server unreachable, or a
 * write whose retry on a fresh connection lost its answer again (the
 * server keeps closing connections without answering); one lost
 * connection concerns its write alone. Any answer makes it reachable.
 */
export class ConnectionHealth {
  private down: { readonly since: number; readonly why: PublishApiError } | undefined;
  /** Writes in flight, each an attempt to reach the server. */
  private attempts = 0;
  /** When the last attempt started or ended, or a probe was granted (monotonic ms). */
  private lastAttemptAt = -Infinity;

  /** Since when (epoch ms) and why the server cannot be reached; undefined while it is reachable. */
  get unreachable(): { readonly since: number; readonly why: PublishApiError } | undefined {
    return this.down;
  }

  /** A write goes out. */
  attemptStarted(now: number): void {
    this.attempts++;
    this.lastAttemptAt = now;
  }

  /** A write came back, whatever its outcome. */
  attemptEnded(now: number): void {
    this.attempts--;
    this.lastAttemptAt = now;
  }

  /** The server answered: returns whether it had been unreachable, so that what waits for it may go now. */
  answered(): boolean {
    const wasDown = this.down !== undefined;
    this.down = undefined;
    return wasDown;
  }

  /** No server could be reached: unreachable from now, or still since it first was. */
  unreachableNow(why: PublishApiError): void {
    this.down ??= { since: Date.now(), why };
  }

  /**
   * Whether a publish made now, while the server is unreachable, tries it
   * itself: no attempt in flight and none for a probe interval. Granting
   * one counts as an attempt, so that the publishes right behind it do not
   * probe too.
   */
  tryProbe(now: number): boolean {
    if (!this.down || this.attempts > 0 || now - this.lastAttemptAt < PROBE_INTERVAL_MS) return false;
    this.lastAttemptAt = now;
    return true;
  }
}
