/**
 * The clock of series windows, write budgets and timers: monotonic, so that
 * a step of the wall clock changes none of them. Event timestamps use the
 * wall clock.
 */
export const monotonicNow = (): number => Math.floor(performance.now());
