/**
 * Where a series' writes stand, and every move between states: the one
 * place that defines them. The write coordinator alone applies them, as it
 * takes publishes in, starts writes, settles how they ended, and follows
 * the connection; the write queue and the scheduler only read `state` and
 * `retryAt` (whether a write is in flight, when the next may go).
 *
 * | state            | means                                                          | left by                                                     |
 * |------------------|----------------------------------------------------------------|-------------------------------------------------------------|
 * | `idle`           | nothing queued                                                 | {@link queued}                                              |
 * | `queued`         | occurrences wait for the budgets                               | {@link writing}                                             |
 * | `writing`        | one write in flight (never two per series)                     | {@link written}, {@link failedWrite}                        |
 * | `backing-off`    | until `retryAt`: the last write failed (5xx, no server, no credentials), or the connection holds it ({@link heldByConnection}) | its time, {@link serverBack}, {@link probe} |
 * | `awaiting-retry` | until `retryAt`: the last write may have applied (timed out, answer lost) | its time, {@link retryNow} (a new publish), {@link serverBack}, {@link probe} |
 * | `throttled`      | until `retryAt`: the server said `Retry-After`                 | its time only                                               |
 *
 * A waiting state whose time has come goes straight to `writing` when the
 * scheduler sends its write.
 */
export type WriteStateKind = 'idle' | 'queued' | 'writing' | 'backing-off' | 'awaiting-retry' | 'throttled';

/** A series' write state, kept on the series itself (no object per series). */
export interface SeriesWriteState {
  state: WriteStateKind;
  /** While waiting (`backing-off`, `awaiting-retry`, `throttled`): no write before this (monotonic ms); 0 otherwise. */
  retryAt: number;
  /** Failed writes in a row, for the backoff. */
  failures: number;
  /** When its last write failed (monotonic ms). */
  lastFailureAt: number;
}

/** Occurrences were queued: an idle series has work. */
export function queued(series: SeriesWriteState): void {
  if (series.state === 'idle') series.state = 'queued';
}

/** Its next write goes out (from `queued`, or a waiting state whose time has come). */
export function writing(series: SeriesWriteState): void {
  series.state = 'writing';
  series.retryAt = 0;
}

/** Its write was applied: `more` when occurrences are still queued. */
export function written(series: SeriesWriteState, more: boolean): void {
  series.state = more ? 'queued' : 'idle';
  series.failures = 0;
  series.retryAt = 0;
}

/** Why a failed write waits before it is tried again. */
export type RetryCause = 'failed' | 'may-have-applied' | 'throttled';

/**
 * Its write failed and is tried again at `retryAt`, or it was given up
 * (`retryAt` undefined) and `more` says whether others are queued.
 */
export function failedWrite(
  series: SeriesWriteState,
  now: number,
  retry: { readonly at: number; readonly cause: RetryCause } | undefined,
  more: boolean,
): void {
  series.lastFailureAt = now;
  if (!retry) {
    series.state = more ? 'queued' : 'idle';
    series.retryAt = 0;
    return;
  }
  series.failures++;
  series.state =
    retry.cause === 'throttled' ? 'throttled' : retry.cause === 'may-have-applied' ? 'awaiting-retry' : 'backing-off';
  series.retryAt = retry.at;
}

/**
 * A new publish came while the series awaits a retry of a write that may
 * have applied, or while that write was on its way: a timeout or a lost
 * answer holds nothing that delays it, so the retry goes now, carrying
 * both. Returns whether it moved.
 */
export function retryNow(series: SeriesWriteState): boolean {
  if (series.state !== 'awaiting-retry') return false;
  series.state = 'queued';
  series.retryAt = 0;
  return true;
}

/**
 * The server answers again after it was unreachable: a series backing off
 * or awaiting a retry may write now. A throttled one still waits: that was
 * the server's answer, not the outage. Returns whether it moved.
 */
export function serverBack(series: SeriesWriteState): boolean {
  if (series.state !== 'backing-off' && series.state !== 'awaiting-retry') return false;
  series.state = 'queued';
  series.retryAt = 0;
  series.failures = 0;
  return true;
}

/**
 * A probe: while the server is unreachable, a publish tries it with its
 * series' write now, whatever the backoff (not a `Retry-After`). Returns
 * whether the series may write now.
 */
export function probe(series: SeriesWriteState): boolean {
  if (series.state === 'queued') return true;
  if (series.state !== 'backing-off' && series.state !== 'awaiting-retry') return false;
  series.state = 'queued';
  series.retryAt = 0;
  return true;
}

/**
 * The connection holds the series' write until `until`: the server is
 * unreachable and this publish does not probe it, or the credentials
 * failed and their backoff has not passed. The series waits like one whose
 * write failed, until `until` or the server answers again, rather than
 * send a write that would find no server, or start the credentials again.
 * A `Retry-After` later than `until` still holds.
 */
export function heldByConnection(series: SeriesWriteState, until: number): void {
  if (series.state === 'idle' || series.state === 'writing') return;
  if (series.state !== 'throttled') series.state = 'backing-off';
  series.retryAt = Math.max(series.retryAt, until);
}
