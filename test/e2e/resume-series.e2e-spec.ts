// Series that survive a restart (`resumeSeries`): a new process of the same
// controller continues the failure series a previous one left on the server
// (the count grows on the same Event), and does not continue one that a
// successful reconcile ended. Against the real kube-apiserver, whose field
// selectors find the Event.
import { setTimeout as sleep } from 'node:timers/promises';
import { SERIES_ENDED_ANNOTATION, type KubeEvent } from 'nestjs-kube-events';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { sharedSeriesName, tenantEvent } from '../support/squatted-events.js';
import { CONTROLLER, Scratch, scratchPerTest } from './support/library-fixtures.js';

const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap not found',
};

describe('EventRecorder with resumeSeries across processes', () => {
  let scratch: Scratch;
  scratchPerTest('resume-e2e', (created) => (scratch = created));

  it('continues the count of an unbroken failure on the same Event, and starts anew after a recovery', async () => {
    const object = await scratch.configMap('app-config');

    const first = scratch.recorder({ resumeSeries: true });
    for (let i = 0; i < 3; i++) await first.publishFailure(object, failed);
    const [left] = await scratch.eventsAbout(object);
    expect(left.series?.count).toBe(3);

    // The process is gone (a restart, a new leader): a new recorder knows nothing of the series.
    const second = scratch.recorder({ resumeSeries: true });
    await second.publishFailure(object, failed);
    await second.publishFailure(object, failed);
    const continued = await scratch.eventsAbout(object);
    expect(continued).toHaveLength(1);
    expect(continued[0].metadata?.name).toBe(left.metadata?.name);
    expect(continued[0].series?.count).toBe(5);

    // A successful reconcile ends the series, and says so on the Event.
    second.forgetFailures(object);
    let ended = continued[0];
    for (let tries = 0; !ended.metadata?.annotations?.[SERIES_ENDED_ANNOTATION] && tries < 50; tries++) {
      await sleep(100);
      ended = (await scratch.readEvent(left.metadata!.name!))!;
    }
    expect(ended.metadata?.annotations?.[SERIES_ENDED_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT/);

    // A failure that comes back in yet another process starts a new Event.
    const third = scratch.recorder({ resumeSeries: true });
    await third.publishFailure(object, failed);
    const events = await scratch.eventsAbout(object);
    expect(events).toHaveLength(2);
    const fresh = events.find((event) => event.metadata?.name !== left.metadata?.name)!;
    expect(fresh.series).toBeUndefined();
    expect(ended.series?.count).toBe(5);
  });

  it('continues a series whose event has a related object and annotations, however their keys were ordered', async () => {
    const object = await scratch.configMap('app-config');
    const source = await scratch.configMap('app-source');
    // The server returns related in its own field order and annotations sorted; the publisher's order differs.
    const withRelated: KubeEvent = {
      ...failed,
      related: {
        uid: source.metadata!.uid,
        name: 'app-source',
        namespace: scratch.namespace,
        kind: 'ConfigMap',
        apiVersion: 'v1',
      },
      annotations: { 'example.com/z-last': 'z', 'example.com/a-first': 'a' },
    };
    await scratch.recorder({ resumeSeries: true }).publishFailure(object, withRelated);

    await scratch.recorder({ resumeSeries: true }).publishFailure(object, withRelated);
    const events = await scratch.eventsAbout(object);
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(2);
  });

  // The name of a shared series' first Event can be worked out by anyone, and anyone who may create Events in the
  // namespace can create it first: the recorder leaves such an Event as it is and counts on an Event of its own.
  it.each([
    ['an Event about another object, its write marks copied', 'other', 1_000],
    ['a copy of the series’ Event counting at the int32 limit', undefined, 2_147_483_647],
  ])(
    'counts every publish on an Event of its own when a tenant took its name first with %s',
    async (_, other, count) => {
      const object = await scratch.configMap('app-config');
      const about = other ? await scratch.configMap(other) : object;
      const name = await sharedSeriesName(object, failed, CONTROLLER);
      const body = tenantEvent(name, about, failed, {
        controller: CONTROLLER,
        count,
        annotations: { 'nestjs-kube-events/writes': '0a1b2c3d4e.1' },
      });
      const created = await sharedControlPlane().kubectl(['create', '-n', scratch.namespace, '-o', 'json', '-f', '-'], {
        input: JSON.stringify(body),
      });
      expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
      const squatted = (await scratch.readEvent(name))!;

      const recorder = scratch.recorder({ resumeSeries: true });
      for (let i = 0; i < 5; i++) await recorder.publishFailure(object, failed);

      expect(await scratch.readEvent(name)).toEqual(squatted);
      const own = (await scratch.eventsAbout(object)).filter((event) => event.metadata?.uid !== squatted.metadata?.uid);
      expect(own.map((event) => event.series?.count ?? 1)).toEqual([5]);
    },
  );

  it('leaves it off by default: a new process starts its own Event', async () => {
    const object = await scratch.configMap('app-config');
    await scratch.recorder().publishFailure(object, failed);
    await scratch.recorder().publishFailure(object, failed);
    expect(await scratch.eventsAbout(object)).toHaveLength(2);
  });
});
