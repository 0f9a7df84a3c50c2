import type { AwaitedPublish, SettleWatcher } from '../publish/index.js';
import { DeadlineLine } from './deadline-line.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

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
