import type { KubernetesObject } from '@kubernetes/client-node';
import {
  EventRecorder,
  InvalidEventError,
  PublishApiError,
  PublishError,
  PublishTimeoutError,
  type KubeEvent,
} from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer, type StoredEvent } from '../support/fake-api-server/index.js';
import { configMap } from '../support/objects.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { advanceToTimer } from '../support/fake-time.js';

const CONTROLLER = 'example.com/widget-controller';
const EVENTS = '/apis/events.k8s.io/v1/namespaces';
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** Where the objects of these tests are, as the API server returned them. */
const NS_A = { namespace: 'ns-a', resourceVersion: '41' };

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('EventRecorder against an API server', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server, {
    reporter: { controller: CONTROLLER, instance: 'widget-controller-0' },
  });

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await shutDown();
    await server.close();
  });

  it('creates an events.k8s.io/v1 Event with every field of the contract', async () => {
    const before = Date.now();
    const related = { apiVersion: 'v1', kind: 'Pod', name: 'widget-0', namespace: 'ns-a' };
    await recorderWith().publish(configMap('app-config', NS_A), { ...failed, related });

    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${EVENTS}/ns-a/events`);
    const body = request.body as StoredEvent;
    expect(body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'ns-a' },
      type: 'Warning',
      reason: 'SyncFailed',
      action: 'Sync',
      note: 'source is missing',
      related,
      regarding: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'app-config',
        namespace: 'ns-a',
        uid: 'uid-app-config',
        resourceVersion: '41',
      },
      reportingController: CONTROLLER,
      reportingInstance: 'widget-controller-0',
    });
    expect(body.metadata.name).toMatch(/^app-config\.[0-9a-f]{16}$/);
    expect(body.eventTime).toMatch(MICRO_TIME);
    expect(Date.parse(body.eventTime!)).toBeGreaterThanOrEqual(before - 1);
    expect(body.series).toBeUndefined();
  });

  it('uses the controller name as the instance when none is given', async () => {
    const recorder = recorderWith({ reporter: { controller: CONTROLLER } });
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect((server.requests[0].body as StoredEvent).reportingInstance).toBe(CONTROLLER);
  });

  it('folds three identical publishes into one Event: POST, PATCH count 2, PATCH count 3', async () => {
    const recorder = recorderWith();
    for (let i = 0; i < 3; i++) await recorder.publish(configMap('app-config', NS_A), failed);

    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3']);
    const [created] = server.events();
    const [post, ...patches] = server.writes();
    let seen = (post.response as StoredEvent).metadata.resourceVersion;
    for (const patch of patches) {
      expect(patch.path).toBe(`${EVENTS}/ns-a/events/${created.metadata.name}`);
      expect(patch.contentType).toBe('application/merge-patch+json');
      const body = patch.body as Pick<StoredEvent, 'series' | 'metadata'>;
      expect(Object.keys(body)).toEqual(['metadata', 'series']);
      // The resourceVersion last seen is the precondition: a late or foreign write makes it fail, not go backwards.
      expect(body.metadata).toEqual({ resourceVersion: seen });
      expect(body.series?.lastObservedTime).toMatch(MICRO_TIME);
      seen = (patch.response as StoredEvent).metadata.resourceVersion;
    }
    expect(server.events()).toHaveLength(1);
    expect(created.series?.count).toBe(3);
  });

  it('flushes a publish made the moment the one before it resolved', async () => {
    const recorder = recorderWith();
    let next: Promise<void> | undefined;
    // Published again from the resolution itself, before the recorder is done with the write that resolved it.
    await recorder.publish(configMap('app-config', NS_A), failed).then(() => {
      next = recorder.publish(configMap('app-config', NS_A), failed);
    });
    await recorder.flush();
    await next;

    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
    expect(server.events()[0].series?.count).toBe(2);
  });

  it('refuses at once, naming the object, a publish made after the recorder shut down, and sends nothing', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    await recorder.onApplicationShutdown();
    const writes = server.writes().length;

    await expect(recorder.publish(configMap('app-config', NS_A), failed)).rejects.toThrow(
      'Not published: SyncFailed about ConfigMap ns-a/app-config: the Event recorder has shut down.',
    );
    expect(server.writes()).toHaveLength(writes);
    expect(server.events()[0].series).toBeUndefined();
  });

  it('makes one Event of concurrent identical publishes, its count equal to their number', async () => {
    const recorder = recorderWith();
    await Promise.all(Array.from({ length: 8 }, () => recorder.publish(configMap('app-config', NS_A), failed)));

    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    // The seven that came while the create was in flight are folded into one patch.
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 8']);
    expect(server.events()[0].series?.count).toBe(8);
  });

  it('does not make publishes of different series wait on each other', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({ timeout: 1_000, clock });
    server.hangNext(
      (request) => request.method === 'POST' && (request.body as StoredEvent).regarding?.name === 'stuck',
    );
    const stuck = recorder.publish(configMap('stuck', NS_A), failed);
    // Written while the recorder's clock stands still: it waited for no timeout of the stuck one.
    await recorder.publish(configMap('other', NS_A), failed);
    const timedOut = expect(stuck).rejects.toBeInstanceOf(PublishTimeoutError);
    await clock.advance(1_000);
    await timedOut;
  });

  it('creates a new Event when the note changes', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    await recorder.publish(configMap('app-config', NS_A), { ...failed, note: 'target namespace ns-b is missing' });
    await recorder.publish(configMap('app-config', NS_A), { ...failed, note: 'target namespace ns-b is missing' });
    expect(server.seriesWrites()).toEqual(['POST', 'POST', 'PATCH 2']);
    expect(server.writes()[2].path).toBe(`${EVENTS}/ns-a/events/${server.events()[1].metadata.name}`);
  });

  it('keeps one series when only the object’s resourceVersion changed', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    const updated = configMap('app-config', NS_A);
    updated.metadata!.resourceVersion = '42';
    await recorder.publish(updated, failed);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
  });

  it('keeps one series when related and annotations are equal but their keys come in another order, and starts one when they differ', async () => {
    const recorder = recorderWith();
    const source = { apiVersion: 'v1', kind: 'ConfigMap', name: 'app-source', namespace: 'ns-a' };
    await recorder.publish(configMap('app-config', NS_A), {
      ...failed,
      related: source,
      annotations: { 'example.com/a': '1', 'example.com/b': '2' },
    });
    await recorder.publish(configMap('app-config', NS_A), {
      ...failed,
      related: { namespace: 'ns-a', name: 'app-source', kind: 'ConfigMap', apiVersion: 'v1' },
      annotations: { 'example.com/b': '2', 'example.com/a': '1' },
    });
    await recorder.publish(configMap('app-config', NS_A), {
      ...failed,
      related: { ...source, name: 'other-source' },
      annotations: { 'example.com/a': '1', 'example.com/b': '2' },
    });
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'POST']);
  });

  it('keeps one series when an annotation is given as undefined in one publish and left out in the next', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), { ...failed, annotations: { 'example.com/a': '1' } });
    await recorder.publish(configMap('app-config', NS_A), {
      ...failed,
      annotations: { 'example.com/a': '1', 'example.com/trace-id': undefined as unknown as string },
    });
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
  });

  it('creates a new Event after forget', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    recorder.forget(configMap('app-config', NS_A));
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.seriesWrites()).toEqual(['POST', 'POST']);
  });

  it('creates a new Event once the series window has passed', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({ seriesWindow: 50, clock });
    await recorder.publish(configMap('app-config', NS_A), failed);
    await clock.advance(50);
    await recorder.publish(configMap('app-config', NS_A), failed);
    await clock.advance(51);
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'POST']);
  });

  it('keeps failure series apart from publish() series', async () => {
    const recorder = recorderWith();
    const event = { ...failed, reason: 'ReconcileFailed', action: 'Reconcile' };
    await recorder.publishFailure(configMap('app-config', NS_A), event);
    await recorder.publish(configMap('app-config', NS_A), event);
    await recorder.publishFailure(configMap('app-config', NS_A), event);
    recorder.forgetFailures(configMap('app-config', NS_A));
    await recorder.publish(configMap('app-config', NS_A), event);
    await recorder.publishFailure(configMap('app-config', NS_A), event);
    expect(server.seriesWrites()).toEqual(['POST', 'POST', 'PATCH 2', 'PATCH 2', 'POST']);
  });

  it('rejects with PublishTimeoutError at the timeout, aborts the request, and keeps the occurrence queued', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({ timeout: 300, clock });
    server.hangNext('POST');
    let error: unknown;
    const publishing = recorder.publish(configMap('app-config', NS_A), failed).catch((e: unknown) => (error = e));
    await server.waitForRequests(1, 'POST');
    await clock.advance(299);
    expect(error).toBeUndefined();
    await clock.advance(1);
    await publishing;
    expect(error).toBeInstanceOf(PublishTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300, queued: true, message: expect.stringContaining('stays queued') });
    await server.waitForAborted();

    // The queued occurrence is created by a retry under the same name, after its backoff; the next publish patches it.
    await advanceToTimer(clock, 300);
    await server.waitForRequests(2, 'POST');
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.seriesWrites()).toEqual(['POST', 'POST', 'PATCH 2']);
    expect(server.writes()[1].path).toBe(server.writes()[0].path);
    expect((server.writes()[1].body as StoredEvent).metadata.name).toBe(
      (server.writes()[0].body as StoredEvent).metadata.name,
    );
    expect(server.events()).toHaveLength(1);
  });

  it('keeps one Event when a create that flush() gave up lands after the next publish was written', async () => {
    const recorder = recorderWith({ timeout: 250 });
    // Applied, but only after the recorder gave up on it: its drop says it may have applied.
    server.delayNext(500, 'POST');
    const givenUp = recorder.publish(configMap('app-config', NS_A), failed).catch((e: unknown) => e);
    await recorder.flush();
    // Its timeout and flush()'s end in the same millisecond: either one tells the publish it was given up.
    expect(await givenUp).toBeInstanceOf(PublishError);
    await recorder.publish(configMap('app-config', NS_A), failed);
    await server.waitForRequests(2, (request) => request.method === 'POST' && request.status !== undefined);

    // The next create went out under the name of the one given up, so the server kept one of the two.
    const [late, next] = server.writes();
    expect((next.body as StoredEvent).metadata.name).toBe((late.body as StoredEvent).metadata.name);
    expect(server.events()).toHaveLength(1);
  });

  it('retries a hung write at once when a publish came while it hung, carrying both', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({ timeout: 300, clock });
    await recorder.publish(configMap('app-config', NS_A), failed);
    server.hangNext('PATCH');
    const hung = recorder.publish(configMap('app-config', NS_A), failed);
    await server.waitForRequests(2);
    // Half-way through the hung write's timeout: the retry that carries it has the rest of its own to land.
    await clock.advance(150);
    const waiting = recorder.publish(configMap('app-config', NS_A), failed);
    await clock.advance(150);
    await expect(hung).rejects.toMatchObject({ name: 'PublishTimeoutError', queued: true });
    // The aborted patch goes again at once, with the same precondition, counting the publish that waited.
    await waiting;
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3']);
    const [, hungPatch, retry] = server.writes();
    expect(retry.path).toBe(hungPatch.path);
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.events()[0].series?.count).toBe(4);
  });

  it('creates the Event again within the same publish when the patch answers 404', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    server.failNext(404, 'PATCH');
    await recorder.publish(configMap('app-config', NS_A), failed);
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'POST', 'PATCH 2']);
    expect(server.writes()[3].path).toBe(`${EVENTS}/ns-a/events/${server.events()[1].metadata.name}`);
  });

  it('retries a write answered 500 after its backoff and resolves once it is written', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith({ clock });
    await recorder.publish(configMap('app-config', NS_A), failed);
    server.failNext(500, 'PATCH', 'InternalError');
    const retried = recorder.publish(configMap('app-config', NS_A), failed);
    // The first retry's backoff: 200 ms, and up to half of it more.
    expect(await advanceToTimer(clock, 300)).toBeGreaterThanOrEqual(200);
    await retried;
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 2']);
    expect(server.events()[0].series?.count).toBe(2);
  });

  it('rejects with PublishApiError on a refusal and leaves the series as it was', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap('app-config', NS_A), failed);
    server.failNext(422, 'PATCH', 'Invalid');
    const error = await recorder.publish(configMap('app-config', NS_A), failed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishApiError);
    expect(error).toMatchObject({ statusCode: 422, reason: 'Invalid', queued: false });
    await recorder.publish(configMap('app-config', NS_A), failed);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 2']);
    expect(server.events()[0].series?.count).toBe(2);
  });

  it('carries the status code and reason of a refusal', async () => {
    const recorder = recorderWith();
    server.failNext(403, 'POST', 'Forbidden');
    await expect(recorder.publish(configMap('app-config', NS_A), failed)).rejects.toMatchObject({
      name: 'PublishApiError',
      statusCode: 403,
      reason: 'Forbidden',
    });
  });

  it('writes Events about cluster-scoped objects to the default namespace', async () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'uid-ns' } };
    await recorderWith().publish(namespace, { type: 'Normal', reason: 'Labelled', action: 'Label' });
    expect(server.requests[0].path).toBe(`${EVENTS}/default/events`);
    expect(server.events()[0].regarding).toMatchObject({ kind: 'Namespace', name: 'team-a' });
    expect(server.events()[0].regarding.namespace).toBeUndefined();
  });

  it.each(['system:controller:demo', 'MyWidget', 'UPPER_case'])(
    'gets an Event for an object named %j',
    async (name) => {
      const role = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name, uid: `uid-${name}` },
      };
      await recorderWith().publish(role, { type: 'Normal', reason: 'Audited', action: 'Audit' });
      expect(server.events()).toHaveLength(1);
      expect(server.events()[0].regarding.name).toBe(name);
    },
  );

  it('creates an Event every time for an object without a uid', async () => {
    const recorder = recorderWith();
    const noUid = configMap('draft', { ...NS_A, uid: '' });
    for (let i = 0; i < 3; i++) await recorder.publish(noUid, failed);
    expect(server.seriesWrites()).toEqual(['POST', 'POST', 'POST']);
    expect(recorder.trackedSeries).toBe(0);
  });

  it('truncates a long note so that the server accepts it', async () => {
    await recorderWith().publish(configMap('app-config', NS_A), { ...failed, note: '€'.repeat(2_000) });
    const note = server.events()[0].note!;
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note.endsWith('€...')).toBe(true);
  });

  describe('writes what was published, whatever becomes of the objects given', () => {
    it('writes queued publishes after their object and event were revoked, and resolves them', async () => {
      const recorder = recorderWith();
      const resource = Proxy.revocable(configMap('app-config', NS_A), {});
      const first = Proxy.revocable({ ...failed, note: 'first' }, {});
      const second = Proxy.revocable({ ...failed, note: 'second', annotations: { 'example.com/trace': 't-1' } }, {});
      const publishes = [recorder.publish(resource.proxy, first.proxy), recorder.publish(resource.proxy, second.proxy)];
      // The second waits behind the first write of its series; what it is about must not be read again.
      for (const revocable of [resource, first, second]) revocable.revoke();
      await Promise.all(publishes);
      expect(
        server.events().map(({ note, regarding, metadata }) => ({
          note,
          name: regarding?.name,
          annotations: metadata?.annotations,
        })),
      ).toEqual([
        { note: 'first', name: 'app-config', annotations: undefined },
        { note: 'second', name: 'app-config', annotations: { 'example.com/trace': 't-1' } },
      ]);
    });

    it('writes the event as it was when published, not as the caller changed it afterwards', async () => {
      const recorder = recorderWith();
      const event: KubeEvent = { ...failed, annotations: { 'example.com/trace': 't-1' } };
      const resource = configMap('app-config', NS_A);
      const publishing = recorder.publish(resource, event);
      event.note = 'changed';
      event.annotations!['example.com/trace'] = 1n as unknown as string;
      resource.metadata!.name = 'renamed';
      await publishing;
      expect(server.events()).toMatchObject([
        {
          note: failed.note,
          regarding: { name: 'app-config' },
          metadata: { annotations: { 'example.com/trace': 't-1' } },
        },
      ]);
    });

    it('reads only the own fields of related, so that a getter on its prototype is never run', async () => {
      const related = Object.create(
        {
          get uid(): string {
            throw new TypeError('not loaded');
          },
        },
        { kind: { value: 'Pod', enumerable: true }, name: { value: 'widget-0', enumerable: true } },
      ) as KubeEvent['related'];
      await recorderWith().publish(configMap('app-config', NS_A), { ...failed, related });
      expect(server.events()[0].related).toEqual({ kind: 'Pod', name: 'widget-0' });
    });
  });

  describe('refuses bad input before any request', () => {
    const cases: [string, KubernetesObject, Partial<KubeEvent>, string][] = [
      ['an empty reason', configMap('a', NS_A), { reason: '' }, 'reason'],
      ['a reason over 128 characters', configMap('a', NS_A), { reason: 'R'.repeat(129) }, 'reason'],
      ['an empty action', configMap('a', NS_A), { action: '' }, 'action'],
      ['an action over 128 characters', configMap('a', NS_A), { action: 'A'.repeat(129) }, 'action'],
      ['a type other than Normal or Warning', configMap('a', NS_A), { type: 'Error' as never }, 'type'],
      [
        'an object without apiVersion',
        { kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' } },
        {},
        'resource.apiVersion',
      ],
      ['an object without kind', { apiVersion: 'v1', metadata: { name: 'a', uid: 'u' } }, {}, 'resource.kind'],
    ];
    it.each(cases)('%s', async (_label, resource, change, field) => {
      const error = await recorderWith()
        .publish(resource, { ...failed, ...change })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidEventError);
      expect((error as InvalidEventError).field).toBe(field);
      expect((error as Error).message).toContain(field);
      expect(server.requests).toHaveLength(0);
    });
  });

  it('fails construction naming the field of a bad reporter', () => {
    expect(
      () => new EventRecorder({ reporter: { controller: 'not a name' }, kubeConfig: server.kubeConfig() }),
    ).toThrow(/reporter\.controller/);
  });
});
