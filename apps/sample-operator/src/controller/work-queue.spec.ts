import { ItemExponentialBackoff } from './backoff.js';
import { FakeClock } from 'nestjs-kube-events/testing';
import { WorkQueue } from './work-queue.js';
import { flush } from '../../../../test/support/flush.js';

/** The clock's one pending timer, as a count and how far off it is. */
function pendingTimer(clock: FakeClock): { count: number; inMs: number | undefined } {
  return { count: clock.pendingTimers, inMs: clock.msUntilNextTimer() };
}

/** Lets settled promises run their callbacks; no time passes. */

function settledState<T>(promise: Promise<T>): { settled: boolean; value?: T } {
  const state: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

describe('WorkQueue', () => {
  let clock: FakeClock;
  let queue: WorkQueue<string>;

  beforeEach(() => {
    clock = new FakeClock(1_000);
    queue = new WorkQueue<string>({ clock });
  });

  it('hands items out first in, first out', async () => {
    queue.add('a');
    queue.add('b');
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('queues an item once however often it is added', async () => {
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect([await queue.get(), await queue.get()]).toEqual(['a', 'b']);
    expect(queue.length).toBe(0);
  });

  it('never hands an item in flight to a second worker, and requeues it on done when it was added meanwhile', async () => {
    queue.add('a');
    const item = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    const second = settledState(queue.get());
    await flush();
    expect(second.settled).toBe(false);

    queue.done(item!);
    await flush();
    expect(second).toEqual({ settled: true, value: 'a' });
    queue.done('a');
    expect(queue.length).toBe(0);
    expect(queue.inFlight).toBe(0);
  });

  it('does not requeue an item on done when nobody added it meanwhile', async () => {
    queue.add('a');
    queue.done((await queue.get())!);
    expect(queue.length).toBe(0);
  });

  it('makes get wait until an item is added', async () => {
    const pending = settledState(queue.get());
    await flush();
    expect(pending.settled).toBe(false);
    queue.add('a');
    await flush();
    expect(pending).toEqual({ settled: true, value: 'a' });
    expect(queue.inFlight).toBe(1);
  });

  it('serves waiting getters in order, one item each', async () => {
    const first = settledState(queue.get());
    const second = settledState(queue.get());
    queue.add('a');
    await flush();
    expect(first.value).toBe('a');
    expect(second.settled).toBe(false);
    queue.add('b');
    await flush();
    expect(second.value).toBe('b');
  });

  describe('addAfter', () => {
    it('queues the item once the delay has passed', async () => {
      queue.addAfter('a', 100);
      expect(queue.length).toBe(0);
      expect(queue.delayed).toBe(1);
      await clock.advance(99);
      expect(queue.length).toBe(0);
      await clock.advance(1);
      expect(queue.length).toBe(1);
      expect(queue.delayed).toBe(0);
    });

    it('keeps the earliest of several delays for one item', async () => {
      queue.addAfter('a', 100);
      queue.addAfter('a', 500);
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 100 });
      queue.addAfter('a', 10);
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 10 });
      await clock.advance(10);
      expect(queue.length).toBe(1);
      await clock.advance(1_000);
      expect(queue.length).toBe(1);
    });

    it('adds at once when the delay is not positive', () => {
      queue.addAfter('a', 0);
      expect(queue.length).toBe(1);
      expect(clock.pendingTimers).toBe(0);
    });

    it('does not duplicate an item that is queued when its delay ends', async () => {
      queue.add('a');
      queue.addAfter('a', 5);
      await clock.advance(5);
      expect(queue.length).toBe(1);
    });
  });

  describe('addRateLimited', () => {
    it('delays each retry of an item twice as long, until forget', async () => {
      queue.addRateLimited('a');
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 5 });
      await clock.advance(5);
      queue.addRateLimited('a');
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 10 });
      await clock.advance(10);
      queue.addRateLimited('a');
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 20 });
      expect(queue.numRequeues('a')).toBe(3);

      await clock.advance(20);
      queue.forget('a');
      expect(queue.numRequeues('a')).toBe(0);
      queue.addRateLimited('a');
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 5 });
    });

    it('uses the rate limiter it was given', async () => {
      const limited = new WorkQueue<string>({
        clock,
        rateLimiter: new ItemExponentialBackoff({ baseDelayMs: 1_000, maxDelayMs: 1_500 }),
      });
      limited.addRateLimited('a');
      limited.addRateLimited('b');
      await clock.advance(1_000);
      limited.addRateLimited('b');
      expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 1_500 });
      expect(limited.numRequeues('b')).toBe(2);
    });
  });

  describe('shutDown', () => {
    it('resolves waiting and later gets with undefined', async () => {
      const waiting = settledState(queue.get());
      queue.shutDown();
      await flush();
      expect(waiting).toEqual({ settled: true, value: undefined });
      expect(await queue.get()).toBeUndefined();
      expect(queue.isShuttingDown).toBe(true);
    });

    it('drops queued and delayed items and ignores later adds', async () => {
      queue.add('a');
      queue.addAfter('b', 10);
      queue.addRateLimited('c');
      queue.shutDown();
      expect(queue.length).toBe(0);
      expect(clock.pendingTimers).toBe(0);
      queue.add('d');
      queue.addAfter('e', 1);
      queue.addRateLimited('f');
      await clock.advance(1_000);
      expect(queue.length).toBe(0);
      expect(await queue.get()).toBeUndefined();
    });

    it('lets items in flight finish, and drain resolves when they are done', async () => {
      queue.add('a');
      queue.add('b');
      const a = (await queue.get())!;
      const b = (await queue.get())!;
      queue.add('a');
      queue.shutDown();
      const drained = settledState(queue.drain());
      await flush();
      expect(drained.settled).toBe(false);
      queue.done(a);
      await flush();
      expect(drained.settled).toBe(false);
      queue.done(b);
      await flush();
      expect(drained.settled).toBe(true);
      expect(queue.length).toBe(0);
    });

    it('drains at once when nothing is in flight', async () => {
      queue.shutDown();
      await expect(queue.drain()).resolves.toBeUndefined();
    });
  });
});
