// Write control against the real kube-apiserver: the scenarios of
// test/library/write-control.spec.ts that a real server can exercise.
// Occurrences the recorder cannot write at once (an object's or the
// recorder's budget is spent) wait in their series and are written together
// by its next write; their publishes resolve with that write, so a test reads
// the server right after awaiting them; only the shutdown test leaves a
// publish for app.close() to write. Whatever the
// path, the count read back through the API must be exact. Each test has a
// fresh namespace, removed afterwards.
import { jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  EventRecorder,
  type KubeEvent,
  KubeEventsModule,
  type PublishOutcome,
  PublishTimeoutError,
} from 'nestjs-kube-events';
import { CONTROLLER, MICRO_TIME, Scratch, rejectionOf, scratchPerTest } from './support/library-fixtures.js';
import { lastProbe } from '../support/eventually.js';
import { muteLogger } from '../support/logged-lines.js';

const failed: KubeEvent = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source missing' };
/** One write per object, then nothing for an hour: what waits goes out together after the maximum delay, 1.5 s (within the 5 s timeout). */
const oneWritePerObject = { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 1_500 };

describe('write control against the real API server', () => {
  let scratch: Scratch;
  scratchPerTest('write-control-e2e', (created) => (scratch = created));

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('holds what exceeds an object’s budget for one write, sent after the maximum delay; those publishes resolve with it', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: { objectBurst: 2, objectRefillMs: 3_600_000, maxDelay: 300 } });
    for (let i = 0; i < 2; i++) await recorder.publish(cm, failed);
    // Two writes within the burst; the other three wait for one write, and resolve with it.
    const started = Date.now();
    const waiting = Array.from({ length: 3 }, () => recorder.publish(cm, failed));
    expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([2]);
    await Promise.all(waiting);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // Resolved means on the server: read at once, no polling and no flush().
    const events = await scratch.allEvents();
    expect(events.map((event) => event.series?.count)).toEqual([5]);
    expect(
      Date.parse(String(events[0].series!.lastObservedTime)) - Date.parse(String(events[0].eventTime)),
    ).toBeGreaterThanOrEqual(250);
  });

  it('keeps writing other objects while one object’s budget is spent', async () => {
    const [a, b] = await Promise.all([scratch.configMap('a'), scratch.configMap('b')]);
    const recorder = scratch.recorder({ writeControl: oneWritePerObject });
    await recorder.publish(a, failed);
    const waiting = recorder.publish(a, failed); // a's budget is spent: waits for the maximum delay
    await recorder.publish(b, failed);
    expect((await scratch.allEvents()).map((event) => [event.regarding?.name, event.series?.count])).toEqual([
      ['a', undefined],
      ['b', undefined],
    ]);
    // It resolves with its own write, once the maximum delay has passed.
    await waiting;
    expect((await scratch.eventsAbout(a)).map((event) => event.series?.count)).toEqual([2]);
  });

  it('holds writes across objects to the recorder-wide limit, losing none; each publish resolves with its write', async () => {
    const objects = await Promise.all(['a', 'b', 'c', 'd'].map((name) => scratch.configMap(name)));
    const recorder = scratch.recorder({ writeControl: { qps: 5, burst: 2 } });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    for (const object of objects.slice(0, 2)) await recorder.publish(object, failed);
    // Two writes in the burst; then one every 200 ms, so c and d wait, queued.
    const waiting = objects.slice(2).map((object) => recorder.publish(object, failed));
    expect((await scratch.allEvents()).map((event) => event.regarding?.name)).toEqual(['a', 'b']);
    await Promise.all(waiting);
    const events = await scratch.allEvents();
    expect(events.map((event) => [event.regarding?.name, event.series?.count])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
      ['d', undefined],
    ]);
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.regarding.name}`)).toEqual([
      'created a',
      'created b',
      'created c',
      'created d',
    ]);
    // eventTime is the time of the write: two more tokens at 5 per second.
    const times = events.map((event) => Date.parse(String(event.eventTime)));
    expect(times[3] - times[0]).toBeGreaterThanOrEqual(350);
  });

  it('gives every object of a storm its exact count: 40 objects × 25 concurrent identical failures', async () => {
    const objects = await Promise.all(Array.from({ length: 40 }, (_, i) => scratch.configMap(`storm-${i}`)));
    const recorder = scratch.recorder();
    await Promise.all(objects.flatMap((object) => Array.from({ length: 25 }, () => recorder.publish(object, failed))));
    // Every publish resolved: every occurrence is on the server, with no flush().
    const events = await scratch.allEvents();
    expect(events).toHaveLength(40);
    expect(new Set(events.map((event) => event.regarding?.uid)).size).toBe(40);
    for (const event of events)
      expect({ name: event.regarding?.name, count: event.series?.count }).toEqual({
        name: event.regarding?.name,
        count: 25,
      });
  });

  it('creates an Event that already carries held occurrences (POST with series.count 2), which the server accepts', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: { ...oneWritePerObject, maxDelay: 300 } });
    const changed = { ...failed, note: 'target namespace ns-b is missing' };
    await recorder.publish(cm, failed); // written: the object's budget is spent
    // Both wait for the object's budget (the maximum delay), then go out as one create.
    await Promise.all([recorder.publish(cm, changed), recorder.publish(cm, changed)]);

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.note, event.series?.count])).toEqual([
      ['source missing', undefined],
      ['target namespace ns-b is missing', 2],
    ]);
    expect(String(events[1].series!.lastObservedTime)).toMatch(MICRO_TIME);
    // And that series goes on from there (after the maximum delay again).
    await recorder.publish(cm, changed);
    expect((await scratch.readEvent(events[1].metadata!.name!))?.series?.count).toBe(3);
  });

  it('rejects a publish still waiting at its timeout with PublishTimeoutError (queued), and writes it later all the same', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ timeout: 300, writeControl: { ...oneWritePerObject, maxDelay: 1_000 } });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await recorder.publish(cm, failed); // written: the object's budget is spent
    const started = Date.now();
    const error = await rejectionOf(recorder.publish(cm, failed)); // waits a second for the budget: past its timeout
    expect(error).toBeInstanceOf(PublishTimeoutError);
    expect(error).toMatchObject({ queued: true, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([undefined]);
    // Still queued: written after the maximum delay, with no flush() and no other publish.
    const events = await lastProbe(
      () => scratch.allEvents(),
      ([event]) => event?.series?.count === 2,
      { timeoutMs: 5_000 },
    );
    expect(events.map((event) => event.series?.count)).toEqual([2]);
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.count}`)).toEqual(['created 1', 'patched 2']);
  });

  it('drops occurrences only past maxPending, and the count on the server is exactly what was kept', async () => {
    const warn = muteLogger('warn');
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: { ...oneWritePerObject, maxPending: 1 } });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await recorder.publish(cm, failed); // written
    const waiting = [
      recorder.publish(cm, failed), // queued: the one pending write
      recorder.publish(cm, failed), // the same event: joins that write
    ];
    const refused = recorder.publish(cm, { ...failed, note: 'something else' }); // a new write: no room
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
    // They resolve with their one write, once the maximum delay has passed.
    await Promise.all(waiting);

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.note, event.series?.count])).toEqual([['source missing', 3]]);
    expect(outcomes.at(-1)).toMatchObject({ kind: 'patched', count: 3 });
  });

  it('writes annotations, which read back, and a change of annotations starts a new Event', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const annotations = { 'example.com/trace-id': 'abc123' };
    await recorder.publish(cm, { ...failed, annotations });
    await recorder.publish(cm, { ...failed, annotations });
    await recorder.publish(cm, { ...failed, annotations: { 'example.com/trace-id': 'def456' } });

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.metadata?.annotations, event.series?.count])).toEqual([
      [annotations, 2],
      [{ 'example.com/trace-id': 'def456' }, undefined],
    ]);
  });

  it('writes what is still waiting when the Nest application shuts down (app.close()), and that publish resolves with it', async () => {
    const cm = await scratch.configMap('app-config');
    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: CONTROLLER },
          kubeConfig: scratch.admin,
          writeControl: { ...oneWritePerObject, maxDelay: 60_000 },
        }),
      ],
    }).compile();
    await app.init();
    let waiting: Promise<void> | undefined;
    try {
      const recorder = app.get(EventRecorder);
      await recorder.publish(cm, failed);
      // Not awaited on purpose: it waits up to a minute for the object's budget; shutting down writes it.
      waiting = recorder.publish(cm, failed);
      expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([undefined]);
    } finally {
      await app.close();
    }
    await waiting;
    expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([2]);
  });
});
