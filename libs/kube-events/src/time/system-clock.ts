import type { KubeEventsClock, KubeEventsTimer } from '../kube-events.interfaces.js';
import { MAX_TIMER_DELAY_MS } from '../kube-events.constants.js';

/**
 * The real clock, a recorder's unless its options give another: monotonic
 * `performance.now()` and Node.js timers. Every delay is clamped (see
 * `timerDelay`), so a timer set for far off fires early and its owner,
 * finding its time not come, sets it again. An application's own timers
 * (a work queue's retries, a leader election's renewals) may take it too,
 * and `FakeClock` from `nestjs-kube-events/testing` in their tests.
 */
export const systemClock: KubeEventsClock = Object.freeze({
  /** Monotonic milliseconds: a step of the wall clock moves no window, budget or timer (Event times read the wall clock). */
  now(): number {
    return Math.floor(performance.now());
  },

  /** Calls `fire` once `ms` have passed. The process does not wait for it unless `holdsProcess`. */
  setTimer(ms: number, fire: () => void, holdsProcess = false): KubeEventsTimer {
    const timer = setTimeout(fire, timerDelay(ms));
    if (!holdsProcess) timer.unref();
    return timer;
  },

  /** Stops a timer set with `setTimer`. */
  clearTimer(timer: KubeEventsTimer | undefined): void {
    clearTimeout(timer as NodeJS.Timeout | undefined);
  },

  /** Settles once `ms` have passed; the process waits for it. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, timerDelay(ms)));
  },
});

/** Whether `value` works as a {@link KubeEventsClock}: an object with its four methods. */
export function isClock(value: unknown): value is KubeEventsClock {
  if (typeof value !== 'object' || value === null) return false;
  const clock = value as Partial<Record<keyof KubeEventsClock, unknown>>;
  return (['now', 'setTimer', 'clearTimer', 'sleep'] as const).every((method) => typeof clock[method] === 'function');
}

/**
 * A delay every timer of the library is set with: between 0 and
 * {@link MAX_TIMER_DELAY_MS}, so that no timer fires at once with a
 * `TimeoutOverflowWarning` because what it waits for is far off (a
 * `Retry-After` in year 9999, a huge timeout). A timer cut short so finds
 * its time has not come and is set again.
 */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
