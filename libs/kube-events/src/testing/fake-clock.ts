import type { KubeEventsClock, KubeEventsTimer } from '../kube-events.interfaces.js';

/** A timer of a {@link FakeClock}: when it is due, and what it calls then. */
class FakeTimer implements KubeEventsTimer {
  constructor(
    readonly dueAt: number,
    /** Breaks ties between timers due at the same time: the one set first fires first. */
    readonly order: number,
    readonly fire: () => void,
  ) {}

  /** A fake timer holds no process: nothing to do. */
  ref(): this {
    return this;
  }

  /** A fake timer holds no process: nothing to do. */
  unref(): this {
    return this;
  }
}

/** Lets every promise job queued so far run, and the jobs they queue, and any I/O already answered. */
const promiseJobs = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A clock that stands still until the test moves it, for a recorder's
 * `clock` option: series windows, write budgets (`maxDelay`), retry
 * backoffs, publish deadlines and request timeouts then pass when the test
 * says, not when the machine gets to it, so a test of "the count reaches
 * the server within `maxDelay`" or "the publish times out" waits for
 * nothing and fails the same way on a loaded machine.
 *
 * Its time is monotonic milliseconds from 0 (or `startMs`); Event times
 * (`eventTime`, `lastObservedTime`) still read the wall clock.
 *
 * @example
 * const clock = new FakeClock();
 * const recorder = new FakeEventRecorder({ clock, writeControl: { objectBurst: 1, maxDelay: 1_000 } });
 * await recorder.publish(widget, failed);
 * void recorder.publish(widget, failed); // folded: the object's budget is spent
 * await clock.advance(1_000);
 * recorder.expectEvent({ reason: 'ReconcileFailed', count: 2 });
 */
export class FakeClock implements KubeEventsClock {
  private time: number;
  /** Pending timers, in the order they fire. */
  private timers: FakeTimer[] = [];
  private timersSet = 0;

  /**
   * A clock that reads `startMs` until it is advanced.
   * @param startMs what {@link now} returns until the clock is advanced
   */
  constructor(startMs = 0) {
    this.time = startMs;
  }

  /** The fake time, in milliseconds: moves only with {@link advance}. */
  now(): number {
    return this.time;
  }

  /** Calls `fire` once the clock has been advanced `ms` (at once for 0 or less) from now. */
  setTimer(ms: number, fire: () => void): KubeEventsTimer {
    const delay = Number.isNaN(ms) || ms <= 0 ? 0 : ms;
    const timer = new FakeTimer(this.time + delay, this.timersSet++, fire);
    // After every timer due no later: timers due at the same time fire in the order they were set.
    const at = this.timers.findIndex((other) => other.dueAt > timer.dueAt);
    this.timers.splice(at === -1 ? this.timers.length : at, 0, timer);
    return timer;
  }

  /** Stops a timer set with {@link setTimer}; one that fired or was stopped already is left as it is. */
  clearTimer(timer: KubeEventsTimer | undefined): void {
    this.timers = this.timers.filter((pending) => pending !== timer);
  }

  /** Settles once the clock has been advanced `ms` from now. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => this.setTimer(ms, resolve));
  }

  /** How many timers are set and have not fired. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Milliseconds until the next timer is due; undefined when none is set. */
  msUntilNextTimer(): number | undefined {
    const next = this.timers[0];
    return next && next.dueAt - this.time;
  }

  /**
   * Moves the clock `ms` ahead. Fires every timer due by then, in time
   * order, each at its own time, and lets promise jobs run before the first
   * and after each, so that what a fired timer's work schedules (the next
   * write's timer, a retry's backoff) is seen and fires too when it is due
   * within `ms`. Resolves once the clock reads `now() + ms` and the jobs
   * the last timer started have run. Requests on a real socket are not
   * waited for: await what they settle.
   */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance takes a number of milliseconds ≥ 0, not ${ms}`);
    const until = this.time + ms;
    await promiseJobs();
    for (let next = this.timers[0]; next && next.dueAt <= until; next = this.timers[0]) {
      this.timers.shift();
      this.time = next.dueAt;
      next.fire();
      await promiseJobs();
    }
    this.time = until;
  }
}
