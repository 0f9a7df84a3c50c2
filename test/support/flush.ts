// Lets what is already queued run: pending promise callbacks and the I/O and timers due before the next check phase.

/** Resolves after the event loop's next check phase (setImmediate), by which time queued microtasks have run. */
export const flush = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
