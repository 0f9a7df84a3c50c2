/** What watches an awaited publish until it settles: told when it does, so that it lets go of it at once. */
export interface SettleWatcher {
  settled(awaited: AwaitedPublish): void;
}

/**
 * The promise a caller awaits for one publish: it settles with the write
 * that carries the occurrence, or rejects when its deadline passes first
 * (the occurrence itself stays queued; only the wait ends).
 */
export class AwaitedPublish {
  readonly promise: Promise<void>;
  /**
   * What carries the occurrence, once queued: its last failure explains a
   * timeout, it lets go of this publish as soon as it settles, and it counts
   * the publishes told it stays queued (the write coordinator, which tells
   * them, counts them). The write queue sets it.
   */
  carrier:
    | {
        readonly attempts: { readonly lastError: Error | undefined };
        readonly waiters: Set<AwaitedPublish>;
        toldQueued: number;
      }
    | undefined;
  /** Links of the deadline line (see `PublishDeadlines`), which owns them. */
  previous: AwaitedPublish | undefined;
  next: AwaitedPublish | undefined;
  watcher: SettleWatcher | undefined;
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

  /** Whether it has resolved or rejected. */
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
    this.watcher?.settled(this);
    this.carrier?.waiters.delete(this);
    return true;
  }
}
