// The library's EventRecorder against the real kube-apiserver: each scenario
// of test/library/event-recorder.spec.ts (the fake API server's suite) that a
// real server can exercise, so that the fake is checked against the real
// thing. Every Event is read back through the API with client-node. Each test
// has a fresh namespace, removed afterwards.
import { type EventsV1Event, type KubernetesObject, V1MicroTime } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidEventError, type KubeEvent, MAX_NOTE_BYTES, PublishApiError } from 'nestjs-kube-events';
import {
  CONTROLLER,
  INSTANCE,
  MICRO_TIME,
  Scratch,
  apiRefusal,
  randomSuffix,
  rejectionOf,
  scratchPerTest,
} from './support/library-fixtures.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('EventRecorder against the real API server', () => {
  let scratch: Scratch;
  scratchPerTest('recorder-e2e', (created) => (scratch = created));

  it('creates an events.k8s.io/v1 Event with every field the library writes, as read back', async () => {
    const cm = await scratch.configMap('app-config');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'widget-0',
      namespace: scratch.namespace,
      uid: 'uid-of-widget-0',
    };
    const before = Date.now();
    await scratch.recorder().publish(cm, { ...failed, related: pod });

    const [listed, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    // List items carry no apiVersion/kind: read the Event itself.
    const event = (await scratch.readEvent(listed.metadata!.name!))!;
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: scratch.namespace },
      type: 'Warning',
      reason: 'SyncFailed',
      action: 'Sync',
      note: 'source is missing',
      related: pod,
      regarding: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'app-config',
        namespace: scratch.namespace,
        uid: cm.metadata!.uid,
        resourceVersion: cm.metadata!.resourceVersion,
      },
      reportingController: CONTROLLER,
      reportingInstance: INSTANCE,
    });
    expect(event.metadata!.name).toMatch(/^app-config\.[0-9a-f]{16}$/);
    // MicroTime is not a type client-node deserialises: it reads back as the server's string.
    expect(String(event.eventTime)).toMatch(MICRO_TIME);
    expect(Date.parse(String(event.eventTime))).toBeGreaterThanOrEqual(before - 1);
    expect(event.series).toBeUndefined();
    // Not set by the library, and the server fills none in.
    expect(event.deprecatedCount ?? 0).toBe(0);
  });

  it('uses the controller name as the instance when none is given', async () => {
    const cm = await scratch.configMap('app-config');
    await scratch.recorder({ reporter: { controller: CONTROLLER } }).publish(cm, failed);
    const [event] = await scratch.allEvents();
    expect(event.reportingInstance).toBe(CONTROLLER);
  });

  it('folds three identical publishes into one Event whose series.count reads back as 3', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    for (let i = 0; i < 3; i++) await recorder.publish(cm, failed);

    const events = await scratch.allEvents();
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(3);
    expect(String(events[0].series?.lastObservedTime)).toMatch(MICRO_TIME);
    expect(Date.parse(String(events[0].series?.lastObservedTime))).toBeGreaterThanOrEqual(
      Date.parse(String(events[0].eventTime)),
    );
  });

  it('makes one Event of concurrent identical publishes, its count equal to their number', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    // Those that came while the create was in flight resolve with the series' next write: all are on the server.
    await Promise.all(Array.from({ length: 8 }, () => recorder.publish(cm, failed)));

    const events = await scratch.allEvents();
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(8);
  });

  it('runs publishes of different series side by side, each in its own Event', async () => {
    const [a, b] = await Promise.all([scratch.configMap('a'), scratch.configMap('b')]);
    const recorder = scratch.recorder();
    await Promise.all([a, b, a, b, a].map((object) => recorder.publish(object, failed)));
    expect((await scratch.eventsAbout(a)).map((event) => event.series?.count)).toEqual([3]);
    expect((await scratch.eventsAbout(b)).map((event) => event.series?.count)).toEqual([2]);
  });

  it('creates a new Event when the note changes, and counts the new note there', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const changed = { ...failed, note: 'target namespace ns-b is missing' };
    await recorder.publish(cm, failed);
    await recorder.publish(cm, changed);
    await recorder.publish(cm, changed);

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.note, event.series?.count])).toEqual([
      ['source is missing', undefined],
      ['target namespace ns-b is missing', 2],
    ]);
  });

  it('keeps one series when the object was updated between two publishes (resourceVersion changed)', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    await recorder.publish(cm, failed);
    const updated = await scratch.core.replaceNamespacedConfigMap({
      name: 'app-config',
      namespace: scratch.namespace,
      body: { ...cm, data: { ...cm.data, other: 'x' } },
    });
    expect(updated.metadata!.resourceVersion).not.toBe(cm.metadata!.resourceVersion);
    await recorder.publish(updated, failed);

    const events = await scratch.allEvents();
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(2);
    // regarding is immutable: it keeps the resourceVersion of the first publish.
    expect(events[0].regarding?.resourceVersion).toBe(cm.metadata!.resourceVersion);
  });

  it('creates a new Event after forget', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    await recorder.publish(cm, failed);
    recorder.forget(cm);
    await recorder.publish(cm, failed);
    await recorder.publish(cm, failed);

    const events = await scratch.allEvents();
    expect(events.map((event) => event.series?.count)).toEqual([undefined, 2]);
    expect(new Set(events.map((event) => event.metadata!.name)).size).toBe(2);
  });

  it('creates a new Event once the series window has passed', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ seriesWindow: 100 });
    await recorder.publish(cm, failed);
    await sleep(150);
    await recorder.publish(cm, failed);

    const events = await scratch.allEvents();
    expect(events).toHaveLength(2);
    expect(events.map((event) => event.series)).toEqual([undefined, undefined]);
  });

  it('keeps failure series apart from publish() series, and forgetFailures restarts only the failure series', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const event = { ...failed, reason: 'ReconcileFailed', action: 'Reconcile' };
    await recorder.publishFailure(cm, event); // failure series: Event 1
    await recorder.publish(cm, event); // publish series: Event 2
    await recorder.publishFailure(cm, event); // Event 1, count 2
    recorder.forgetFailures(cm);
    await recorder.publish(cm, event); // Event 2, count 2
    await recorder.publishFailure(cm, event); // Event 3

    const events = await scratch.allEvents();
    expect(events.map((e) => e.series?.count)).toEqual([2, 2, undefined]);
  });

  it('creates the Event again within the same publish when the server has deleted it (the patch answers 404)', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    await recorder.publish(cm, failed);
    const [first] = await scratch.allEvents();
    await scratch.events.deleteNamespacedEvent({ name: first.metadata!.name!, namespace: scratch.namespace });

    await recorder.publish(cm, failed);
    const [second, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(second.metadata!.name).not.toBe(first.metadata!.name);
    expect(second.series).toBeUndefined();

    await recorder.publish(cm, failed);
    expect((await scratch.readEvent(second.metadata!.name!))?.series?.count).toBe(2);
  });

  it('writes Events about a cluster-scoped object (a Namespace) to default, regarding without a namespace', async () => {
    const namespace = await scratch.namespaceObject();
    const recorder = scratch.recorder();
    const labelled = { type: 'Normal', reason: 'Labelled', action: 'Label', note: 'team label added' } as const;
    await recorder.publish(namespace, labelled);
    await recorder.publish(namespace, labelled);

    const events = await scratch.eventsAbout(namespace);
    expect(events).toHaveLength(1);
    expect(events[0].metadata!.namespace).toBe('default');
    expect(events[0].regarding).toMatchObject({ apiVersion: 'v1', kind: 'Namespace', name: scratch.namespace });
    expect(events[0].regarding!.namespace).toBeUndefined();
    expect(events[0].series?.count).toBe(2);
    expect(await scratch.allEvents()).toHaveLength(0);
  });

  it.each(['system:controller:demo', 'MyWidget', 'UPPER_case'])(
    'gets an Event (and a series) for a ClusterRole named like %j',
    async (base) => {
      // ClusterRole names are path segments, so upper case and ':' are allowed; a random tail keeps runs apart.
      const role = await scratch.clusterRole(`${base}-${randomSuffix()}`);
      const recorder = scratch.recorder();
      const audited = { type: 'Normal', reason: 'Audited', action: 'Audit' } as const;
      await recorder.publish(role, audited);
      await recorder.publish(role, audited);

      const events = await scratch.eventsAbout(role);
      expect(events).toHaveLength(1);
      expect(events[0].regarding).toMatchObject({ kind: 'ClusterRole', name: role.metadata!.name });
      expect(events[0].metadata!.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.[0-9a-f]{16}$/);
      expect(events[0].series?.count).toBe(2);
    },
  );

  it('creates an Event every time for an object without a uid', async () => {
    const cm = await scratch.configMap('draft');
    const noUid: KubernetesObject = { ...cm, metadata: { ...cm.metadata, uid: undefined } };
    const recorder = scratch.recorder();
    for (let i = 0; i < 3; i++) await recorder.publish(noUid, failed);

    const events = await scratch.allEvents();
    expect(events).toHaveLength(3);
    expect(events.map((event) => event.series)).toEqual([undefined, undefined, undefined]);
    expect(events.every((event) => event.regarding?.name === 'draft' && !event.regarding.uid)).toBe(true);
    expect(recorder.trackedSeries).toBe(0);
  });

  it('truncates a 2,000-byte note of multi-byte characters so that the server accepts it', async () => {
    const cm = await scratch.configMap('app-config');
    const note = '€'.repeat(700); // 2,100 bytes
    expect(Buffer.byteLength(note)).toBeGreaterThanOrEqual(2_000);
    // The server itself refuses it whole.
    const refused = await apiRefusal(
      scratch.events.createNamespacedEvent({ namespace: scratch.namespace, body: handMade(cm, { note }) }),
    );
    expect(refused).toMatchObject({ code: 422, reason: 'Invalid' });

    const recorder = scratch.recorder();
    await recorder.publish(cm, { ...failed, note });
    await recorder.publish(cm, { ...failed, note });
    const [event, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(Buffer.byteLength(event.note!)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    expect(event.note!.endsWith('€...')).toBe(true);
    expect(event.note).toBe(`${'€'.repeat(Math.floor((MAX_NOTE_BYTES - 3) / 3))}...`);
    // The truncated note is the series' identity: the repeat was counted.
    expect(event.series?.count).toBe(2);
  });

  it('rejects with PublishApiError 404 for an object in a namespace that does not exist, and keeps working elsewhere', async () => {
    const cm = await scratch.configMap('app-config');
    const missing = `no-such-namespace-${randomSuffix()}`;
    const ghost: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-config', namespace: missing, uid: `uid-${randomSuffix(8)}` },
    };
    const recorder = scratch.recorder();
    for (let i = 0; i < 2; i++) {
      const error = await rejectionOf(recorder.publish(ghost, failed));
      expect(error).toBeInstanceOf(PublishApiError);
      expect(error).toMatchObject({ statusCode: 404, reason: 'NotFound' });
      expect((error as Error).message).toMatch(new RegExp(`namespaces "${missing}" not found`));
    }

    await recorder.publish(cm, failed);
    await recorder.publish(cm, failed);
    const events = await scratch.allEvents();
    expect(events.map((event) => event.series?.count)).toEqual([2]);
    await expect(scratch.core.readNamespace({ name: missing })).rejects.toMatchObject({ code: 404 });
  });

  it('refuses at construction a reportingController that the server answers with 422', async () => {
    const cm = await scratch.configMap('app-config');
    for (const controller of ['Widget Controller', 'x'.repeat(64), 'example.com/bad name', '-starts-with-dash']) {
      const refused = await apiRefusal(
        scratch.events.createNamespacedEvent({
          namespace: scratch.namespace,
          body: handMade(cm, { reportingController: controller }),
        }),
      );
      expect({ controller, code: refused.code, reason: refused.reason }).toEqual({
        controller,
        code: 422,
        reason: 'Invalid',
      });
      expect(refused.message).toMatch(/reportingController/);
      expect(() => scratch.recorder({ reporter: { controller } })).toThrow(/reporter\.controller/);
    }
    // And a reportingInstance over 128 characters likewise.
    const longInstance = 'i'.repeat(129);
    const refused = await apiRefusal(
      scratch.events.createNamespacedEvent({
        namespace: scratch.namespace,
        body: handMade(cm, { reportingInstance: longInstance }),
      }),
    );
    expect(refused).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(() => scratch.recorder({ reporter: { controller: CONTROLLER, instance: longInstance } })).toThrow(
      /reporter\.instance/,
    );
    expect(await scratch.allEvents()).toHaveLength(0);
  });

  it.each<[string, Partial<KubeEvent>, string]>([
    ['an empty reason', { reason: '' }, 'reason'],
    ['a reason over 128 characters', { reason: 'R'.repeat(129) }, 'reason'],
    ['an empty action', { action: '' }, 'action'],
    ['an action over 128 characters', { action: 'A'.repeat(129) }, 'action'],
    ['a type other than Normal or Warning', { type: 'Error' as never }, 'type'],
  ])('refuses %s with InvalidEventError, where the server answers 422', async (_label, change, field) => {
    const cm = await scratch.configMap('app-config');
    const refused = await apiRefusal(
      scratch.events.createNamespacedEvent({
        namespace: scratch.namespace,
        body: handMade(cm, change),
      }),
    );
    expect(refused).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(refused.message).toContain(field);

    const error = await rejectionOf(scratch.recorder().publish(cm, { ...failed, ...change }));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect((error as InvalidEventError).field).toBe(field);
    expect(await scratch.allEvents()).toHaveLength(0);
  });

  it('refuses an object without kind, which the server would accept but kubectl describe would never show', async () => {
    const cm = await scratch.configMap('app-config');
    const { kind: _kind, ...withoutKind } = cm;
    // The server does not require regarding.kind …
    const accepted = await scratch.events.createNamespacedEvent({
      namespace: scratch.namespace,
      body: handMade(cm, { regarding: { ...reference(cm), kind: undefined } }),
    });
    expect(accepted.regarding?.kind).toBeUndefined();
    // … so the library is stricter than the server here, on purpose: `kubectl describe` finds Events by kind.
    const error = await rejectionOf(scratch.recorder().publish(withoutKind, failed));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect((error as InvalidEventError).field).toBe('resource.kind');
    expect(await scratch.allEvents()).toHaveLength(1);
  });
});

function reference(object: KubernetesObject) {
  const { name, namespace, uid, resourceVersion } = object.metadata!;
  return { apiVersion: object.apiVersion, kind: object.kind, name, namespace, uid, resourceVersion };
}

/** A valid Event about `object`, written by hand (not by the library), with `overrides`. */
function handMade(object: KubernetesObject, overrides: Partial<EventsV1Event> = {}): EventsV1Event {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { generateName: `${object.metadata!.name}-`, namespace: object.metadata!.namespace },
    eventTime: new V1MicroTime(),
    type: 'Warning',
    reason: 'SyncFailed',
    action: 'Sync',
    note: 'hand-made',
    regarding: reference(object),
    reportingController: CONTROLLER,
    reportingInstance: INSTANCE,
    ...overrides,
  };
}
