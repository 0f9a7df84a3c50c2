/**
 * Decides how long an item waits before it is retried, client-go's
 * `workqueue.TypedRateLimiter`.
 */
export interface RateLimiter<T> {
  /** Records one more failure of `item` and returns how long to wait before retrying it, in ms. */
  when(item: T): number;
  /** Clears `item`'s failure history, so its next failure waits the base delay again. */
  forget(item: T): void;
  /** How many failures of `item` are on record. */
  numRequeues(item: T): number;
}

/** Options of {@link ItemExponentialBackoff}. */
export interface ItemExponentialBackoffOptions {
  /**
   * Delay after an item's first failure, in ms.
   * @default 5
   */
  baseDelayMs?: number;
  /**
   * Ceiling on the delay, in ms.
   * @default 1_000_000 (1000 s)
   */
  maxDelayMs?: number;
}

/** client-go's default per-item base delay: 5 ms. */
export const DEFAULT_BASE_DELAY_MS = 5;
/** client-go's default per-item ceiling: 1000 s. */
export const DEFAULT_MAX_DELAY_MS = 1_000_000;

/**
 * Per-item exponential backoff, as client-go's
 * `NewItemExponentialFailureRateLimiter(5*time.Millisecond, 1000*time.Second)`:
 * the n-th consecutive failure of an item waits `baseDelayMs * 2^(n-1)`,
 * capped at `maxDelayMs`. Items back off independently of each other.
 *
 * @example
 * const backoff = new ItemExponentialBackoff<string>();
 * backoff.when('default/a'); // 5
 * backoff.when('default/a'); // 10
 * backoff.forget('default/a');
 * backoff.when('default/a'); // 5
 */
export class ItemExponentialBackoff<T> implements RateLimiter<T> {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  private readonly failures = new Map<T, number>();

  constructor(options: ItemExponentialBackoffOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    this.maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    // A zero base never grows: a failing item would be retried in a tight loop.
    if (!(this.baseDelayMs > 0) || !(this.maxDelayMs >= this.baseDelayMs)) {
      throw new RangeError(
        `backoff needs 0 < baseDelayMs <= maxDelayMs, got baseDelayMs=${this.baseDelayMs}, maxDelayMs=${this.maxDelayMs}`,
      );
    }
  }

  when(item: T): number {
    const exponent = this.failures.get(item) ?? 0;
    this.failures.set(item, exponent + 1);
    return Math.min(this.baseDelayMs * 2 ** exponent, this.maxDelayMs);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}
