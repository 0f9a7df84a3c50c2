/**
 * The promise a caller awaits for one publish: it settles with the write
 * that carries the occurrence, or rejects when the timeout passes first
 * (the occurrence itself stays queued; only the wait ends).
 */
export class AwaitedPublish {
  readonly promise: Promise<void>;
  private resolvePromise!: () => void;
  private rejectPromise!: (error: unknown) => void;
  private readonly timer: NodeJS.Timeout;
  private settled = false;

  constructor(timeoutMs: number, timedOut: () => Error) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    this.timer = setTimeout(() => this.reject(timedOut()), timeoutMs);
  }

  /** Whether the caller has had its answer. */
  get isSettled(): boolean {
    return this.settled;
  }

  resolve(): void {
    if (this.settle()) this.resolvePromise();
  }

  reject(error: unknown): void {
    if (this.settle()) this.rejectPromise(error);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }
}
