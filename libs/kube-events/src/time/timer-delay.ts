import { MAX_TIMER_DELAY_MS } from '../kube-events.constants.js';

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
