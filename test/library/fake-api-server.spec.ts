/**
 * The fake API server, exercised through @kubernetes/client-node 2.x's
 * EventsV1Api over HTTP, as the library uses it.
 *
 * Two client-node 2.x details the library depends on, shown here:
 *
 * - PATCH defaults to `Content-Type: application/json-patch+json` (the first
 *   patch type the OpenAPI spec lists). A JSON merge patch is selected per
 *   call with `setHeaderOptions('Content-Type', PatchStrategy.MergePatch)`:
 *
 *     await api.patchNamespacedEvent({ name, namespace, body: { series } },
 *       setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
 *
 * - An AbortSignal reaches undici's fetch through `RequestContext.setSignal`,
 *   from a per-call *Observable* middleware (see `withSignal` below). A
 *   Promise-returning middleware breaks the call: per-call options are not
 *   wrapped for the object-parameter API. `middlewareMergeStrategy: 'append'`
 *   keeps the client's own User-Agent middleware (the default is 'replace').
 */
import {
  ApiException,
  EventsV1Api,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type ConfigurationOptions,
  type EventsV1Event,
  type ObservableMiddleware,
} from '@kubernetes/client-node';
import { FakeApiServer, type Status } from '../support/fake-api-server/index.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Per-call options that abort the request when `signal` aborts. */
function withSignal(signal: AbortSignal, options: ConfigurationOptions = {}): ConfigurationOptions {
  const abortable: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { ...options, middleware: [...(options.middleware ?? []), abortable], middlewareMergeStrategy: 'append' };
}

const mergePatch = (options?: ConfigurationOptions) =>
  setHeaderOptions('Content-Type', PatchStrategy.MergePatch, options);

const EVENT_TIME = Date.UTC(2026, 0, 2, 3, 4, 5, 123);
const NAME_SUFFIX = '[bcdfghjklmnpqrstvwxz2456789]{5}';

function eventBody(overrides: Partial<EventsV1Event> = {}): EventsV1Event {
  return {
    metadata: { generateName: 'app-config-' },
    eventTime: new V1MicroTime(EVENT_TIME),
    type: 'Normal',
    reason: 'Mirrored',
    action: 'Reconcile',
    note: 'copied 3 keys',
    regarding: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'app-config',
      namespace: 'ns-a',
      uid: 'uid-1',
      resourceVersion: '7',
    },
    reportingController: 'example.com/config-mirror',
    reportingInstance: 'config-mirror-0',
    ...overrides,
  };
}

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await promise;
  } catch (error) {
    return error as ApiException<string>;
  }
  throw new Error('expected the call to reject');
}

/** client-node keeps the error body as the raw JSON text. */
function statusOf(error: ApiException<string>): Status {
  expect(typeof error.body).toBe('string');
  return JSON.parse(error.body) as Status;
}

function microTime(ms: number): V1MicroTime {
  return new V1MicroTime(ms);
}

