import { isThrottled } from '../../api/error-verdicts.js';
import { PublishApiError } from '../../errors.js';
import { MAX_RETRY_AFTER_MS } from '../../kube-events.constants.js';
import type { Series } from '../series/index.js';

// Every wait before the server is tried again is set here: a failed write's backoff (with the server's
// `Retry-After`), a contended write's pause, the credentials' backoff, the probes of an unreachable server,
// and the quicker retries of `flush()`. The series' and the connection's states only hold the times.

/**
 * How long after the last attempt, at least, a publish made while the
 * server is unreachable tries the server itself rather than being rejected
 * at once: short, so that the first publish after the server is back
 * resolves; long enough that an outage costs a few requests a second.
 */
export const PROBE_INTERVAL_MS = 100;

/** How soon `flush()` tries a failed write again, unless the server said when: its time is short. */
const FLUSH_RETRY_MS = 100;

/**
 * How failed writes are spaced, as client-go's backoff: doubling from
 * `initialMs` up to `maxMs`, each delay stretched by up to `jitter` of
 * itself so that many series do not retry in step. The server's
 * `Retry-After` is a floor, and the jitter goes above it: series told to
 * wait the same second do not all come back in the same millisecond. The
 * cap is short so that a recorder notices soon that an unreachable server
 * is back; the recorder-wide budget bounds what the retries cost.
 */
export const RETRY_BACKOFF = Object.freeze({ initialMs: 200, factor: 2, maxMs: 2_000, jitter: 0.5 });

/**
 * How a write pauses between tries when the Event keeps changing under it
 * (409 Conflict, read, patch again): a random wait up to a ceiling that
 * doubles from `initialMs` to `maxMs` ("full jitter"), so that writers in
 * contention (replicas, shards, a failover) stop meeting in step and each
 * gets its turn within a publish's timeout.
 */
const CONTENTION_BACKOFF = Object.freeze({ initialMs: 10, factor: 2, maxMs: 500 });

/** Milliseconds to pause before the next try of a write whose Event changed under it `rounds` times in a row. */
export function contentionDelay(rounds: number): number {
  return Math.ceil(Math.random() * backoffMs(CONTENTION_BACKOFF, rounds));
}

/**
 * How long no write tries the credentials again after they failed,
 * doubling from `initialMs` up to `maxMs` while they keep failing. Each try
 * may start the kubeconfig's exec plugin (a process, often a call to a
 * cloud's identity service): a failing one costs a run every `maxMs` at
 * most, and a fixed one is used within `maxMs`.
 */
const CREDENTIAL_BACKOFF = Object.freeze({ initialMs: 500, factor: 2, maxMs: 10_000 });

/** How long no write tries the credentials again after their `failures`-th failure in a row. */
export function credentialRetryDelay(failures: number): number {
  return backoffMs(CREDENTIAL_BACKOFF, failures);
}

/** A doubling backoff after `failures` failed tries in a row: `initialMs`, times `factor` each time, up to `maxMs`. */
function backoffMs(
  { initialMs, factor, maxMs }: { readonly initialMs: number; readonly factor: number; readonly maxMs: number },
  failures: number,
): number {
  return Math.min(maxMs, initialMs * factor ** Math.max(0, failures - 1));
}

/**
 * Milliseconds to wait before the next try, after `failures` failed tries
 * in a row: the server's `Retry-After` honoured up to {@link MAX_RETRY_AFTER_MS}
 * (whoever stands in for the server), the jitter above it.
 */
export function retryDelay(failures: number, retryAfterMs = 0): number {
  const base = backoffMs(RETRY_BACKOFF, failures);
  const { jitter } = RETRY_BACKOFF;
  const asked = Math.min(MAX_RETRY_AFTER_MS, retryAfterMs > 0 ? retryAfterMs : 0);
  return Math.ceil(Math.max(asked, base) * (1 + Math.random() * jitter));
}

/** When a write failed with `error`, its `failures`-th failure in a row, at `now`: tried again then. */
export function retryAt(failures: number, error: unknown, now: number): number {
  return now + retryDelay(failures, error instanceof PublishApiError ? error.retryAfterMs : undefined);
}

/** Until when a series waits while the server is unreachable and its publish does not probe it: one first backoff. */
export function unreachableRetryAt(now: number): number {
  return now + retryDelay(1);
}

/**
 * When `flush()` tries the series' failed write again: soon, since its
 * time is short, but no sooner than the server's `Retry-After` or
 * `heldUntil` (the credentials' backoff).
 */
export function flushRetryAt(series: Series, heldUntil: number): number {
  if (series.state === 'throttled' || isThrottled(series.queue[0]?.attempts.lastError))
    return Math.max(series.retryAt, heldUntil);
  return Math.max(Math.min(series.retryAt, series.lastFailureAt + FLUSH_RETRY_MS), heldUntil);
}
