import type { EventStatement } from '../../api/event-statement.js';
import type { ListedEvent } from '../../api/events-api.js';
import { PublishApiError, PublishTimeoutError, type PublishError } from '../../errors.js';
import { AwaitedPublish, type Occurrence } from '../publish/index.js';
import { EndedEvents, SeriesIndex, writing, type Batch, type Series, type WriteResult } from '../series/index.js';
import { SpentBudgets, TokenBucket } from '../pacing/index.js';
import { WriteLedger, WritePlanner, WriteQueue } from '../writes/index.js';
import { settleSeries } from './write-coordinator.js';

const WINDOW = 1_000;

/**
 * The series, their queue and the answers to their writes, put together as the recorder does: the ledger reads
 * each answer into a decision, which is applied to the series as the write coordinator applies it once the write ends.
 */
function storeOf(maxSeries = 10, maxPending = 100, resume = false) {
  const index = new SeriesIndex({ window: WINDOW, maxSeries, resume, kept: new SpentBudgets(maxSeries) });
  const queue = new WriteQueue(maxPending);
  const ended = new EndedEvents(maxSeries);
  const ledger = new WriteLedger(new WritePlanner({ window: WINDOW, controller: 'widgets', ended }), WINDOW, WINDOW);
  return {
    get size() {
      return index.size;
    },
    withWork: queue.withWork,
    acquire: index.acquire.bind(index),
    enqueue: queue.enqueue.bind(queue),
    // The series' next write starts at `now`, as the coordinator starts it.
    startWrite(series: Series, now: number) {
      const batch = queue.take(series);
      if (!batch) return undefined;
      writing(series);
      return { batch, plan: ledger.plan(series, batch, now) };
    },
    // The first request of a write, answered at `now`: the decision, applied when the write ends.
    settle(series: Series, batch: Batch, result: WriteResult, now: number) {
      const decision = ledger.read(series, batch, result, 1, now, now);
      if (decision.kind !== 'next') settleSeries(series, queue, { batch, decision }, now);
      return decision;
    },
    // A failure after the write was sent again once: what becomes of the batch.
    fail(series: Series, batch: Batch, error: PublishError, now: number) {
      const decision = ledger.readFailure(series, batch, error, true, now);
      if (decision.kind === 'next') throw new Error('a write sent again once is not sent again');
      settleSeries(series, queue, { batch, decision }, now);
      return decision.then;
    },
    forget(uid: string, failure: true | undefined, now: number) {
      const forgotten = index.forget(uid, failure, now);
      if (resume) for (const event of forgotten) ended.add(event.namespace, event.name);
      return forgotten;
    },
  };
}
type SeriesStore = ReturnType<typeof storeOf>;

function occurrence(uid: string, now: number, note = 'n'): Occurrence {
  return {
    resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uid, namespace: 'default', uid } },
    event: { type: 'Warning', reason: 'Failed', action: 'Sync', note },
    failure: false,
    publishedAt: now,
  };
}

/** What an Event of object `a`'s series says, as the server holds it: the controller's own. */
function said(note = 'n'): EventStatement {
  const about = { regardingUid: 'a', type: 'Warning', reason: 'Failed', action: 'Sync' };
  return { ...about, reportingController: 'widgets', note, related: undefined };
}

const waiters: AwaitedPublish[] = [];
function waiter(): AwaitedPublish {
  const awaited = new AwaitedPublish(60_000);
  awaited.promise.catch(() => undefined);
  waiters.push(awaited);
  return awaited;
}
afterEach(() => waiters.splice(0).forEach((awaited) => awaited.resolve()));

/** Publishes one occurrence at `now` and writes it (a create answered with `count`). */
function publish(store: SeriesStore, uid: string, now: number, failure = false): Series {
  const series = store.acquire(uid, failure, 'Failed', 'Sync', now);
  store.enqueue(series, occurrence(uid, now), waiter());
  const { batch, plan } = store.startWrite(series, now)!;
  if (plan.kind !== 'create') throw new Error(`expected a create, got ${plan.kind}`);
  store.settle(
    series,
    batch,
    { kind: 'created', state: { name: plan.name, namespace: 'default', resourceVersion: '1', count: plan.count } },
    now,
  );
  return series;
}

