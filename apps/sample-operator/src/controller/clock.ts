/** A handle returned by {@link Clock.setTimeout}: Node's `Timeout`, or a fake clock's number. */
export type TimerHandle = object | number;

/**
 * Time as the controller machinery sees it. Injected so that tests can drive
 * delays by hand instead of waiting for them.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once after `delayMs`. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels the timer of `handle`; does nothing for `undefined` or a timer that has run. */
  clearTimeout(handle: TimerHandle | undefined): void;
}

/**
 * The process clock. Its timers keep Node running (an informer waiting to
 * reconnect is all an operator may have pending); their owners clear them
 * when they stop.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
