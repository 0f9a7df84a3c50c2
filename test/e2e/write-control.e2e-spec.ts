// Write control against the real kube-apiserver: the scenarios of
// test/library/write-control.spec.ts that a real server can exercise.
// Occurrences the recorder cannot write at once are counted locally and
// folded into the series' next write; whatever the path, the count read back
// through the API must be exact. Each test has a fresh namespace, removed
// afterwards.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { EventsV1Event } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventRecorder, type KubeEvent, KubeEventsModule, type PublishOutcome } from 'nestjs-kube-events';
import { sharedControlPlane } from '../support/control-plane.js';
import { CONTROLLER, MICRO_TIME, Scratch } from './support/library-fixtures.js';

const failed: KubeEvent = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source missing' };
/** One write per object, then nothing for an hour: every further occurrence is folded. */
const oneWritePerObject = { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000 };

/** Polls until `done` holds for the Events of the namespace, for at most `limitMs`. */
async function eventually(scratch: Scratch, done: (events: EventsV1Event[]) => boolean, limitMs = 5_000): Promise<EventsV1Event[]> {
  const started = Date.now();
  for (;;) {
    const events = await scratch.allEvents();
    if (done(events) || Date.now() - started > limitMs) return events;
    await sleep(50);
  }
}

describe('write control against the real API server', () => {
  let scratch: Scratch;

  beforeEach(async () => {
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'write-control-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
    jest.restoreAllMocks();
  });

  it('folds what exceeds an object’s budget into one write, sent after the maximum delay, with the exact count', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: { objectBurst: 2, objectRefillMs: 3_600_000, maxDelay: 300 } });
    const started = Date.now();
    for (let i = 0; i < 5; i++) await recorder.publish(cm, failed);
    // Two writes within the burst; the other three resolved at once, counted locally.
    expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([2]);
    const events = await eventually(scratch, ([event]) => event?.series?.count === 5);
    expect(events.map((event) => event.series?.count)).toEqual([5]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.parse(String(events[0].series!.lastObservedTime)) - Date.parse(String(events[0].eventTime))).toBeGreaterThanOrEqual(250);
  });

  it('keeps writing other objects while one object’s budget is spent', async () => {
    const [a, b] = await Promise.all([scratch.configMap('a'), scratch.configMap('b')]);
    const recorder = scratch.recorder({ writeControl: oneWritePerObject });
    await recorder.publish(a, failed);
    await recorder.publish(a, failed); // folded
    await recorder.publish(b, failed);
    expect((await scratch.allEvents()).map((event) => [event.regarding?.name, event.series?.count])).toEqual([
      ['a', undefined],
      ['b', undefined],
    ]);
    await recorder.flush();
    expect((await scratch.eventsAbout(a)).map((event) => event.series?.count)).toEqual([2]);
  });

  it('spaces writes across objects by the recorder-wide limit, losing none', async () => {
    const objects = await Promise.all(['a', 'b', 'c', 'd'].map((name) => scratch.configMap(name)));
    const recorder = scratch.recorder({ writeControl: { qps: 20, burst: 2 } });
    for (const object of objects) await recorder.publish(object, failed);
    const events = await eventually(scratch, (all) => all.length === 4);
    expect(events.map((event) => [event.regarding?.name, event.series?.count]).sort()).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
      ['d', undefined],
    ]);
    // eventTime is the time of the write: two more tokens at 20 per second.
    const times = events.map((event) => Date.parse(String(event.eventTime))).sort((x, y) => x - y);
    expect(times[3] - times[0]).toBeGreaterThanOrEqual(80);
  });

  it('gives every object of a storm its exact count: 40 objects × 25 concurrent identical failures', async () => {
    const objects = await Promise.all(Array.from({ length: 40 }, (_, i) => scratch.configMap(`storm-${i}`)));
    const recorder = scratch.recorder();
    await Promise.all(objects.flatMap((object) => Array.from({ length: 25 }, () => recorder.publish(object, failed))));
    await recorder.flush();
    const events = await scratch.allEvents();
    expect(events).toHaveLength(40);
    expect(new Set(events.map((event) => event.regarding?.uid)).size).toBe(40);
    for (const event of events) expect({ name: event.regarding?.name, count: event.series?.count }).toEqual({ name: event.regarding?.name, count: 25 });
  });

  it('creates an Event that already carries folded occurrences (POST with series.count 2), which the server accepts', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: oneWritePerObject });
    const changed = { ...failed, note: 'target namespace ns-b is missing' };
    await recorder.publish(cm, failed); // written
    await recorder.publish(cm, changed); // folded: budget spent
    await recorder.publish(cm, changed); // folded into the same entry
    await recorder.flush();

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.note, event.series?.count])).toEqual([
      ['source missing', undefined],
      ['target namespace ns-b is missing', 2],
    ]);
    expect(String(events[1].series!.lastObservedTime)).toMatch(MICRO_TIME);
    // And that series goes on from there.
    await recorder.publish(cm, changed);
    await recorder.flush();
    expect((await scratch.readEvent(events[1].metadata!.name!))?.series?.count).toBe(3);
  });

  it('drops occurrences only past maxPending, and the count on the server is exactly what was kept', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ writeControl: { ...oneWritePerObject, maxPending: 1 } });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await recorder.publish(cm, failed); // written
    await recorder.publish(cm, failed); // folded: the one pending entry
    await recorder.publish(cm, failed); // folded into that entry
    await recorder.publish(cm, { ...failed, note: 'something else' }); // no room: dropped
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.count}`)).toEqual(['created 1', 'coalesced 1', 'coalesced 2', 'dropped 1']);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/Dropped 1 occurrence.*maxPending/));
    await recorder.flush();

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

  it('writes what is folded when the Nest application shuts down (app.close())', async () => {
    const cm = await scratch.configMap('app-config');
    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER }, kubeConfig: scratch.admin, writeControl: oneWritePerObject }),
      ],
    }).compile();
    await app.init();
    try {
      const recorder = app.get(EventRecorder);
      await recorder.publish(cm, failed);
      await recorder.publish(cm, failed); // folded, for up to a minute
      expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([undefined]);
    } finally {
      await app.close();
    }
    expect((await scratch.allEvents()).map((event) => event.series?.count)).toEqual([2]);
  });
});