describe('series bookkeeping: the index, the write queue and the write answers', () => {
  describe('bounds', () => {
    it('returns the same series for the same key while it is current', () => {
      const store = storeOf();
      const first = publish(store, 'a', 0);
      expect(store.acquire('a', false, 'Failed', 'Sync', 500)).toBe(first);
    });

    it('keeps one object’s series apart by failure, reason and action', () => {
      const store = storeOf();
      const queued = (failure: boolean, reason: string, action: string) => {
        const series = store.acquire('a', failure, reason, action, 0);
        store.enqueue(series, occurrence('a', 0), waiter());
        return series;
      };
      const sync = queued(false, 'Failed', 'Sync');
      const others = [
        queued(true, 'Failed', 'Sync'),
        queued(false, 'Failed', 'Delete'),
        queued(false, 'Stuck', 'Sync'),
      ];
      expect(new Set([sync, ...others]).size).toBe(4);
      expect(store.size).toBe(4);
      expect(store.acquire('a', false, 'Failed', 'Sync', 1)).toBe(sync);
      expect(store.acquire('b', false, 'Failed', 'Sync', 1)).not.toBe(sync);
    });

    it('drops series past their window when a later publish comes', () => {
      const store = storeOf();
      publish(store, 'a', 0);
      publish(store, 'b', 100);
      publish(store, 'c', 1_050);
      expect(store.size).toBe(2); // a expired at 1000; b is still current
      publish(store, 'd', 1_200);
      expect(store.size).toBe(2);
    });

    it('never drops a series with queued occurrences, even when expired or over the cap', () => {
      const store = storeOf(1);
      const busy = store.acquire('a', false, 'Failed', 'Sync', 0);
      store.enqueue(busy, occurrence('a', 0), waiter());
      publish(store, 'b', 5_000);
      expect(store.acquire('a', false, 'Failed', 'Sync', 5_001)).toBe(busy);
    });

    it('evicts the least recently used idle series past the cap', () => {
      const store = storeOf(2);
      const a = publish(store, 'a', 0);
      publish(store, 'b', 1);
      store.acquire('a', false, 'Failed', 'Sync', 2); // a is used again: b is now the oldest
      publish(store, 'c', 3);
      expect(store.size).toBe(2);
      expect(store.acquire('a', false, 'Failed', 'Sync', 4)).toBe(a);
      expect(store.acquire('b', false, 'Failed', 'Sync', 5).event).toBeUndefined();
    });

    it('keeps to the cap through a long churn of objects, and keeps the one in use throughout', () => {
      const store = storeOf(3);
      const hot = publish(store, 'hot', 0);
      for (let i = 0; i < 50; i++) {
        expect(store.acquire('hot', false, 'Failed', 'Sync', i)).toBe(hot);
        publish(store, `cold-${i}`, i);
        expect(store.size).toBeLessThanOrEqual(3);
      }
      expect(store.acquire('hot', false, 'Failed', 'Sync', 50)).toBe(hot);
      expect(store.acquire('cold-49', false, 'Failed', 'Sync', 50).event).toBeDefined();
      expect(store.acquire('cold-0', false, 'Failed', 'Sync', 50).event).toBeUndefined();
    });

    it('drops expired series behind one that is still in use', () => {
      const store = storeOf();
      const a = publish(store, 'a', 0);
      publish(store, 'b', 100);
      // a repeats at 900: still first in line, but current.
      store.acquire('a', false, 'Failed', 'Sync', 900);
      store.enqueue(a, occurrence('a', 900), waiter());
      const { batch, plan } = store.startWrite(a, 900)!;
      if (plan.kind !== 'patch') throw new Error(`expected a patch, got ${plan.kind}`);
      store.settle(
        a,
        batch,
        { kind: 'patched', state: { name: plan.name, namespace: 'default', resourceVersion: '2', count: plan.count } },
        900,
      );
      publish(store, 'c', 1_150);
      expect(store.size).toBe(2); // b expired at 1100 and is gone; a and c remain
      expect(store.acquire('a', false, 'Failed', 'Sync', 1_200)).toBe(a);
    });

    it('forgets only the failure series of an object when asked', () => {
      const store = storeOf();
      const published = publish(store, 'a', 0, false);
      publish(store, 'a', 0, true);
      store.forget('a', true, 1);
      expect(store.size).toBe(1);
      expect(store.acquire('a', false, 'Failed', 'Sync', 1)).toBe(published);
      expect(store.acquire('a', true, 'Failed', 'Sync', 1).event).toBeUndefined();
    });

    it('refuses a new batch past maxPending, a new series’ first one past twice that, and lets a repeat join a waiting one', () => {
      const store = storeOf(10, 1);
      const a = store.acquire('a', false, 'Failed', 'Sync', 0);
      store.enqueue(a, occurrence('a', 0), waiter());
      store.startWrite(a, 0); // in flight: takes no waiting room
      expect(store.enqueue(a, occurrence('a', 1), waiter())).toMatchObject({ joined: false, batch: expect.anything() });
      expect(store.enqueue(a, occurrence('a', 2), waiter())).toMatchObject({ joined: true });
      expect(store.enqueue(a, occurrence('a', 3, 'other'), waiter()).batch).toBeUndefined();
      const b = store.acquire('b', false, 'Failed', 'Sync', 4);
      expect(store.enqueue(b, occurrence('b', 4), waiter()).batch).toBeDefined(); // a first write: room up to 2
      const c = store.acquire('c', false, 'Failed', 'Sync', 5);
      expect(store.enqueue(c, occurrence('c', 5), waiter()).batch).toBeUndefined();
      // b's write goes out: room again for a first write.
      expect(store.startWrite(b, 6)).toBeDefined();
      expect(store.enqueue(c, occurrence('c', 7), waiter()).batch).toBeDefined();
    });
  });

  describe('object budgets', () => {
    const HOUR = 3_600_000;
    /** Publishes for `uid` and spends one write of its object's budget (2 writes, one more per hour). */
    function spend(store: SeriesStore, uid: string, now: number): TokenBucket {
      const series = publish(store, uid, now);
      const budget = new TokenBucket(2, HOUR, now);
      budget.tryTake(now);
      series.object!.budget = budget;
      return budget;
    }
    const budgetOf = (store: SeriesStore, uid: string, now: number) =>
      store.acquire(uid, false, 'Failed', 'Sync', now).object!.budget;

    it('gives an object that comes back after a forget the budget it had spent', () => {
      const store = storeOf();
      const spent = spend(store, 'a', 0);
      store.forget('a', undefined, 1);
      expect(store.size).toBe(0);
      expect(budgetOf(store, 'a', 2)).toBe(spent);
    });

    it('gives an object that comes back after an eviction the budget it had spent', () => {
      const store = storeOf(2);
      const spent = spend(store, 'a', 0);
      publish(store, 'b', 1);
      publish(store, 'c', 2); // evicts a
      expect(budgetOf(store, 'a', 3)).toBe(spent);
    });

    it('forgets a budget that has refilled, and keeps no more spent budgets than maxSeries', () => {
      const store = storeOf(2);
      const refilled = spend(store, 'refilled', 0);
      store.forget('refilled', undefined, HOUR);
      expect(budgetOf(store, 'refilled', HOUR)).toBeUndefined();
      expect(refilled.isFull(HOUR)).toBe(true);

      const spent = ['a', 'b', 'c'].map((uid) => spend(store, uid, HOUR));
      for (const uid of ['a', 'b', 'c']) store.forget(uid, undefined, HOUR);
      expect(budgetOf(store, 'a', HOUR)).toBeUndefined(); // the oldest of three, over the cap of two
      expect(budgetOf(store, 'b', HOUR)).toBe(spent[1]);
      expect(budgetOf(store, 'c', HOUR)).toBe(spent[2]);
    });
  });

  describe('writes', () => {
    it('patches the count of a repeat with the resourceVersion last seen as precondition', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      store.enqueue(series, occurrence('a', 11), waiter());
      expect(store.startWrite(series, 12)!.plan).toMatchObject({ kind: 'patch', resourceVersion: '1', count: 3 });
    });

    it('keeps occurrences that arrive during a write for the next one, and a retry sends the same write', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      const first = store.startWrite(series, 10)!;
      store.enqueue(series, occurrence('a', 11), waiter());
      expect(series.queue).toHaveLength(2);
      expect(store.fail(series, first.batch, new PublishApiError('unavailable', 503), 20)).toBe('retry');
      expect(series.retryAt).toBeGreaterThan(20);
      expect(store.startWrite(series, 30)!.plan).toBe(first.plan);
    });

    it('lets a repeat that came during a write that timed out join its retry, which goes at once with the same precondition', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      const first = store.startWrite(series, 10)!;
      const late = waiter();
      store.enqueue(series, occurrence('a', 11), late);
      expect(store.fail(series, first.batch, new PublishTimeoutError(100), 20)).toBe('retry');
      expect(series).toMatchObject({ state: 'queued', retryAt: 0 });
      expect(series.queue).toEqual([first.batch]);
      expect(late.carrier).toBe(first.batch);
      expect(store.startWrite(series, 21)!.plan).toEqual({ ...first.plan, count: 3 });
    });

    it('after a write that may have applied, counts a conflict whose count includes it as landed', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      const { batch } = store.startWrite(series, 10)!;
      store.fail(series, batch, new PublishApiError('reset', undefined, undefined, { mayHaveApplied: true }), 11);
      store.startWrite(series, 12);
      const settled = store.settle(
        series,
        batch,
        {
          kind: 'conflict',
          state: { name: 'x', namespace: 'default', resourceVersion: '2', count: 2, statement: said() },
        },
        13,
      );
      expect(settled).toMatchObject({ kind: 'written', event: { count: 2 } });
      expect(series.event).toMatchObject({ count: 2, resourceVersion: '2' });
    });

    it('on a conflict with a foreign change, patches the count found plus what it carries', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      const { batch } = store.startWrite(series, 10)!;
      const settled = store.settle(
        series,
        batch,
        {
          kind: 'conflict',
          state: { name: 'x', namespace: 'default', resourceVersion: '7', count: 10, statement: said() },
        },
        11,
      );
      expect(settled).toMatchObject({ kind: 'next', plan: { kind: 'patch', resourceVersion: '7', count: 11 } });
    });

    it('creates a new Event when the patched one is gone', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10), waiter());
      const { batch } = store.startWrite(series, 10)!;
      expect(store.settle(series, batch, { kind: 'gone' }, 11)).toMatchObject({
        kind: 'next',
        plan: { kind: 'create', count: 1 },
      });
    });

    it('gives up a refused batch, and a failing one past the series window', () => {
      const store = storeOf();
      const series = store.acquire('a', false, 'Failed', 'Sync', 0);
      store.enqueue(series, occurrence('a', 0), waiter());
      const refused = store.startWrite(series, 0)!;
      expect(store.fail(series, refused.batch, new PublishApiError('forbidden', 403), 1)).toBe('refused');
      expect(series.queue).toHaveLength(0);
      store.enqueue(series, occurrence('a', 2), waiter());
      const stale = store.startWrite(series, 2)!;
      expect(store.fail(series, stale.batch, new PublishApiError('unavailable', 503), WINDOW + 10)).toBe('expired');
      expect(store.withWork.size).toBe(0);
    });

    it('starts a new Event when the note differs', () => {
      const store = storeOf();
      const series = publish(store, 'a', 0);
      store.enqueue(series, occurrence('a', 10, 'other'), waiter());
      expect(store.startWrite(series, 10)!.plan).toMatchObject({ kind: 'create', count: 1 });
    });
  });

  describe('resumeSeries', () => {
    const listed = (
      overrides: { note?: string; ageMs?: number; annotations?: Record<string, string> } = {},
    ): ListedEvent => ({
      name: 'a.123',
      namespace: 'default',
      resourceVersion: '40',
      count: 7,
      lastObservedAt: Date.now() - (overrides.ageMs ?? 100),
      statement: said(overrides.note),
      event: {
        eventTime: new Date(),
        type: 'Warning',
        note: overrides.note ?? 'n',
        action: 'Sync',
        metadata: { annotations: overrides.annotations },
      },
    });

    it('looks for the Event a previous process left before the first write, and continues it', () => {
      const store = storeOf(10, 100, true);
      const series = store.acquire('a', false, 'Failed', 'Sync', 0);
      store.enqueue(series, occurrence('a', 0), waiter());
      const { batch, plan } = store.startWrite(series, 0)!;
      expect(plan).toMatchObject({ kind: 'find', uid: 'a', reason: 'Failed', action: 'Sync' });
      const settled = store.settle(series, batch, { kind: 'found', latest: listed() }, 1);
      expect(settled).toMatchObject({
        kind: 'next',
        plan: { kind: 'patch', name: 'a.123', resourceVersion: '40', count: 8 },
      });
    });

    it.each([
      ['another note', { note: 'other' }],
      ['an Event past the window', { ageMs: WINDOW + 1 }],
      ['a series ended by a success', { annotations: { 'nestjs-kube-events/series-ended': '2026-11-30T00:00:00Z' } }],
    ])('starts a new Event rather than continue %s', (_, overrides) => {
      const store = storeOf(10, 100, true);
      const series = store.acquire('a', false, 'Failed', 'Sync', 0);
      store.enqueue(series, occurrence('a', 0), waiter());
      const { batch } = store.startWrite(series, 0)!;
      expect(store.settle(series, batch, { kind: 'found', latest: listed(overrides) }, 1)).toMatchObject({
        kind: 'next',
        plan: { kind: 'create' },
      });
    });

    it('never continues an Event whose series this process ended, even before the server shows the end', () => {
      const store = storeOf(10, 100, true);
      const ended = store.acquire('a', true, 'Failed', 'Sync', 0);
      store.enqueue(ended, occurrence('a', 0), waiter());
      const first = store.startWrite(ended, 0)!;
      const { plan } = store.settle(ended, first.batch, { kind: 'found', latest: listed() }, 1) as {
        plan: { kind: string; count: number };
      };
      expect(plan).toMatchObject({ kind: 'patch', name: 'a.123' });
      store.settle(
        ended,
        first.batch,
        { kind: 'patched', state: { name: 'a.123', namespace: 'default', resourceVersion: '41', count: plan.count } },
        2,
      );
      expect(store.forget('a', true, 3)).toEqual([expect.objectContaining({ name: 'a.123' })]);

      // The annotation that marks the end is still on its way: the list shows the Event as it was.
      const next = store.acquire('a', true, 'Failed', 'Sync', 4);
      store.enqueue(next, occurrence('a', 4), waiter());
      const second = store.startWrite(next, 4)!;
      expect(second.plan.kind).toBe('find');
      expect(store.settle(next, second.batch, { kind: 'found', latest: listed() }, 5)).toMatchObject({
        kind: 'next',
        plan: { kind: 'create' },
      });
    });

    it('looks once per series, and returns the Events of ended series to mark them', () => {
      const store = storeOf(10, 100, true);
      const series = store.acquire('a', true, 'Failed', 'Sync', 0);
      store.enqueue(series, occurrence('a', 0), waiter());
      const { batch } = store.startWrite(series, 0)!;
      const { plan } = store.settle(series, batch, { kind: 'found', latest: undefined }, 1) as {
        plan: { kind: string; name: string };
      };
      store.settle(
        series,
        batch,
        { kind: 'created', state: { name: plan.name, namespace: 'default', resourceVersion: '1', count: 1 } },
        2,
      );
      store.enqueue(series, occurrence('a', 3), waiter());
      expect(store.startWrite(series, 3)!.plan.kind).toBe('patch');
      expect(store.forget('a', true, 4)).toEqual([expect.objectContaining({ name: plan.name })]);
    });
  });
});
