import { jest } from '@jest/globals';
import { PublishTimeoutError } from '../../errors.js';
import { systemClock } from '../../time/system-clock.js';
import { RequestDeadlines } from './request-deadlines.js';

const clock = systemClock;
/** Moves the real clock on Jest's fake timers, and runs what falls due. */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

const TIMEOUT = 1_000;

/** A request that answers only when aborted, with the signal's reason, as the Events API does. */
function hangingRequest(signals: AbortSignal[]): (signal: AbortSignal) => Promise<string> {
  return (signal) => {
    signals.push(signal);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
}

describe('RequestDeadlines', () => {
  // The real clock on Jest's fake timers: it stands still until the test moves it.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('aborts requests sent in the same millisecond together at their deadline, and none sent later', async () => {
    const deadlines = new RequestDeadlines(clock, TIMEOUT);
    const signals: AbortSignal[] = [];
    const first = deadlines.bound(hangingRequest(signals));
    const second = deadlines.bound(hangingRequest(signals));
    const answered = deadlines.bound(async () => 'answered');
    await advance(1);
    const later = deadlines.bound(hangingRequest(signals));
    const settled = [first, second, later].map((request) => request.catch((error: unknown) => error));

    await expect(answered).resolves.toBe('answered');
    await advance(TIMEOUT - 1);
    await expect(settled[0]).resolves.toBeInstanceOf(PublishTimeoutError);
    await expect(settled[1]).resolves.toBeInstanceOf(PublishTimeoutError);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true, false]);

    await advance(1);
    await expect(settled[2]).resolves.toBeInstanceOf(PublishTimeoutError);
    expect(signals[2].aborted).toBe(true);
  });

  it('passes what a request rejects with through the mapping it was given', async () => {
    const deadlines = new RequestDeadlines(clock, TIMEOUT);
    const refused = new Error('refused');
    const mapped = deadlines.bound(
      () => Promise.reject(refused),
      (error) => new Error(`mapped: ${(error as Error).message}`),
    );
    await expect(mapped).rejects.toThrow('mapped: refused');
    // Thrown before any promise, it is settled the same way.
    const thrown = deadlines.bound(
      () => {
        throw refused;
      },
      (error) => new Error(`mapped: ${(error as Error).message}`),
    );
    await expect(thrown).rejects.toThrow('mapped: refused');
  });
});
