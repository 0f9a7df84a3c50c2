import { jest } from '@jest/globals';
import { EventRecorder, type EventsWriter, type PublishOutcome } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import type { FakeApiServer, StoredEvent } from '../support/fake-api-server/index.js';
import { recordersPerTest } from '../support/fake-server-recorders.js';
import { advanceToTimer, whileAdvancing } from '../support/fake-time.js';
import { flush } from '../support/flush.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap, reconcileFailed } from '../support/objects.js';

describe('write control', () => {
  let server: FakeApiServer;
  const { recorderWith } = recordersPerTest((started) => (server = started));
  const countOf = (name: string) => server.events().find((event) => event.regarding.name === name)?.series?.count ?? 1;

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('folds what exceeds an object’s budget into one write, sent after the maximum delay', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({
      writeControl: { objectBurst: 2, objectRefillMs: 3_600_000, maxDelay: 150 },
      clock,
    });
    for (let i = 0; i < 2; i++) await recorder.publish(configMap('a'), reconcileFailed);
    // Two writes within the burst; the other three wait for one write, and resolve with it.
    const waiting = Array.from({ length: 3 }, () => recorder.publish(configMap('a'), reconcileFailed));
    await clock.advance(149);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
    await clock.advance(1);
    await Promise.all(waiting);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 5']);
  });

  it('keeps writing other objects while one object’s budget is spent', async () => {
    const recorder = recorderWith({ writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000 } });
    await recorder.publish(configMap('a'), reconcileFailed);
    const waiting = recorder.publish(configMap('a'), reconcileFailed);
    await recorder.publish(configMap('b'), reconcileFailed);
    expect(
      server
        .writes()
        .map(
          (request) => `${request.method} ${(request.body as { regarding?: { name: string } }).regarding?.name ?? ''}`,
        ),
    ).toEqual(['POST a', 'POST b']);
    await recorder.flush();
    await waiting;
    expect(countOf('a')).toBe(2);
  });

  it('sends writes that waited only for a connection on the budget they took, without taking it again', async () => {
    // A burst of 20 with one write per 20 s: past the pool's connections, a write that waits for one and then
    // went through the budget again would wait 20 s for a token, and its publish would time out.
    const recorder = recorderWith({ writeControl: { qps: 0.05, burst: 20 } });
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await Promise.all(names.map((name) => recorder.publish(configMap(name), reconcileFailed)));
    expect(server.seriesWrites()).toEqual(names.map(() => 'POST'));
  });

  it('writes what is published while flush() has more writes in flight than the pool has connections', async () => {
    const recorder = recorderWith({});
    const queued = Array.from({ length: 30 }, (_, i) => recorder.publish(configMap(`queued-${i}`), reconcileFailed));
    // flush() writes each series whatever the pool; these wait for a connection meanwhile.
    const flushed = recorder.flush();
    const meanwhile = Array.from({ length: 10 }, (_, i) =>
      recorder.publish(configMap(`meanwhile-${i}`), reconcileFailed),
    );
    await Promise.all([...queued, flushed, ...meanwhile]);
    expect(server.seriesWrites()).toHaveLength(40);
  });

  it('holds writes across objects to the recorder-wide limit, losing none', async () => {
    const recorder = recorderWith({ writeControl: { qps: 0.5, burst: 2 } });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    for (const name of ['a', 'b']) await recorder.publish(configMap(name), reconcileFailed);
    // Two writes in the burst; the next token is two seconds away, so c and d wait, queued.
    const waiting = ['c', 'd'].map((name) => recorder.publish(configMap(name), reconcileFailed));
    expect(server.writes()).toHaveLength(2);
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.regarding.name}`)).toEqual(['created a', 'created b']);
    await recorder.flush();
    await Promise.all(waiting);
    expect(
      server
        .events()
        .map((event) => event.regarding.name)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives every object of a storm its exact count: 200 objects × 50 concurrent identical failures', async () => {
    const recorder = recorderWith();
    const names = Array.from({ length: 200 }, (_, i) => `storm-${i}`);
    await Promise.all(
      names.flatMap((name) => Array.from({ length: 50 }, () => recorder.publish(configMap(name), reconcileFailed))),
    );
    // Every publish resolved: every occurrence is on the server, with no flush().
    expect(server.events()).toHaveLength(200);
    for (const name of names) expect(countOf(name)).toBe(50);
    expect(server.writes().length).toBeLessThanOrEqual(400);
  });

  it('retries a folded write that failed, so the count stays exact', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 50 },
      clock,
    });
    await recorder.publish(configMap('a'), reconcileFailed);
    server.failNext(503, 'PATCH', 'ServiceUnavailable');
    const folded = Promise.all([
      recorder.publish(configMap('a'), reconcileFailed),
      recorder.publish(configMap('a'), reconcileFailed),
    ]);
    await advanceToTimer(clock, 50); // the maximum delay
    await advanceToTimer(clock, 300); // the 503's backoff
    await folded;
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 3', 'PATCH 3']);
    expect(countOf('a')).toBe(3);
  });

  it('drops, counts and logs occurrences only past maxPending', async () => {
    const warn = muteLogger('warn');
    const recorder = recorderWith({
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000, maxPending: 1 },
    });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await recorder.publish(configMap('a'), reconcileFailed); // written
    const waiting = [
      recorder.publish(configMap('a'), reconcileFailed), // queued: the one pending write
      recorder.publish(configMap('a'), reconcileFailed), // the same event: joins that write
    ];
    const refused = recorder.publish(configMap('a'), { ...reconcileFailed, note: 'something else' }); // a new write: no room
    await expect(refused).rejects.toMatchObject({
      name: 'PublishError',
      queued: false,
      message: expect.stringMatching(/maxPending/),
    });
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.count}`)).toEqual([
      'created 1',
      'coalesced 2',
      'dropped 1',
    ]);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/Dropped 1 occurrence.*maxPending/));
    await recorder.flush();
    await Promise.all(waiting);
    expect(countOf('a')).toBe(3);
  });

  it('reports every outcome on outcomes$', async () => {
    const recorder = recorderWith();
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await recorder.publish(configMap('a'), reconcileFailed);
    await recorder.publish(configMap('a'), reconcileFailed);
    server.failNext(403, 'POST', 'Forbidden');
    await expect(recorder.publish(configMap('b'), reconcileFailed)).rejects.toThrow();
    await expect(recorder.publish(configMap('c'), { ...reconcileFailed, reason: '' })).rejects.toThrow();
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['created', 'patched', 'failed', 'failed']);
    expect(outcomes[1]).toMatchObject({
      count: 2,
      regarding: { name: 'a', kind: 'ConfigMap' },
      reporter: { controller: 'widgets' },
    });
    expect(outcomes[2].error).toMatchObject({ statusCode: 403 });
    expect(outcomes[3].error).toMatchObject({ name: 'InvalidEventError', field: 'reason' });
  });

  it('writes annotations, and a change of annotations starts a new Event', async () => {
    const recorder = recorderWith();
    const annotations = { 'example.com/trace-id': 'abc123' };
    await recorder.publish(configMap('a'), { ...reconcileFailed, annotations });
    await recorder.publish(configMap('a'), { ...reconcileFailed, annotations });
    await recorder.publish(configMap('a'), { ...reconcileFailed, annotations: { 'example.com/trace-id': 'def456' } });
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'POST']);
    expect((server.writes()[0].body as StoredEvent).metadata.annotations).toEqual(annotations);
    expect(server.events()[0].metadata.annotations).toEqual(annotations);
  });

  it('writes what is folded when the application shuts down', async () => {
    const recorder = recorderWith({ writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000 } });
    await recorder.publish(configMap('a'), reconcileFailed);
    const waiting = recorder.publish(configMap('a'), reconcileFailed);
    expect(server.seriesWrites()).toEqual(['POST']);
    await recorder.onApplicationShutdown();
    await waiting;
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
  });

  it('wakes one timer, not one per series, while thousands of series wait for the recorder-wide budget', async () => {
    // Writes that cost nothing, so that what is counted is the waiting.
    let writes = 0;
    const state = (name: string, count = 1) => ({ name, namespace: 'default', resourceVersion: String(writes), count });
    const writer: EventsWriter = {
      create: async (namespace, body) => state(body.metadata!.name!, writes++ && 1),
      read: async (namespace, name) => state(name),
      patchSeries: async (namespace, name, patch) => state(name, patch.count),
    };
    const clock = new FakeClock();
    const recorder = new EventRecorder(
      { reporter: { controller: 'widgets' }, writeControl: { qps: 100, burst: 1 }, clock },
      writer,
    );
    const timers = jest.spyOn(clock, 'setTimer');
    const waiting = Array.from({ length: 2_000 }, (_, i) =>
      recorder.publish(configMap(`wait-${i}`), reconcileFailed).catch(() => undefined),
    );
    await clock.advance(300);
    const elapsedSeconds = 0.3;
    // Every timer the recorder set meanwhile, all on its own clock.
    const armed = timers.mock.calls.length;
    timers.mockRestore();
    // At most the burst and one write per token; and about one timer per write, where a timer per series would be 2,000 per write.
    expect(writes).toBeLessThanOrEqual(2 + Math.ceil(100 * elapsedSeconds));
    expect(armed).toBeLessThanOrEqual(2 * (writes + 2) + 10);
    await recorder.flush();
    await Promise.all(waiting);
    expect(writes).toBe(2_000);
  });

  /** When each create was sent, while 500 series wait for the recorder-wide budget for `waitMs`; then all are written. */
  async function sendTimes(
    writeControl: { qps: number; burst: number },
    waitMs: number,
  ): Promise<{ sentAt: number[]; elapsedMs: number }> {
    const sentAt: number[] = [];
    const clock = new FakeClock();
    const writer: EventsWriter = {
      create: async (namespace, body) => {
        sentAt.push(clock.now());
        return { name: body.metadata!.name!, namespace, resourceVersion: '1', count: 1 };
      },
      read: async (namespace, name) => ({ name, namespace, resourceVersion: '1', count: 1 }),
      patchSeries: async (namespace, name, patch) => ({ name, namespace, resourceVersion: '1', count: patch.count }),
    };
    const recorder = new EventRecorder({ reporter: { controller: 'widgets' }, writeControl, clock }, writer);
    const waiting = Array.from({ length: 500 }, (_, i) =>
      recorder.publish(configMap(`batch-${i}`), reconcileFailed).catch(() => undefined),
    );
    await clock.advance(waitMs);
    const elapsedMs = waitMs;
    const sent = [...sentAt];
    await recorder.flush();
    await Promise.all(waiting);
    expect(sentAt).toHaveLength(500);
    return { sentAt: sent, elapsedMs };
  }

  it('sends the writes the recorder-wide budget held in batches, a few wake-ups a second, at the budget’s rate', async () => {
    const { sentAt, elapsedMs } = await sendTimes({ qps: 100, burst: 20 }, 450);
    // Writes sent on one wake-up go out in one go: less than 5 ms apart.
    const batches = sentAt.filter((at, i) => i === 0 || at - sentAt[i - 1] >= 5).length;
    // The burst, then 100 writes/s: kept, and used.
    expect(sentAt.length).toBeLessThanOrEqual(20 + Math.ceil(elapsedMs / 10));
    expect(sentAt.length).toBeGreaterThanOrEqual(40);
    // The burst, then a batch per 100 ms at most, where a wake-up per token would be one per write.
    expect(batches).toBeLessThanOrEqual(2 + Math.ceil(elapsedMs / 100));
  });

  it('keeps the recorder-wide rate when the burst is smaller than a batch', async () => {
    const { sentAt, elapsedMs } = await sendTimes({ qps: 100, burst: 1 }, 450);
    expect(sentAt.length).toBeLessThanOrEqual(1 + Math.ceil(elapsedMs / 10));
    // About 45 at 100/s; a batch per 100 ms from a bucket of one would be 5.
    expect(sentAt.length).toBeGreaterThanOrEqual(15);
  });

  it('writes series waiting for the recorder-wide budget in the order they came', async () => {
    const recorder = recorderWith({ writeControl: { qps: 50, burst: 1 } });
    for (const name of ['a', 'b', 'c', 'd']) await recorder.publish(configMap(name), reconcileFailed);
    await server.waitForRequests(4);
    expect(server.writes().map((request) => (request.body as StoredEvent).regarding.name)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('bounds flush() by the timeout when the server does not answer, dropping what is left', async () => {
    muteLogger('warn');
    const clock = new FakeClock();
    const timeout = 200;
    const recorder = recorderWith({
      timeout,
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000 },
      clock,
    });
    await recorder.publish(configMap('a'), reconcileFailed);
    for (let i = 0; i < 6; i++)
      void recorder.publish(configMap('a'), { ...reconcileFailed, note: `attempt ${i}` }).catch(() => undefined);
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    for (let i = 0; i < 10; i++) server.hangNext();
    const started = clock.now();
    // The server never answers: the recorder's clock alone ends what flush() waits for.
    await whileAdvancing([clock], recorder.flush(), 10);
    expect(clock.now() - started).toBeLessThanOrEqual(2 * timeout + 10);
    const dropped = outcomes
      .filter((outcome) => outcome.kind === 'dropped')
      .reduce((sum, outcome) => sum + outcome.count, 0);
    expect(dropped).toBe(6);
  });

  it('ends flush() within its bound during an outage, saying what it could not write', async () => {
    const warn = muteLogger('warn');
    const recorder = recorderWith({ timeout: 300 });
    await recorder.publish(configMap('a'), reconcileFailed);
    server.outage(10_000);
    const queued = await Promise.allSettled([
      recorder.publish(configMap('a'), reconcileFailed),
      recorder.publish(configMap('b'), reconcileFailed),
    ]);
    expect(
      queued.map((result) => result.status === 'rejected' && (result.reason as { queued?: boolean }).queued),
    ).toEqual([true, true]);
    const started = Date.now();
    await recorder.flush();
    expect(Date.now() - started).toBeLessThan(1_000);
    const dropped = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith('Dropped'));
    expect(dropped.sort()).toEqual([
      expect.stringMatching(
        /^Dropped 1 occurrence\(s\) of ReconcileFailed about ConfigMap default\/a: flush\(\) ran out of time .*last error: The API server could not be reached: .*ECONNRESET/,
      ),
      expect.stringMatching(
        /^Dropped 1 occurrence\(s\) of ReconcileFailed about ConfigMap default\/b: flush\(\) ran out of time .*last error: The API server could not be reached/,
      ),
    ]);
  });

  it('flush() waits for a write already in flight', async () => {
    const recorder = recorderWith();
    server.delayNext(200, 'POST');
    void recorder.publish(configMap('a'), reconcileFailed);
    await server.waitForRequests(1);
    await recorder.flush();
    expect(server.events()).toHaveLength(1);
  });

  it('holds at most twice maxPending first writes of new objects waiting for the recorder-wide budget', async () => {
    muteLogger('warn');
    const recorder = recorderWith({ writeControl: { qps: 1, burst: 1, maxPending: 10 } });
    const refused: unknown[] = [];
    // One write goes at once (the burst); first writes wait for the budget up to twice maxPending, and no more.
    for (let i = 0; i < 100; i++)
      recorder.publish(configMap(`new-${i}`), reconcileFailed).catch((error: unknown) => refused.push(error));
    await flush();
    expect(refused).toHaveLength(79);
    expect(refused[0]).toMatchObject({
      name: 'PublishError',
      queued: false,
      message: expect.stringMatching(/maxPending/),
    });
    await recorder.flush();
    expect(server.events()).toHaveLength(21);
  });

  it('keeps one noisy series from using up maxPending for the others', async () => {
    muteLogger('warn');
    const recorder = recorderWith({
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000, maxPending: 10 },
    });
    await recorder.publish(configMap('noisy'), reconcileFailed);
    for (let i = 0; i < 50; i++)
      void recorder
        .publish(configMap('noisy'), { ...reconcileFailed, note: `request ${i} failed` })
        .catch(() => undefined);
    await recorder.publish(configMap('quiet'), reconcileFailed);
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    const quiet = recorder.publish(configMap('quiet'), reconcileFailed);
    // Queued, not dropped: the noisy series holds at most 8 of the 10 places.
    expect(outcomes.map((outcome) => outcome.kind)).toEqual([]);
    await recorder.flush();
    await quiet;
    expect(countOf('quiet')).toBe(2);
  });

  it('keeps an object’s spent budget when its failure series is forgotten after a success', async () => {
    const recorder = recorderWith({ writeControl: { objectBurst: 2, objectRefillMs: 3_600_000, maxDelay: 60_000 } });
    for (let i = 0; i < 5; i++) {
      const { scheduled, written } = recorder.schedulePublish(configMap('flapping'), reconcileFailed, true);
      written.catch(() => undefined);
      // Settles once a write let through is on the server, or at once when the write waits.
      await scheduled.catch(() => undefined);
      recorder.forgetFailures(configMap('flapping'));
    }
    // Two writes within the burst; the later failures wait for the budget (or the maximum delay).
    expect(server.writes()).toHaveLength(2);
  });
});
