/**
 * A token bucket: up to `burst` writes at once, then one more every
 * `refillMs`. State is two numbers, refilled lazily when read.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private burst: number,
    private refillMs: number,
    now: number,
  ) {
    this.tokens = burst;
    this.updatedAt = now;
  }

  /** Takes a token if one is there. */
  tryTake(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is there (0 when one is). */
  msUntilToken(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) * this.refillMs);
  }

  /** Milliseconds until the bucket is full, after which waiting longer would waste tokens (0 when it is). */
  msUntilFull(now: number): number {
    this.refill(now);
    return Math.ceil((this.burst - this.tokens) * this.refillMs);
  }

  /** Whether the bucket has refilled completely, so that forgetting it loses nothing. */
  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.burst;
  }

  /** Changes the bucket's size and pace from now on; tokens past the new size are lost, and all of them if `empty`. */
  resize(burst: number, refillMs: number, now: number, empty = false): void {
    this.refill(now);
    this.burst = burst;
    this.refillMs = refillMs;
    this.tokens = empty ? 0 : Math.min(this.tokens, burst);
  }

  private refill(now: number): void {
    if (now <= this.updatedAt) return;
    this.tokens = Math.min(this.burst, this.tokens + (now - this.updatedAt) / this.refillMs);
    this.updatedAt = now;
  }
}
