import type { ResolvedWriteControl } from '../../kube-events.interfaces.js';
import type { TrackedObject } from '../series/index.js';
import { TokenBucket } from './token-bucket.js';

/**
 * How many writes the recorder may send now: a token bucket per object, as
 * client-go's spam filter, kept with the object's series (so it is bounded
 * with them), and one for the whole recorder, so that a storm over many
 * objects cannot flood the API server. The recorder-wide budget's rate
 * follows what the server admits ({@link WriteRate}): the write coordinator
 * tells it of each write's answers.
 */
export class WriteBudgets {
  private readonly recorderWide: TokenBucket;
  private readonly rate: WriteRate;
  /** How many times the server's overload has lowered the recorder-wide rate. */
  private lowerings = 0;

  constructor(
    private readonly control: ResolvedWriteControl,
    now: number,
  ) {
    this.recorderWide = new TokenBucket(control.burst, 1_000 / control.qps, now);
    this.rate = new WriteRate(control.qps, now);
  }

  /** The server answered a write sent at `sentAt` that it is overloaded (`429`, `503`): the recorder-wide rate drops. */
  overloaded(sentAt: number, now: number): void {
    if (!this.rate.overloaded(sentAt, now)) return;
    this.lowerings++;
    this.resizeRecorderWide(now, true);
  }

  /** Whether the server's overload answers hold the recorder-wide rate down now (see {@link WriteRate.throttled}). */
  throttled(now: number): boolean {
    return this.rate.throttled(now);
  }

  /** A mark to hold a write taken now against: see {@link loweredSince}. */
  get mark(): number {
    return this.lowerings;
  }

  /** Whether the recorder-wide rate was lowered since `mark`: a write taken then should wait for the lower rate. */
  loweredSince(mark: number): boolean {
    return this.lowerings !== mark;
  }

  /** The server admitted a write: the recorder-wide rate recovers towards the configured one. */
  admitted(now: number): void {
    if (this.rate.admitted(now)) this.resizeRecorderWide(now, false);
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
  tryTakeForWrite(object: TrackedObject | undefined, waitedMs: number, now: number): boolean {
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

  /**
   * Below the configured rate, the burst is a tenth of a second of writes: what the server could not seat
   * at once, it would not seat in a burst either. A lowered rate also spends what the bucket held.
   */
  private resizeRecorderWide(now: number, lowered: boolean): void {
    const { qps } = this.rate;
    const recovered = qps >= this.control.qps;
    const burst = recovered ? this.control.burst : Math.max(1, Math.floor(qps / 10));
    this.recorderWide.resize(burst, 1_000 / qps, now, lowered);
  }

  private bucketOf(object: TrackedObject, now: number): TokenBucket {
    // Every object's budget is made here, so it is a token bucket.
    return (object.budget ??= new TokenBucket(
      this.control.objectBurst,
      this.control.objectRefillMs,
      now,
    )) as TokenBucket;
  }
}

/**
 * How the recorder-wide write rate follows what the server admits, as
 * KEP-383 asks of recorders that are throttled: halved on each overload
 * answer (`429`, `503`) to a write sent since the last halving (the
 * answers to writes sent before it tell of a rate already left), never
 * below `floorQps`; then raised by `recoveryPerSecond` of the configured
 * rate for each second the server admits writes, back to the configured rate.
 */
export const WRITE_RATE_ADAPTATION = Object.freeze({
  decreaseFactor: 0.5,
  floorQps: 1,
  recoveryPerSecond: 0.1,
});

/**
 * The recorder-wide write rate (writes per second), additive increase and
 * multiplicative decrease from the server's answers (see
 * {@link WRITE_RATE_ADAPTATION}). Pure logic: every change takes the time.
 */
export class WriteRate {
  private rate: number;
  private decreasedAt = Number.NEGATIVE_INFINITY;
  private raisedAt: number;

  constructor(
    private readonly configuredQps: number,
    now: number,
  ) {
    this.rate = configuredQps;
    this.raisedAt = now;
  }

  /** Writes per second the recorder may send now. */
  get qps(): number {
    return this.rate;
  }

  /**
   * Whether the server throttles the writes: the rate is below the
   * configured one, or (at a floor it cannot go below) an overload answer
   * came within the time a full recovery takes.
   */
  throttled(now: number): boolean {
    return this.rate < this.configuredQps || now - this.decreasedAt < 1_000 / WRITE_RATE_ADAPTATION.recoveryPerSecond;
  }

  /**
   * The server said a write sent at `sentAt` found it overloaded: the rate halves, unless it did since
   * that write was sent. Returns whether it changed.
   */
  overloaded(sentAt: number, now: number): boolean {
    const { decreaseFactor, floorQps } = WRITE_RATE_ADAPTATION;
    if (sentAt < this.decreasedAt) return false;
    const lowered = Math.max(Math.min(floorQps, this.configuredQps), this.rate * decreaseFactor);
    this.decreasedAt = now;
    this.raisedAt = now;
    if (lowered === this.rate) return false;
    this.rate = lowered;
    return true;
  }

  /** The server admitted a write: the rate grows with the time since it last changed. Returns whether it changed. */
  admitted(now: number): boolean {
    if (this.rate >= this.configuredQps || now <= this.raisedAt) return false;
    // A quiet spell is not evidence that the server admits more: at most one second's growth per admitted write.
    const seconds = Math.min(1, (now - this.raisedAt) / 1_000);
    this.rate = Math.min(
      this.configuredQps,
      this.rate + this.configuredQps * WRITE_RATE_ADAPTATION.recoveryPerSecond * seconds,
    );
    this.raisedAt = now;
    return true;
  }
}
