import type { PublishApiError, PublishCredentialError } from '../../errors.js';
import { credentialRetryDelay, PROBE_INTERVAL_MS } from '../pacing/index.js';

/** Why writes cannot reach the server now, and since when (epoch ms). */
export type ConnectionDown =
  /** No connection could be made, or connections keep closing unanswered. */
  | { readonly kind: 'unreachable'; readonly since: number; readonly why: PublishApiError }
  /** No credentials could be had from the kubeconfig: nothing is sent before `retryAt` (monotonic ms). */
  | {
      readonly kind: 'unauthenticated';
      readonly since: number;
      readonly why: PublishCredentialError;
      readonly failures: number;
      readonly retryAt: number;
    };

/**
 * The recorder's view of its connection to the API server; the write
 * dispatcher owns it, and `WriteLedger` says which failures change it:
 * - reachable: writes go out as their series and budgets allow;
 * - `unreachable`: publishes are rejected at once as queued, but for one
 *   probe at a time, a {@link PROBE_INTERVAL_MS} after the last attempt;
 * - `unauthenticated`: no write tries the credentials again before
 *   `retryAt` (`credentialRetryDelay`); publishes meanwhile are
 *   rejected at once as queued, and the first one after `retryAt` tries them.
 */
export class ConnectionHealth {
  private state: ConnectionDown | undefined;
  /** When the last attempt started or ended, or a probe was granted (monotonic ms). */
  private lastAttemptAt = -Infinity;

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get down(): ConnectionDown | undefined {
    return this.state;
  }

  /** A write went out, or came back whatever its outcome: the server was tried at `now`. */
  attempted(now: number): void {
    this.lastAttemptAt = now;
  }

  /** The server answered: returns whether it had been down, so that what waits for it may go now. */
  answered(): boolean {
    const wasDown = this.state !== undefined;
    this.state = undefined;
    return wasDown;
  }

  /** No server could be reached: unreachable from now, or still since it first was. */
  unreachableNow(why: PublishApiError): void {
    if (this.state?.kind !== 'unreachable') this.state = { kind: 'unreachable', since: Date.now(), why };
  }

  /** The credentials failed again: no write tries them before the next, longer backoff has passed. */
  credentialsFailed(why: PublishCredentialError, now: number): void {
    const previous = this.state?.kind === 'unauthenticated' ? this.state : undefined;
    // Writes sent before the backoff began shared the run that failed (one authentication at a time): one failure.
    if (previous && now < previous.retryAt) return;
    const failures = (previous?.failures ?? 0) + 1;
    const retryAt = now + credentialRetryDelay(failures);
    this.state = { kind: 'unauthenticated', since: previous?.since ?? Date.now(), why, failures, retryAt };
  }

  /**
   * Until when no write may go (monotonic ms), whatever its series: the
   * credentials' backoff; undefined when nothing holds writes back.
   */
  heldUntil(now: number): number | undefined {
    const state = this.state;
    return state?.kind === 'unauthenticated' && now < state.retryAt ? state.retryAt : undefined;
  }

  /**
   * Whether a publish made now, while the server is down, tries it itself:
   * no attempt in flight (`writesInFlight`), and none for a probe interval
   * (unreachable) or the credentials' backoff passed (unauthenticated).
   * Granting one counts as an attempt, so that the publishes right behind
   * it do not probe too.
   */
  tryProbe(now: number, writesInFlight: number): boolean {
    const state = this.state;
    if (!state || writesInFlight > 0) return false;
    if (state.kind === 'unauthenticated' ? now < state.retryAt : now - this.lastAttemptAt < PROBE_INTERVAL_MS)
      return false;
    this.lastAttemptAt = now;
    return true;
  }
}
