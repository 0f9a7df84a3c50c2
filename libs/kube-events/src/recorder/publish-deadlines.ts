import { monotonicNow } from './monotonic-clock.js';
import type { AwaitedPublish } from './awaited-publish.js';

/**
 * Ends the wait of every publish at its deadline, with one timer for all of
 * them: every publish of a recorder has the same timeout, so deadlines
 * arrive in the order publishes do, and a first-in-first-out line serves.
 */
export class PublishDeadlines {
  private readonly line: AwaitedPublish[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timedOut: (awaited: AwaitedPublish) => void) {}

  /** Watches `awaited` until it settles or its deadline passes. */
  watch(awaited: AwaitedPublish): void {
    this.line.push(awaited);
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.head >= this.line.length) return;
    const wait = Math.max(0, this.line[this.head].deadline - monotonicNow());
    this.timer = setTimeout(() => this.expire(), wait);
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = monotonicNow();
    while (this.head < this.line.length && this.line[this.head].deadline <= now) {
      const awaited = this.line[this.head++];
      if (!awaited.isSettled) this.timedOut(awaited);
    }
    // Settled publishes leave the line with their deadline; compact it now and then.
    if (this.head > 1_024 && this.head * 2 > this.line.length) {
      this.line.splice(0, this.head);
      this.head = 0;
    }
    this.arm();
  }
}