describe('FakeApiServer', () => {
  let server: FakeApiServer;
  let api: EventsV1Api;

  beforeAll(async () => {
    server = await FakeApiServer.start({ namespaces: ['default', 'kube-system', 'ns-a'], refusable: true });
    api = server.kubeConfig().makeApiClient(EventsV1Api);
  });

  afterAll(() => server.close());

  beforeEach(() => server.reset());

  describe('create', () => {
    it('names the Event from generateName and fills the server fields', async () => {
      const created = await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });

      expect(created.metadata?.name).toMatch(new RegExp(`^app-config-${NAME_SUFFIX}$`));
      expect(created.metadata).toMatchObject({ generateName: 'app-config-', namespace: 'ns-a' });
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(0);
      expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
      // V1MicroTime writes six digits; client-node hands the answer back as a string.
      expect(created.eventTime).toBe('2026-01-02T03:04:05.123000Z');

      expect(server.log()).toEqual([`create ns-a → 201`]);
      expect(server.requests[0]).toMatchObject({
        method: 'POST',
        path: '/apis/events.k8s.io/v1/namespaces/ns-a/events',
        contentType: 'application/json',
        body: {
          metadata: { generateName: 'app-config-' },
          eventTime: '2026-01-02T03:04:05.123000Z',
          reason: 'Mirrored',
        },
      });
      expect(server.events('ns-a')).toEqual([
        expect.objectContaining({ metadata: expect.objectContaining({ name: created.metadata?.name }) }),
      ]);
    });

    it('cuts a long generateName to 58 characters before the random suffix', async () => {
      const created = await api.createNamespacedEvent({
        namespace: 'ns-a',
        body: eventBody({ metadata: { generateName: `${'a'.repeat(70)}-` } }),
      });

      expect(created.metadata?.name).toMatch(new RegExp(`^a{58}${NAME_SUFFIX}$`));
    });

    it('takes an eventTime written as a string, and stores it in UTC', async () => {
      const body = eventBody({ eventTime: '2026-01-02T05:04:05.123456+02:00' as unknown as V1MicroTime });

      const created = await api.createNamespacedEvent({ namespace: 'ns-a', body });

      expect(created.eventTime).toBe('2026-01-02T03:04:05.123456Z');
    });

    it('answers 400 to an eventTime with three fractional digits (a plain Date)', async () => {
      const error = await rejection(
        api.createNamespacedEvent({
          namespace: 'ns-a',
          body: eventBody({ eventTime: new Date(EVENT_TIME) }),
        }),
      );

      expect(error.code).toBe(400);
      expect(statusOf(error)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'Event in version "v1" cannot be handled as a Event: parsing time "2026-01-02T03:04:05.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
        reason: 'BadRequest',
        code: 400,
      });
      expect(server.events()).toEqual([]);
    });

    it('answers 400 to a series.lastObservedTime with nine fractional digits', async () => {
      const body = eventBody({
        series: { count: 2, lastObservedTime: '2026-01-02T03:04:05.123456789Z' as unknown as V1MicroTime },
      });

      const error = await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body }));

      expect(error.code).toBe(400);
      expect(statusOf(error).message).toContain('cannot parse "789Z" as "Z07:00"');
    });

    it.each<[string, Partial<EventsV1Event>, string, string]>([
      ['a type other than Normal and Warning', { type: 'Info' }, 'type', 'Invalid value: "": has invalid value: Info'],
      ['no reportingController', { reportingController: undefined }, 'reportingController', 'Required value'],
      [
        'a reportingController that is not a qualified name',
        { reportingController: 'Config Mirror!' },
        'reportingController',
        'Invalid value: "Config Mirror!": name part must consist of alphanumeric characters',
      ],
      ['no reportingInstance', { reportingInstance: undefined }, 'reportingInstance', 'Required value'],
      ['an action over 128 bytes', { action: 'a'.repeat(129) }, 'action', 'can have at most 128 characters'],
      ['a reason over 128 bytes', { reason: 'é'.repeat(65) }, 'reason', 'can have at most 128 characters'],
      ['no reason', { reason: '' }, 'reason', 'Required value'],
      ['a note over 1024 bytes', { note: 'x'.repeat(1025) }, 'message', 'can have at most 1024 characters'],
      ['no eventTime', { eventTime: undefined }, 'eventTime', 'Required value'],
      [
        'a series with count 1',
        { series: { count: 1, lastObservedTime: microTime(EVENT_TIME) } },
        'series.count',
        'should be at least 2',
      ],
      [
        'a series without lastObservedTime',
        { series: { count: 2 } as EventsV1Event['series'] },
        'series.lastObservedTime',
        'Required value',
      ],
      ['deprecatedCount', { deprecatedCount: 2 }, 'count', 'needs to be unset'],
      ['deprecatedSource', { deprecatedSource: { component: 'x' } }, 'source', 'needs to be unset'],
      [
        'deprecatedFirstTimestamp',
        { deprecatedFirstTimestamp: new Date(EVENT_TIME) },
        'firstTimestamp',
        'needs to be unset',
      ],
      [
        'a cluster-scoped regarding outside default and kube-system',
        { regarding: { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-n' } },
        'involvedObject.namespace',
        'does not match event.namespace',
      ],
      [
        'a generateName ending in a dot (only a trailing dash is forgiven)',
        { metadata: { generateName: 'app-config.' } },
        'metadata.generateName',
        'a lowercase RFC 1123 subdomain must consist of',
      ],
      ['an upper-case name', { metadata: { name: 'App-Config.1' } }, 'metadata.name', 'a lowercase RFC 1123 subdomain'],
    ])('answers 422 Invalid to %s', async (_, overrides, field, message) => {
      const error = await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody(overrides) }));

      expect(error.code).toBe(422);
      const status = statusOf(error);
      expect(status).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Invalid',
        code: 422,
        details: { kind: 'Event' },
      });
      expect(status.message).toMatch(/^Event ".*" is invalid: /);
      expect(status.details?.causes).toContainEqual(
        expect.objectContaining({ field, message: expect.stringContaining(message) }),
      );
      expect(server.events()).toEqual([]);
    });

    it('lists every violation, with the core field names', async () => {
      const body = eventBody({ type: 'Info', note: 'x'.repeat(1025), reportingController: '' });

      const status = statusOf(await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body })));

      expect(status.details?.causes?.map((cause) => [cause.field, cause.reason])).toEqual([
        ['reportingController', 'FieldValueRequired'],
        ['reportingController', 'FieldValueInvalid'],
        ['reportingController', 'FieldValueInvalid'],
        ['message', 'FieldValueInvalid'],
        ['type', 'FieldValueInvalid'],
      ]);
      expect(status.message).toMatch(/^Event "app-config-\w{5}" is invalid: \[reportingController: Required value, /);
    });

    it.each(['default', 'kube-system'])('puts an Event about a cluster-scoped object in %s', async (namespace) => {
      const body = eventBody({ regarding: { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-n' } });

      await expect(api.createNamespacedEvent({ namespace, body })).resolves.toMatchObject({ metadata: { namespace } });
    });

    it('answers 404 in a namespace that does not exist', async () => {
      const error = await rejection(api.createNamespacedEvent({ namespace: 'ns-missing', body: eventBody() }));

      expect(error.code).toBe(404);
      expect(statusOf(error)).toMatchObject({
        reason: 'NotFound',
        message: 'namespaces "ns-missing" not found',
        details: { name: 'ns-missing', kind: 'namespaces' },
      });
    });
  });

  describe('patch', () => {
    async function created(): Promise<EventsV1Event & { metadata: { name: string } }> {
      return (await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() })) as EventsV1Event & {
        metadata: { name: string };
      };
    }

    it('applies a JSON merge patch of the series and bumps the resourceVersion', async () => {
      const event = await created();
      const series = { count: 2, lastObservedTime: microTime(EVENT_TIME + 1_000) };

      const patched = await api.patchNamespacedEvent(
        { name: event.metadata.name, namespace: 'ns-a', body: { series } },
        mergePatch(),
      );

      expect(patched.series).toEqual({ count: 2, lastObservedTime: '2026-01-02T03:04:06.123000Z' });
      expect(Number(patched.metadata?.resourceVersion)).toBeGreaterThan(Number(event.metadata.resourceVersion));
      expect(patched.note).toBe('copied 3 keys');
      expect(server.verbs()).toEqual(['create', 'patch']);
      expect(server.requestsFor('PATCH')[0]).toMatchObject({
        path: `/apis/events.k8s.io/v1/namespaces/ns-a/events/${event.metadata.name}`,
        contentType: 'application/merge-patch+json',
        body: { series: { count: 2, lastObservedTime: '2026-01-02T03:04:06.123000Z' } },
        status: 200,
      });
      expect(server.event('ns-a', event.metadata.name)?.series?.count).toBe(2);
    });

    it('answers 415 to client-node’s default patch type (JSON patch)', async () => {
      const event = await created();

      const error = await rejection(
        api.patchNamespacedEvent({ name: event.metadata.name, namespace: 'ns-a', body: { series: { count: 2 } } }),
      );

      expect(error.code).toBe(415);
      expect(statusOf(error)).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
      expect(server.requestsFor('patch')[0]?.contentType).toBe('application/json-patch+json');
    });

    it('answers 404 NotFound for an Event that is gone', async () => {
      const event = await created();
      expect(server.expireEvents()).toBe(1);

      const error = await rejection(
        api.patchNamespacedEvent(
          { name: event.metadata.name, namespace: 'ns-a', body: { series: { count: 2 } } },
          mergePatch(),
        ),
      );

      expect(error.code).toBe(404);
      expect(statusOf(error)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `events.events.k8s.io "${event.metadata.name}" not found`,
        reason: 'NotFound',
        details: { name: event.metadata.name, group: 'events.k8s.io', kind: 'events' },
        code: 404,
      });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['note', { note: 'copied 4 keys' }, 'message'],
      ['regarding', { regarding: { resourceVersion: '8' } }, 'involvedObject'],
      ['type', { type: 'Warning' }, 'type'],
      ['eventTime', { eventTime: '2026-01-02T03:04:06.000000Z' }, 'eventTime'],
      ['reportingInstance', { reportingInstance: 'config-mirror-1' }, 'reportingInstance'],
      ['related', { related: { kind: 'Secret', name: 's' } }, 'related'],
    ])('answers 422 to a change of the immutable %s', async (_, body, field) => {
      const event = await created();

      const error = await rejection(
        api.patchNamespacedEvent({ name: event.metadata.name, namespace: 'ns-a', body }, mergePatch()),
      );

      expect(error.code).toBe(422);
      expect(statusOf(error).details?.causes).toContainEqual(
        expect.objectContaining({ field, message: expect.stringContaining('field is immutable') }),
      );
      expect(server.event('ns-a', event.metadata.name)?.metadata.resourceVersion).toBe(event.metadata.resourceVersion);
    });

    it('lets labels and annotations change', async () => {
      const event = await created();

      const patched = await api.patchNamespacedEvent(
        {
          name: event.metadata.name,
          namespace: 'ns-a',
          body: { metadata: { labels: { team: 'a' }, annotations: { 'example.com/x': 'y' } } },
        },
        mergePatch(),
      );

      expect(patched.metadata).toMatchObject({ labels: { team: 'a' }, annotations: { 'example.com/x': 'y' } });
    });

    it('answers 422 to a series count below 2', async () => {
      const event = await created();

      const error = await rejection(
        api.patchNamespacedEvent(
          {
            name: event.metadata.name,
            namespace: 'ns-a',
            body: { series: { count: 1, lastObservedTime: microTime(EVENT_TIME) } },
          },
          mergePatch(),
        ),
      );

      expect(statusOf(error).details?.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "": should be at least 2', field: 'series.count' },
      ]);
    });

    it('answers 422 on field "patch" (not 400) to a lastObservedTime with three digits, as the real server does', async () => {
      const event = await created();

      const error = await rejection(
        api.patchNamespacedEvent(
          {
            name: event.metadata.name,
            namespace: 'ns-a',
            body: { series: { count: 2, lastObservedTime: new Date(EVENT_TIME) } },
          },
          mergePatch(),
        ),
      );

      expect(error.code).toBe(422);
      const status = statusOf(error);
      expect(status.message).toMatch(
        /^ "" is invalid: patch: Invalid value: ".*": parsing time "2026-01-02T03:04:05.123Z"/,
      );
      expect(status.details?.causes?.[0]?.field).toBe('patch');
    });

    it('keeps the resourceVersion when a patch changes nothing', async () => {
      const event = await created();

      const patched = await api.patchNamespacedEvent(
        { name: event.metadata.name, namespace: 'ns-a', body: { note: 'copied 3 keys' } },
        mergePatch(),
      );

      expect(patched.metadata?.resourceVersion).toBe(event.metadata.resourceVersion);
    });
  });

  describe('get, list, delete', () => {
    it('serves what it stores', async () => {
      const event = await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });
      const name = event.metadata!.name!;

      await expect(api.readNamespacedEvent({ name, namespace: 'ns-a' })).resolves.toMatchObject({
        metadata: { name },
        reason: 'Mirrored',
      });
      const list = await api.listNamespacedEvent({ namespace: 'ns-a' });
      expect(list.items.map((item) => item.metadata?.name)).toEqual([name]);
      await expect(api.listNamespacedEvent({ namespace: 'default' })).resolves.toMatchObject({ items: [] });
      await expect(api.deleteNamespacedEvent({ name, namespace: 'ns-a' })).resolves.toMatchObject({
        status: 'Success',
      });
      expect((await rejection(api.readNamespacedEvent({ name, namespace: 'ns-a' }))).code).toBe(404);
      expect(server.verbs()).toEqual(['create', 'get', 'list', 'list', 'delete', 'get']);
    });
  });

  describe('scenarios', () => {
    it('hangNext: the request gets no answer until the client aborts it; the next one is served', async () => {
      server.hangNext('POST');
      const controller = new AbortController();

      const hung = api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() }, withSignal(controller.signal));
      await server.waitForRequests(1, 'POST');
      controller.abort();

      await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
      await server.waitForAborted(1);
      await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });

      expect(server.aborted).toBe(1);
      expect(server.log()).toEqual(['create ns-a → hung, aborted', 'create ns-a → 201']);
      expect(server.requests[0]).toMatchObject({ hung: true, aborted: true });
      expect(server.requests[0]?.status).toBeUndefined();
      expect(server.events()).toHaveLength(1);
      expect(server.pendingScenarios).toBe(0);
    });

    it('hangNext: AbortSignal.timeout rejects with a TimeoutError', async () => {
      server.hangNext('create');

      const error = await rejection(
        api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() }, withSignal(AbortSignal.timeout(50))),
      );

      expect(error.name).toBe('TimeoutError');
      expect(server.requests.filter((request) => request.status !== undefined)).toEqual([]);
    });

    it('withSignal composes with the merge-patch header', async () => {
      const event = await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });
      server.hangNext('PATCH');
      const controller = new AbortController();

      const hung = api.patchNamespacedEvent(
        {
          name: event.metadata!.name!,
          namespace: 'ns-a',
          body: { series: { count: 2, lastObservedTime: microTime(EVENT_TIME) } },
        },
        mergePatch(withSignal(controller.signal)),
      );
      const [patch] = await server.waitForRequests(1, 'PATCH');
      controller.abort();

      await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
      expect(patch?.contentType).toBe('application/merge-patch+json');
      expect(patch?.headers['user-agent']).toMatch(/kubernetes/i);
    });

    it('failNext: only the next matching request fails, and it is not applied', async () => {
      const event = await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });
      const name = event.metadata!.name!;
      const patch = (count: number) =>
        api.patchNamespacedEvent(
          { name, namespace: 'ns-a', body: { series: { count, lastObservedTime: microTime(EVENT_TIME) } } },
          mergePatch(),
        );
      server.failNext(500, 'PATCH');

      const error = await rejection(patch(2));
      await patch(2);

      expect(error.code).toBe(500);
      expect(statusOf(error)).toMatchObject({
        reason: 'InternalError',
        message: expect.stringMatching(/^Internal error occurred: /),
      });
      expect(server.requests.map((request) => request.status)).toEqual([201, 500, 200]);
      expect(server.event('ns-a', name)?.series?.count).toBe(2);
    });

    it('failNext: a 404 for one PATCH looks like an expired Event', async () => {
      const event = await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });
      const name = event.metadata!.name!;
      server.failNext(404, (request) => request.verb === 'patch' && request.name === name);

      const error = await rejection(
        api.patchNamespacedEvent({ name, namespace: 'ns-a', body: { series: { count: 2 } } }, mergePatch()),
      );

      expect(statusOf(error)).toMatchObject({
        reason: 'NotFound',
        message: `events.events.k8s.io "${name}" not found`,
        details: { name, kind: 'events' },
      });
    });

    it('failNext: reason and message can be given', async () => {
      server.failNext(403, 'POST', 'Forbidden', 'no create for you');

      const status = statusOf(await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() })));

      expect(status).toMatchObject({ reason: 'Forbidden', message: 'no create for you', code: 403 });
    });

    it('scenarios apply in order, each to the first request that matches', async () => {
      server.failNext(500, 'POST').failNext(429, 'POST');

      const first = await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() }));
      const second = await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() }));
      await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });

      expect([first.code, second.code]).toEqual([500, 429]);
      expect(second.headers['retry-after']).toBe('1');
    });

    it('delayNext: answers late; a create whose client gave up is still applied', async () => {
      server.delayNext(100, 'POST');
      const started = Date.now();

      await api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() });
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);

      server.delayNext(300, 'POST');
      const controller = new AbortController();
      const abandoned = api.createNamespacedEvent(
        { namespace: 'ns-a', body: eventBody() },
        withSignal(controller.signal),
      );
      await server.waitForRequests(2, 'POST');
      controller.abort();
      await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
      await server.waitForAborted(1);
      await server.waitForRequests(2, (request) => request.status === 201);

      expect(server.requests[1]).toMatchObject({ delayedMs: 300, aborted: true, status: 201 });
      expect(server.events()).toHaveLength(2);
    });

    it('respondNext: any answer', async () => {
      server.respondNext('POST', () => ({
        status: 503,
        body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'ServiceUnavailable', code: 503 },
      }));

      expect((await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body: eventBody() }))).code).toBe(503);
    });
  });

  /**
   * The write-path scenarios, spoken to in plain HTTP (`fetch`), so what the
   * client sees on the wire is shown without client-node in between.
   */
  describe('write path over plain HTTP', () => {
    const collection = () => `${server.url}/apis/events.k8s.io/v1/namespaces/ns-a/events`;
    const item = (name: string) => `${collection()}/${name}`;

    function rawEvent(name: string): Record<string, unknown> {
      return {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name },
        eventTime: '2026-01-02T03:04:05.123000Z',
        type: 'Normal',
        reason: 'Mirrored',
        action: 'Reconcile',
        note: 'copied 3 keys',
        regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app-config', namespace: 'ns-a', uid: 'uid-1' },
        reportingController: 'example.com/config-mirror',
        reportingInstance: 'config-mirror-0',
      };
    }

    const post = (name: string, signal?: AbortSignal) =>
      fetch(collection(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(rawEvent(name)),
        signal,
      });

    const patch = (name: string, body: unknown) =>
      fetch(item(name), {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify(body),
      });

    const seriesPatch = (name: string, count: number, resourceVersion?: string) =>
      patch(name, {
        ...(resourceVersion !== undefined && { metadata: { resourceVersion } }),
        series: { count, lastObservedTime: '2026-01-02T03:04:06.000000Z' },
      });

    async function createdNamed(name: string): Promise<string> {
      const response = await post(name);
      expect(response.status).toBe(201);
      return ((await response.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    }

    describe('resetNext', () => {
      it('resets the connection of the next matching request before applying it', async () => {
        server.resetNext('POST');

        await expect(post('reset-1')).rejects.toMatchObject({ name: 'TypeError', cause: { code: 'ECONNRESET' } });
        expect(server.events('ns-a')).toEqual([]);
        expect(server.log()).toEqual(['create ns-a → reset']);
        expect(server.pendingScenarios).toBe(0);
        expect((await post('reset-1')).status).toBe(201);
      });
    });

    describe('stopListening, listenAgain', () => {
      it('refuses connections until it listens again on the same address, keeping its Events', async () => {
        expect((await post('down-0')).status).toBe(201);
        await server.stopListening();

        try {
          expect(server.isListening).toBe(false);
          // The client may first try the kept-alive connection the server closed; a new one is refused.
          await post('down-1').catch(() => undefined);
          await expect(post('down-1')).rejects.toMatchObject({ name: 'TypeError', cause: { code: 'ECONNREFUSED' } });
          expect(server.log()).toEqual(['create ns-a → 201']);
        } finally {
          await server.listenAgain();
        }
        expect(server.isListening).toBe(true);
        expect((await post('down-1')).status).toBe(201);
        expect(server.events('ns-a').map((event) => event.metadata.name)).toEqual(['down-0', 'down-1']);
      });
    });

    describe('loseAnswerNext', () => {
      it('applies the create, then resets the connection with no answer', async () => {
        server.loseAnswerNext('POST');

        const error = await rejection(post('lost-1'));

        // undici's TypeError comes from another realm than Jest's: match its name, not toBeInstanceOf.
        expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNRESET' } });
        const stored = server.event('ns-a', 'lost-1');
        expect(stored?.metadata.resourceVersion).toMatch(/^\d+$/);
        expect(server.requests[0]).toMatchObject({
          verb: 'create',
          status: 201,
          answerCut: 'reset',
          aborted: false,
          applied: {
            namespace: 'ns-a',
            name: 'lost-1',
            resourceVersion: stored?.metadata.resourceVersion,
            seriesCount: 1,
          },
        });
        expect(server.log()).toEqual(['create ns-a → 201, answer lost']);
        expect(server.pendingScenarios).toBe(0);

        // The server is fine afterwards: a retry of the same name meets the Event the lost answer created.
        const retry = await post('lost-1');
        expect(retry.status).toBe(409);
        expect(server.events('ns-a')).toHaveLength(1);
      });

      it('applies a patch, then loses its answer', async () => {
        await createdNamed('lost-2');
        server.loseAnswerNext('PATCH');

        await expect(seriesPatch('lost-2', 2)).rejects.toMatchObject({
          name: 'TypeError',
          cause: { code: 'ECONNRESET' },
        });

        expect(server.seriesCount('ns-a', 'lost-2')).toBe(2);
        expect(server.requests[1]).toMatchObject({
          verb: 'patch',
          status: 200,
          answerCut: 'reset',
          applied: { seriesCount: 2 },
        });
      });
    });

    describe('truncateAnswerNext', () => {
      it('sends the 201 and its headers with half the body, announcing the whole: reading the body fails', async () => {
        server.truncateAnswerNext('POST');

        const response = await post('cut-1');

        expect(response.status).toBe(201);
        expect(response.headers.get('content-type')).toBe('application/json');
        await expect(response.text()).rejects.toMatchObject({
          name: 'TypeError',
          message: 'terminated',
          cause: { code: 'UND_ERR_SOCKET' },
        });
        expect(server.event('ns-a', 'cut-1')).toBeDefined();
        expect(server.requests[0]).toMatchObject({
          status: 201,
          answerCut: 'truncated',
          applied: { name: 'cut-1', seriesCount: 1 },
        });
        expect(server.log()).toEqual(['create ns-a → 201, answer truncated']);
        // The next request gets a whole answer.
        expect((await fetch(item('cut-1'))).status).toBe(200);
      });

      it("contentLength 'sent': a complete response whose JSON does not parse", async () => {
        await createdNamed('cut-2');
        server.truncateAnswerNext('PATCH', { contentLength: 'sent' });

        const response = await seriesPatch('cut-2', 2);

        expect(response.status).toBe(200);
        expect(response.headers.get('connection')).toBe('close');
        const text = await response.text();
        const whole = JSON.stringify(server.requests[1]?.response);
        expect(text).toBe(whole.slice(0, Math.floor(whole.length / 2)));
        expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
        expect(server.seriesCount('ns-a', 'cut-2')).toBe(2);
      });
    });

    it('what client-node makes of a lost and of a truncated answer', async () => {
      const body = eventBody({ metadata: { name: 'via-client-1' } });
      server.loseAnswerNext('POST').truncateAnswerNext('POST').truncateAnswerNext('POST', { contentLength: 'sent' });

      const lost = await rejection(api.createNamespacedEvent({ namespace: 'ns-a', body }));
      const cut = await rejection(
        api.createNamespacedEvent({ namespace: 'ns-a', body: { ...body, metadata: { name: 'via-client-2' } } }),
      );
      const unparsable = await rejection(
        api.createNamespacedEvent({ namespace: 'ns-a', body: { ...body, metadata: { name: 'via-client-3' } } }),
      );

      expect(lost).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNRESET' } });
      expect(cut).toMatchObject({ name: 'TypeError', message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
      expect(unparsable).toMatchObject({ name: 'SyntaxError' });
      expect(server.events('ns-a').map((event) => event.metadata.name)).toEqual([
        'via-client-1',
        'via-client-2',
        'via-client-3',
      ]);
    });

    describe('failNext with Retry-After, failNextTimes', () => {
      it('answers a 429 as the real server does: TooManyRequests, Retry-After 1 by default', async () => {
        server.failNext(429, 'POST');

        const response = await post('busy-1');

        expect(response.status).toBe(429);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(await response.json()).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Too many requests, please try again later.',
          reason: 'TooManyRequests',
          details: { retryAfterSeconds: 1 },
          code: 429,
        });
        expect(server.event('ns-a', 'busy-1')).toBeUndefined();
      });

      it('sends the Retry-After asked for, on a 429 or a 503', async () => {
        server.failNext(429, 'POST', { retryAfterSeconds: 4 }).failNext(503, 'POST', { retryAfterSeconds: 2 });

        const tooMany = await post('busy-2');
        const unavailable = await post('busy-2');

        expect(tooMany.headers.get('retry-after')).toBe('4');
        expect(await tooMany.json()).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 4 } });
        expect(unavailable.status).toBe(503);
        expect(unavailable.headers.get('retry-after')).toBe('2');
        expect(await unavailable.json()).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the server is currently unable to handle the request',
          reason: 'ServiceUnavailable',
          details: { retryAfterSeconds: 2 },
          code: 503,
        });
      });

      it('sends no Retry-After on a plain 503, nor on a 429 with retryAfterSeconds 0', async () => {
        server.failNext(503, 'POST').failNext(429, 'POST', { retryAfterSeconds: 0, message: 'slow down' });

        const unavailable = await post('busy-3');
        const tooMany = await post('busy-3');

        expect(unavailable.headers.get('retry-after')).toBeNull();
        expect(await unavailable.json()).toEqual(expect.not.objectContaining({ details: expect.anything() }));
        expect(tooMany.headers.get('retry-after')).toBeNull();
        expect(await tooMany.json()).toMatchObject({ reason: 'TooManyRequests', message: 'slow down', code: 429 });
      });

      it('failNextTimes: the next n matching requests fail, others pass, then it answers normally', async () => {
        server.failNextTimes(3, 503, 'POST', { retryAfterSeconds: 1 });

        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          statuses.push((await post('outage-1')).status);
          statuses.push((await fetch(collection())).status); // a list is not matched
        }
        statuses.push((await post('outage-1')).status);

        expect(statuses).toEqual([503, 200, 503, 200, 503, 200, 201]);
        expect(server.pendingScenarios).toBe(0);
        expect(server.countHistory('ns-a', 'outage-1')).toEqual([1]);
      });
    });

    describe('outage', () => {
      it('without a status, resets every connection until it is over, applying nothing', async () => {
        server.outage(150);

        await expect(post('down-1')).rejects.toMatchObject({ name: 'TypeError', cause: { code: 'ECONNRESET' } });
        await expect(fetch(collection())).rejects.toMatchObject({ name: 'TypeError', cause: { code: 'ECONNRESET' } });
        expect(server.events()).toEqual([]);
        expect(server.requests.map((request) => [request.verb, request.status, request.answerCut])).toEqual([
          ['create', undefined, 'reset'],
          ['list', undefined, 'reset'],
        ]);
        expect(server.log()).toEqual(['create ns-a → reset', 'list ns-a → reset']);

        await sleep(160); // real time: the outage under test lasts 150 ms of it
        expect((await post('down-1')).status).toBe(201);
      });

      it('with a status, answers it (and its Retry-After) to the matching requests only, and uses no scenario', async () => {
        await createdNamed('down-2');
        server.failNext(500, 'PATCH').outage(10_000, { status: 503, retryAfterSeconds: 2, match: 'PATCH' });

        const during = await seriesPatch('down-2', 2);
        const read = await fetch(item('down-2'));
        server.endOutage();
        const afterwards = await seriesPatch('down-2', 2);

        expect(during.status).toBe(503);
        expect(during.headers.get('retry-after')).toBe('2');
        expect(await during.json()).toMatchObject({ reason: 'ServiceUnavailable', details: { retryAfterSeconds: 2 } });
        expect(read.status).toBe(200);
        expect(afterwards.status).toBe(500); // the failNext scripted before the outage
        expect(server.seriesCount('ns-a', 'down-2')).toBe(1);
      });

      it('reset() ends it', async () => {
        server.outage(10_000);
        server.reset();

        expect((await post('down-3')).status).toBe(201);
      });
    });

    describe('seriesCount, countHistory', () => {
      it('records the count the server held after each applied write, a no-op patch included', async () => {
        await createdNamed('hist-1');
        await seriesPatch('hist-1', 2);
        await seriesPatch('hist-1', 3);
        await seriesPatch('hist-1', 3); // changes nothing, but was applied
        server.failNext(500, 'PATCH');
        await seriesPatch('hist-1', 4); // not applied
        await seriesPatch('hist-1', 1); // 422: not applied

        expect(server.seriesCount('ns-a', 'hist-1')).toBe(3);
        expect(server.countHistory('ns-a', 'hist-1')).toEqual([1, 2, 3, 3]);
        expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3', 'PATCH 3', 'PATCH 4', 'PATCH 1']);
        expect(server.requests.map((request) => request.applied?.seriesCount)).toEqual([
          1,
          2,
          3,
          3,
          undefined,
          undefined,
        ]);
        expect(server.seriesCount('ns-a', 'missing')).toBeUndefined();
        expect(server.countHistory('ns-a', 'missing')).toEqual([]);
      });

      it('keeps the order in which writes were applied, so a late write that lowers the count shows', async () => {
        await createdNamed('hist-2');
        server.delayNext(100, 'PATCH');

        const late = seriesPatch('hist-2', 2);
        await server.waitForRequests(1, 'PATCH');
        expect((await seriesPatch('hist-2', 3)).status).toBe(200);
        expect((await late).status).toBe(200);

        expect(server.countHistory('ns-a', 'hist-2')).toEqual([1, 3, 2]);
        expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3']);
      });
    });

    describe('preconditions and reads', () => {
      it('answers 409 Conflict to a merge patch with a stale metadata.resourceVersion, and applies it with the current one', async () => {
        const first = await createdNamed('rv-1');
        const second = (await (await seriesPatch('rv-1', 2, first)).json()) as {
          metadata: { resourceVersion: string };
        };

        const stale = await seriesPatch('rv-1', 3, first);

        expect(stale.status).toBe(409);
        expect(await stale.json()).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'Operation cannot be fulfilled on events.events.k8s.io "rv-1": the object has been modified; please apply your changes to the latest version and try again',
          reason: 'Conflict',
          details: { name: 'rv-1', group: 'events.k8s.io', kind: 'events' },
          code: 409,
        });
        expect(server.event('ns-a', 'rv-1')?.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
        expect(server.countHistory('ns-a', 'rv-1')).toEqual([1, 2]);

        const current = await seriesPatch('rv-1', 3, second.metadata.resourceVersion);
        expect(current.status).toBe(200);
        const third = (await current.json()) as { metadata: { resourceVersion: string }; series: { count: number } };
        expect(third.series.count).toBe(3);
        expect(Number(third.metadata.resourceVersion)).toBeGreaterThan(Number(second.metadata.resourceVersion));
      });

      it('answers 409 AlreadyExists to a create of a name that exists', async () => {
        await createdNamed('dup-1');

        const again = await post('dup-1');

        expect(again.status).toBe(409);
        expect(await again.json()).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'events.events.k8s.io "dup-1" already exists',
          reason: 'AlreadyExists',
          details: { name: 'dup-1', group: 'events.k8s.io', kind: 'events' },
          code: 409,
        });
        expect(server.events('ns-a')).toHaveLength(1);
        expect(server.countHistory('ns-a', 'dup-1')).toEqual([1]);
      });

      it('GET of one Event returns it with its current metadata.resourceVersion', async () => {
        const created = await createdNamed('get-1');
        const patched = (await (await seriesPatch('get-1', 2)).json()) as { metadata: { resourceVersion: string } };

        const response = await fetch(item('get-1'));

        expect(response.status).toBe(200);
        const event = (await response.json()) as {
          kind: string;
          metadata: { name: string; resourceVersion: string };
          series: unknown;
        };
        expect(event).toMatchObject({
          kind: 'Event',
          apiVersion: 'events.k8s.io/v1',
          metadata: { name: 'get-1', namespace: 'ns-a' },
        });
        expect(event.metadata.resourceVersion).toBe(patched.metadata.resourceVersion);
        expect(event.metadata.resourceVersion).not.toBe(created);
        expect(event.series).toEqual({ count: 2, lastObservedTime: '2026-01-02T03:04:06.000000Z' });
        expect(server.verbs()).toEqual(['create', 'patch', 'get']);
      });
    });

    describe('delayNext and a client that left', () => {
      it('applies a POST whose client aborted after 50 ms when the delay ends (a late write)', async () => {
        server.delayNext(300, 'POST', { applyIfAborted: true });
        const started = Date.now();

        await expect(post('late-1', AbortSignal.timeout(50))).rejects.toMatchObject({ name: 'TimeoutError' });
        await server.waitForAborted(1);
        expect(server.event('ns-a', 'late-1')).toBeUndefined();

        const [write] = await server.waitForRequests(1, (request) => request.applied !== undefined);
        const appliedAfter = Date.now() - started;

        expect(appliedAfter).toBeGreaterThanOrEqual(290);
        expect(server.event('ns-a', 'late-1')).toBeDefined();
        expect(write).toMatchObject({ delayedMs: 300, aborted: true, status: 201, applied: { name: 'late-1' } });
        expect(server.countHistory('ns-a', 'late-1')).toEqual([1]);
      });

      it('drops it with applyIfAborted: false', async () => {
        server.delayNext(100, 'POST', { applyIfAborted: false });

        await expect(post('late-2', AbortSignal.timeout(30))).rejects.toMatchObject({ name: 'TimeoutError' });
        await server.waitForFinished();

        expect(server.event('ns-a', 'late-2')).toBeUndefined();
        expect(server.requests[0]).toMatchObject({ aborted: true, delayedMs: 100 });
        expect(server.requests[0]?.status).toBeUndefined();
      });

      it('waitForFinished() settles once a delayed write has landed, not when it arrives', async () => {
        server.delayNext(100, 'POST');

        const answer = post('late-3');
        await server.waitForRequests(1);
        expect(server.event('ns-a', 'late-3')).toBeUndefined();
        await server.waitForFinished();

        expect(server.event('ns-a', 'late-3')).toBeDefined();
        expect((await answer).status).toBe(201);
      });
    });
  });

  it('close() ends hung requests, so nothing stays open', async () => {
    const other = await FakeApiServer.start();
    const otherApi = other.kubeConfig().makeApiClient(EventsV1Api);
    other.hangNext();

    const hung = otherApi.createNamespacedEvent({
      namespace: 'anywhere',
      body: eventBody({ regarding: { namespace: 'anywhere' } }),
    });
    await other.waitForRequests(1);
    await other.close();

    await expect(hung).rejects.toThrow();
    expect(other.aborted).toBe(0);
  });
});
