import type { AwaitedPublish, SettleWatcher } from './awaited-publish.js';
import { InsertionOrder } from './insertion-order.js';
import type { WriteClock } from './write-clock.js';

/**
 * Ends the wait of every publish at its deadline, with one timer for all of
 * them: every publish of a recorder has the same timeout, so deadlines
 * arrive in the order publishes do, and a first-in-first-out line serves.
 * The line is linked through the publishes themselves, so a publish that
 * settles leaves it at once and nothing is held until its deadline.
 *
 * The timer is the one the recorder keeps referenced: while a caller awaits
 * a publish, the process stays alive until it settles (a script awaiting a
 * publish that waits for the write budget would otherwise exit under it),
 * and once nothing is awaited, nothing of the recorder keeps it alive.
 */
export class PublishDeadlines implements SettleWatcher {
  private readonly line = new InsertionOrder<AwaitedPublish>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: WriteClock,
    private readonly timedOut: (awaited: AwaitedPublish) => void,
  ) {}

  /** Watches `awaited` until it settles or its deadline passes. */
  watch(awaited: AwaitedPublish): void {
    awaited.watcher = this;
    this.line.push(awaited);
    this.arm();
  }

  /** A watched publish settled: it leaves the line. */
  settled(awaited: AwaitedPublish): void {
    this.line.remove(awaited);
    awaited.watcher = undefined;
    // Left armed, so that the next publish finds it: cheaper than a timer per publish.
    if (!this.line.first) this.timer?.unref();
  }

  private arm(): void {
    const first = this.line.first;
    if (!first) return;
    if (this.timer) this.timer.ref();
    else this.timer = this.clock.after(first.deadline - this.clock.now(), () => this.expire(), true);
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    for (let awaited = this.line.first; awaited && awaited.deadline <= now; awaited = this.line.first) {
      this.settled(awaited);
      this.timedOut(awaited);
    }
    this.arm();
  }
}
