/**
 * The promise a caller awaits for one publish: it settles with the write
 * that carries the occurrence, or rejects when its deadline passes first
 * (the occurrence itself stays queued; only the wait ends).
 */
export class AwaitedPublish {
  readonly promise: Promise<void>;
  /** What carries the occurrence, once queued: its last failure explains a timeout. */
  carrier: { readonly lastError: Error | undefined } | undefined;
  private resolvePromise!: () => void;
  private rejectPromise!: (error: unknown) => void;
  private settled = false;

  constructor(
    /** When the caller stops waiting, on the monotonic clock. */
    readonly deadline: number,
  ) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
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
    return true;
  }
}
