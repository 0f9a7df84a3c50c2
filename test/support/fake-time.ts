// The recorder on a fake clock, with requests on real sockets: a test waits, in real time, until the recorder waits
// on its clock (a backoff, a budget, a deadline), then moves the clock. Nothing here waits for time to pass.
import type { FakeClock } from 'nestjs-kube-events/testing';

const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves, with the milliseconds until it is due, once `clock` has a timer due within `withinMs`: what the
 * recorder waits for now. Rejects, saying so, when none is set within `realLimitMs` of real time.
 */
export async function timerWithin(clock: FakeClock, withinMs: number, realLimitMs = 10_000): Promise<number> {
  const giveUpAt = performance.now() + realLimitMs;
  for (;;) {
    const due = clock.msUntilNextTimer();
    if (due !== undefined && due <= withinMs) return due;
    if (performance.now() > giveUpAt)
      throw new Error(`no timer due within ${withinMs} ms was set (next: ${due ?? 'none'}) in ${realLimitMs} ms`);
    await nextTurn();
  }
}

/** Moves `clock` to the next timer once one is set due within `withinMs`, and fires it; returns how far it moved. */
export async function advanceToTimer(clock: FakeClock, withinMs: number): Promise<number> {
  const due = await timerWithin(clock, withinMs);
  await clock.advance(due);
  return due;
}

/**
 * Waits for `work` while moving each of `clocks` `stepMs` at a time, letting real I/O run between steps: for what
 * ends only once the recorder's own time has passed, as a shutdown that retries what is queued until its timeout.
 */
export async function whileAdvancing<T>(clocks: readonly FakeClock[], work: Promise<T>, stepMs = 100): Promise<T> {
  let settled = false;
  const watched = work.finally(() => (settled = true));
  watched.catch(() => undefined);
  while (!settled) {
    await nextTurn();
    if (!settled) for (const clock of clocks) await clock.advance(stepMs);
  }
  return watched;
}

/**
 * Moves `clock` `stepMs` at a time, letting real I/O run after each step, until `seen()` holds or `limitMs` have
 * passed; returns the clock's time when it first held, or undefined. A request sent on a step may be seen a step or
 * two later: the time returned is never earlier than when it was sent.
 */
export async function advanceUntilSeen(
  clock: FakeClock,
  seen: () => boolean,
  { stepMs, limitMs }: { stepMs: number; limitMs: number },
): Promise<number | undefined> {
  const until = clock.now() + limitMs;
  while (clock.now() < until) {
    await clock.advance(stepMs);
    for (let turn = 0; turn < 20 && !seen(); turn++) await nextTurn();
    if (seen()) return clock.now();
  }
  return undefined;
}

/**
 * Waits for `work`, moving `clock` to each timer due within `withinMs` as soon as one is set (a backoff, say), and
 * never further: a longer timer (a request's deadline) does not pass while a request is on a real socket.
 */
export async function firingTimersWithin<T>(clock: FakeClock, withinMs: number, work: Promise<T>): Promise<T> {
  let settled = false;
  const watched = work.finally(() => (settled = true));
  watched.catch(() => undefined);
  while (!settled) {
    const due = clock.msUntilNextTimer();
    if (due !== undefined && due <= withinMs) await clock.advance(due);
    else await nextTurn();
  }
  return watched;
}
