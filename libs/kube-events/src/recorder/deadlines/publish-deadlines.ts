import type { AwaitedPublish } from '../publish/index.js';
import type { KubeEventsClock, KubeEventsTimer } from '../../kube-events.interfaces.js';

/**
 * Ends the wait of every publish at its deadline: a timer for each watched
 * publish, cleared when it settles. These timers are the ones the recorder
 * keeps referenced: while a caller awaits a publish, the process stays
 * alive until it settles (a script awaiting a publish that waits for the
 * write budget would otherwise exit under it), and once nothing is
 * awaited, nothing of the recorder keeps it alive.
 */
export class PublishDeadlines {
  constructor(
    private readonly clock: KubeEventsClock,
    /** Called for a watched publish whose deadline passed before it settled. */
    private readonly timedOut: (awaited: AwaitedPublish) => void,
  ) {}

  /** Watches `awaited` until it settles or its deadline passes. */
  watch(awaited: AwaitedPublish): void {
    let timer: KubeEventsTimer | undefined;
    const due = () => {
      // A deadline further off than a timer holds is waited out in turns: one not come yet is set again.
      const left = awaited.deadline - this.clock.now();
      if (left > 0) timer = this.clock.setTimer(left, due, true);
      else {
        awaited.stopWatching = undefined;
        this.timedOut(awaited);
      }
    };
    timer = this.clock.setTimer(awaited.deadline - this.clock.now(), due, true);
    awaited.stopWatching = () => this.clock.clearTimer(timer);
  }
}
