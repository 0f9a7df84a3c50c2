import { timerDelay } from '../timer-delay.js';

/**
 * The write path's one clock, and the one owner of its timers: series
 * windows, budgets, backoffs, publish deadlines and request timeouts all
 * read `now()` and wait through it. Every delay is clamped (see
 * `timerDelay`), so a timer set for far off fires early and its owner,
 * finding its time not come, sets it again.
 */
export class WriteClock {
  /** Monotonic milliseconds: a step of the wall clock moves no window, budget or timer (Event times read the wall clock). */
  now(): number {
    return Math.floor(performance.now());
  }

  /** Calls `fire` once `ms` have passed. The process does not wait for it unless `holdsProcess`. */
  after(ms: number, fire: () => void, holdsProcess = false): NodeJS.Timeout {
    const timer = setTimeout(fire, timerDelay(ms));
    if (!holdsProcess) timer.unref();
    return timer;
  }

  /** Settles once `ms` have passed; the process waits for it. */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, timerDelay(ms)));
  }

  /** Stops a timer set with {@link after}. */
  clear(timer: NodeJS.Timeout | undefined): void {
    clearTimeout(timer);
  }
}
