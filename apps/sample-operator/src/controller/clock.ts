/** A handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * Time as the controller machinery sees it. Injected so that tests can drive
 * delays by hand instead of waiting for them.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once after `delayMs`; the timer never keeps the process alive. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock. Timers are `unref`'d: a pending retry alone does not keep Node running. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
