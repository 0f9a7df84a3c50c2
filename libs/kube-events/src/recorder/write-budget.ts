import type { ResolvedWriteControl } from '../kube-events.interfaces.js';
import type { TrackedObject } from './series.js';
import { TokenBucket } from './token-bucket.js';
import { WriteRate } from './write-rate.js';

/**
 * How many writes the recorder may send now: a token bucket per object, as
 * client-go's spam filter, kept with the object's series (so it is bounded
 * with them), and one for the whole recorder, so that a storm over many
 * objects cannot flood the API server. The recorder-wide budget's rate
 * follows what the server admits ({@link WriteRate}): the write loop tells
 * it of each answer.
 */
export class WriteBudget {
  private readonly recorderWide: TokenBucket;
  private readonly rate: WriteRate;

  constructor(
    private readonly control: ResolvedWriteControl,
    now: number,
  ) {
    this.recorderWide = new TokenBucket(control.burst, 1_000 / control.qps, now);
    this.rate = new WriteRate(control.qps, now);
  }

  /** The server answered that it is overloaded (`429`, `503`): the recorder-wide rate drops. */
  overloaded(now: number): void {
    if (this.rate.overloaded(now)) this.resizeRecorderWide(now);
  }

  /** The server admitted a write: the recorder-wide rate recovers towards the configured one. */
  admitted(now: number): void {
    if (this.rate.admitted(now)) this.resizeRecorderWide(now);
  }

  /** Writes per second the recorder-wide budget allows now. */
  get recorderQps(): number {
    return this.rate.qps;
  }

  /** Takes a write for `object` (undefined for an object without a uid) if both budgets allow it now. */
  tryTake(object: TrackedObject | undefined, now: number): boolean {
    if (object === undefined) return this.recorderWide.tryTake(now);
    const bucket = this.bucketOf(object, now);
    if (bucket.msUntilToken(now) > 0 || !this.recorderWide.tryTake(now)) return false;
    return bucket.tryTake(now);
  }

  /**
   * Takes a write for occurrences (of an object, or of none) that have waited `waitedMs`: once
   * they have waited the maximum delay, only the recorder-wide budget counts.
   */
  tryTakeFolded(object: TrackedObject | undefined, waitedMs: number, now: number): boolean {
    if (object === undefined || waitedMs < this.control.maxDelay) return this.tryTake(object, now);
    if (!this.recorderWide.tryTake(now)) return false;
    this.bucketOf(object, now).tryTake(now);
    return true;
  }

  /**
   * Milliseconds until the object's budget lets folded occurrences that have
   * waited `waitedMs` be written: a token, or the maximum delay.
   */
  msUntilObjectWrite(object: TrackedObject, waitedMs: number, now: number): number {
    return Math.min(this.bucketOf(object, now).msUntilToken(now), Math.max(0, this.control.maxDelay - waitedMs));
  }

  /** Milliseconds until the recorder-wide budget has a write. */
  msUntilRecorderWrite(now: number): number {
    return this.recorderWide.msUntilToken(now);
  }

  /** Milliseconds until the recorder-wide budget is full again: holding writes past that would lower its rate. */
  msUntilRecorderFull(now: number): number {
    return this.recorderWide.msUntilFull(now);
  }

  /** The burst shrinks with the rate, so that a lowered rate is not spent at once in one burst. */
  private resizeRecorderWide(now: number): void {
    const { qps } = this.rate;
    const burst = Math.max(1, Math.floor((this.control.burst * qps) / this.control.qps));
    this.recorderWide.resize(burst, 1_000 / qps, now);
  }

  private bucketOf(object: TrackedObject, now: number): TokenBucket {
    return (object.budget ??= new TokenBucket(this.control.objectBurst, this.control.objectRefillMs, now));
  }
}
