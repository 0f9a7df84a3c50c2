import type { AwaitedPublish, SettleWatcher } from '../publish/index.js';
import { InsertionOrder, type Linked } from '../../values/insertion-order.js';
import type { KubeEventsClock, KubeEventsTimer } from '../../kube-events.interfaces.js';

/**
 * Ends the wait of every publish at its deadline, with one timer for all of
 * them ({@link DeadlineLine}). Its timer is the one the recorder keeps
 * referenced: while a caller awaits a publish, the process stays alive
 * until it settles (a script awaiting a publish that waits for the write
 * budget would otherwise exit under it), and once nothing is awaited,
 * nothing of the recorder keeps it alive.
 */
export class PublishDeadlines implements SettleWatcher {
  private readonly line: DeadlineLine<AwaitedPublish>;

  constructor(clock: KubeEventsClock, timedOut: (awaited: AwaitedPublish) => void) {
    this.line = new DeadlineLine(clock, (awaited) => {
      awaited.watcher = undefined;
      timedOut(awaited);
    });
  }

  /** Watches `awaited` until it settles or its deadline passes. */
  watch(awaited: AwaitedPublish): void {
    awaited.watcher = this;
    this.line.add(awaited);
  }

  /** A watched publish settled: it leaves the line. */
  settled(awaited: AwaitedPublish): void {
    this.line.remove(awaited);
    awaited.watcher = undefined;
  }
}

/** An item of a {@link DeadlineLine}: when it is due, and its links in the line. */
interface Due<T> extends Linked<T> {
  readonly deadline: number;
}

/**
 * Items that each expire at their deadline, with one timer for all of them:
 * every item of a line has the same timeout, so deadlines arrive in the
 * order items are added, and a first-in-first-out line serves. The line is
 * linked through the items themselves, so one that settles leaves it at
 * once. The timer keeps the process alive while an item waits, and no
 * longer: once the line is empty it is left armed, unreferenced, so that
 * the next item finds it rather than set a timer of its own.
 */
class DeadlineLine<T extends Due<T>> {
  private readonly line = new InsertionOrder<T>();
  private timer: KubeEventsTimer | undefined;

  constructor(
    private readonly clock: KubeEventsClock,
    /** Called for each item whose deadline passed, once it left the line. */
    private readonly expired: (item: T) => void,
  ) {}

  /** Adds an item, due at its `deadline`. */
  add(item: T): void {
    this.line.push(item);
    this.arm();
  }

  /** An item settled before its deadline: it leaves the line. */
  remove(item: T): void {
    this.line.remove(item);
    if (!this.line.first) this.timer?.unref();
  }

  private arm(): void {
    const first = this.line.first;
    if (!first) return;
    if (this.timer) this.timer.ref();
    else this.timer = this.clock.setTimer(first.deadline - this.clock.now(), () => this.expire(), true);
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    // A deadline further off than a timer holds is waited out in turns: one not come yet is set again.
    for (let item = this.line.first; item && item.deadline <= now; item = this.line.first) {
      this.line.remove(item);
      this.expired(item);
    }
    this.arm();
  }
}
