import type { ResolvedWriteControl } from './kube-events.interfaces.js';
import { TokenBucket } from './token-bucket.js';

/**
 * How many writes the recorder may send now: a token bucket per object, as
 * client-go's spam filter, and one for the whole recorder, so that a storm
 * over many objects cannot flood the API server. Buckets of objects that
 * have refilled are forgotten from the least recently used end.
 */
export class WriteBudget {
  private readonly objects = new Map<string, TokenBucket>();
  private readonly recorderWide: TokenBucket;

  constructor(
    private readonly control: ResolvedWriteControl,
    /** How many objects' buckets to keep; past it the least recently used is forgotten (its object gets a full budget back). */
    private readonly maxObjects: number,
    now: number,
  ) {
    this.recorderWide = new TokenBucket(control.burst, 1_000 / control.qps, now);
  }

  /** Takes a write for `uid` (undefined for an object without one) if both budgets allow it now. */
  tryTake(uid: string | undefined, now: number): boolean {
    if (uid === undefined) return this.recorderWide.tryTake(now);
    const bucket = this.bucketOf(uid, now);
    if (bucket.msUntilToken(now) > 0 || !this.recorderWide.tryTake(now)) return false;
    return bucket.tryTake(now);
  }

  /**
   * Takes a write for folded occurrences that have waited `waitedMs`: once
   * they have waited the maximum delay, only the recorder-wide budget counts.
   */
  tryTakeFolded(uid: string, waitedMs: number, now: number): boolean {
    if (waitedMs < this.control.maxDelay) return this.tryTake(uid, now);
    if (!this.recorderWide.tryTake(now)) return false;
    this.bucketOf(uid, now).tryTake(now);
    return true;
  }

  /** Milliseconds until folded occurrences that have waited `waitedMs` may be written. */
  msUntilFoldedWrite(uid: string, waitedMs: number, now: number): number {
    const objectWait = Math.min(this.bucketOf(uid, now).msUntilToken(now), Math.max(0, this.control.maxDelay - waitedMs));
    return Math.max(objectWait, this.recorderWide.msUntilToken(now));
  }

  /** Milliseconds until the recorder-wide budget has a write. */
  msUntilRecorderWrite(now: number): number {
    return this.recorderWide.msUntilToken(now);
  }

  private bucketOf(uid: string, now: number): TokenBucket {
    let bucket = this.objects.get(uid);
    if (bucket) {
      this.objects.delete(uid);
    } else {
      bucket = new TokenBucket(this.control.objectBurst, this.control.objectRefillMs, now);
      this.forgetRefilled(now);
    }
    this.objects.set(uid, bucket);
    return bucket;
  }

  private forgetRefilled(now: number): void {
    for (const [uid, bucket] of this.objects) {
      if (this.objects.size < this.maxObjects && !bucket.isFull(now)) break;
      this.objects.delete(uid);
    }
  }
}
