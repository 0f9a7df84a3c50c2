import { jest } from '@jest/globals';
import { AwaitedPublish } from '../publish/index.js';
import { PublishDeadlines } from './publish-deadlines.js';
import { systemClock } from '../../time/system-clock.js';

const clock = systemClock;

describe('PublishDeadlines', () => {
  // The real clock on Jest's fake timers: its deadlines pass when the test says.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('rejects what is still waiting at its deadline, in order, and lets go of what settled at once', async () => {
    const timedOut: AwaitedPublish[] = [];
    const deadlines = new PublishDeadlines(clock, (awaited) => {
      timedOut.push(awaited);
      awaited.reject(new Error('timed out'));
    });
    const now = clock.now();
    const [first, second, third] = [now + 20, now + 25, now + 30].map((deadline) => new AwaitedPublish(deadline));
    for (const awaited of [first, second, third]) {
      awaited.promise.catch(() => undefined);
      deadlines.watch(awaited);
    }
    second.resolve();
    expect(second.watcher).toBeUndefined();
    expect(first.next).toBe(third);
    expect(third.previous).toBe(first);

    await jest.advanceTimersByTimeAsync(29);
    expect(timedOut).toEqual([first]);
    await jest.advanceTimersByTimeAsync(1);
    await expect(first.promise).rejects.toThrow('timed out');
    await expect(third.promise).rejects.toThrow('timed out');
    await expect(second.promise).resolves.toBeUndefined();
    expect(timedOut).toEqual([first, third]);
  });

  it('keeps nothing of a publish that settled before its deadline', () => {
    const deadlines = new PublishDeadlines(clock, () => undefined);
    const awaited = Array.from({ length: 3 }, () => new AwaitedPublish(clock.now() + 60_000));
    awaited.forEach((each) => deadlines.watch(each));
    awaited.forEach((each) => each.resolve());
    for (const each of awaited)
      expect([each.previous, each.next, each.watcher]).toEqual([undefined, undefined, undefined]);
    // Watching again after the line emptied starts it anew.
    const later = new AwaitedPublish(clock.now() + 60_000);
    deadlines.watch(later);
    expect(later.previous).toBeUndefined();
    later.resolve();
  });
});
