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
