import { jest } from '@jest/globals';
import {
  context,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Span,
  type SpanContext,
  type TraceState,
} from '@opentelemetry/api';
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishesFailures, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer, type StoredEvent } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { inMemoryTracing, spansThrowingOnEnd, traceGloballyWith } from '../support/in-memory-tracing.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { MAX_CALLER_ANNOTATIONS_BYTES } from '../../libs/kube-events/src/event-rules/annotation-bytes.js';

const TRACEPARENT = 'tracing.k8s.io/traceparent';
const TRACESTATE = 'tracing.k8s.io/tracestate';

const tracing = inMemoryTracing();
const { spans, provider } = tracing;
const tracer = provider.getTracer('reconciler');

/** Runs `work` in a new active span, as an instrumented reconcile would, and says which span it was. */
async function inSpan(name: string, work: () => Promise<unknown>): Promise<Span> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      await work();
      return span;
    } finally {
      span.end();
    }
  });
}

@Injectable()
class FailingReconciler {
  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    await Promise.resolve(); // the reconcile's own asynchronous work, in its span
    throw new Error(`source of ${object.metadata?.name} is missing`);
  }
}

/** A vendor's own TraceState, which serialises to whatever it was given (OpenTelemetry's own parses and checks). */
class VerbatimTraceState implements TraceState {
  constructor(private readonly serialized: () => string) {}
  set(): TraceState {
    return this;
  }
  unset(): TraceState {
    return this;
  }
  get(): string | undefined {
    return undefined;
  }
  serialize(): string {
    return this.serialized();
  }
}

const REMOTE: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: 1,
  isRemote: true,
};
const REMOTE_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Runs `work` with `spanContext` as the active span's, as a propagated or hand-made context would be. */
const withSpanContext = <T>(spanContext: SpanContext, work: () => Promise<T>): Promise<T> =>
  context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), work);

/** What the spans of the test and of the library have in common: their context. */
type ReadableSpanLike = Pick<Span, 'spanContext'>;

const traceparentOf = (span: Span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
const writeSpans = () =>
  spans.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'nestjs-kube-events');

describe('trace context on Events', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);
  const stored = (): StoredEvent[] => server.events('default');

  traceGloballyWith(tracing);
  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await shutDown();
    await server.close();
  });

  it('writes the traceparent of the span a publish runs in on the Event it creates', async () => {
    const recorder = recorderWith();
    const span = await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));

    const [event] = stored();
    expect(event.metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(span) });
  });

  it("writes the span's tracestate too, never its baggage", async () => {
    const recorder = recorderWith();
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      traceState: createTraceState('vendor=opaque,other=1'),
      isRemote: true,
    });
    const baggage = propagation.setBaggage(remote, propagation.createBaggage({ tenant: { value: 'secret' } }));
    await context.with(baggage, () => inSpan('reconcile', () => recorder.publish(configMap(), syncFailed)));

    const annotations = stored()[0].metadata.annotations!;
    expect(annotations[TRACEPARENT]).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(annotations[TRACESTATE]).toBe('vendor=opaque,other=1');
    expect(Object.keys(annotations).sort()).toEqual([TRACEPARENT, TRACESTATE]);
  });

  it('keeps the caller’s annotations beside the trace context', async () => {
    const recorder = recorderWith();
    const event: KubeEvent = { ...syncFailed, annotations: { 'example.com/run': '7' } };
    const span = await inSpan('reconcile', () => recorder.publish(configMap(), event));

    expect(stored()[0].metadata.annotations).toEqual({ 'example.com/run': '7', [TRACEPARENT]: traceparentOf(span) });
  });

  it('never splits a series: each repeat moves the annotation to its own trace in the patch that counts it', async () => {
    const recorder = recorderWith();
    const reconciles: Span[] = [];
    for (let i = 0; i < 3; i++)
      reconciles.push(await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed)));

    const [event] = stored();
    expect(stored()).toHaveLength(1);
    expect(event.series?.count).toBe(3);
    expect(event.metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(reconciles[2]) });
    const [, patch] = server.writes();
    expect(patch.contentType).toBe('application/merge-patch+json');
    expect(patch.body).toEqual({
      metadata: {
        resourceVersion: expect.any(String),
        annotations: { [TRACEPARENT]: traceparentOf(reconciles[1]), [TRACESTATE]: null },
      },
      series: { count: 2, lastObservedTime: expect.any(String) },
    });
  });

  it('keeps the latest trace when a repeat runs in no span, with a patch the same as without OpenTelemetry', async () => {
    const recorder = recorderWith();
    const traced = await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));
    await recorder.publish(configMap(), syncFailed);

    const [event] = stored();
    expect(event.series?.count).toBe(2);
    expect(event.metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(traced) });
    expect(server.writes()[1].body).toEqual({
      metadata: { resourceVersion: expect.any(String) },
      series: { count: 2, lastObservedTime: expect.any(String) },
    });
  });

  it('drops a tracestate the latest trace does not have', async () => {
    const recorder = recorderWith();
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      traceState: createTraceState('vendor=opaque'),
      isRemote: true,
    });
    await context.with(remote, () => inSpan('reconcile', () => recorder.publish(configMap(), syncFailed)));
    const latest = await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));

    expect(stored()[0].metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(latest) });
  });

  it('names the trace of the latest of the occurrences one write carries', async () => {
    const recorder = recorderWith();
    const published: Promise<void>[] = [];
    const reconciles = await Promise.all(
      ['first', 'second', 'third'].map((name) =>
        inSpan(name, async () => {
          published.push(recorder.publish(configMap(), syncFailed));
        }),
      ),
    );
    await Promise.all(published);

    const [event] = stored();
    expect(event.series?.count).toBe(3);
    expect(server.writes()).toHaveLength(2);
    expect(event.metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(reconciles[2]) });
  });

  it('writes no annotation when no span is active', async () => {
    await recorderWith().publish(configMap(), syncFailed);

    expect(stored()[0].metadata.annotations).toBeUndefined();
  });

  it('writes no trace annotation with traceContext: false, and none in its patches', async () => {
    const recorder = recorderWith({ traceContext: false });
    await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));
    await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));

    expect(stored()[0].metadata.annotations).toBeUndefined();
    expect(server.writes()[1].body).toEqual({
      metadata: { resourceVersion: expect.any(String) },
      series: { count: 2, lastObservedTime: expect.any(String) },
    });
    expect(writeSpans().map((span) => span.name)).toEqual(['create Event', 'patch Event']);
  });

  it('writes the annotations under the configured prefix', async () => {
    const recorder = recorderWith({ traceContext: { prefix: 'tracing.example.com' } });
    const span = await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));

    expect(stored()[0].metadata.annotations).toEqual({ 'tracing.example.com/traceparent': traceparentOf(span) });
  });

  it('runs each write in an internal span, a child of the publishing span, with the Event’s identity', async () => {
    const recorder = recorderWith();
    const object: KubernetesObject = configMap('app');
    const first = await inSpan('reconcile', () => recorder.publish(object, syncFailed));
    const second = await inSpan('reconcile', () => recorder.publish(object, syncFailed));

    const [create, patch] = writeSpans();
    const [event] = stored();
    expect(create.name).toBe('create Event');
    expect(create.kind).toBe(SpanKind.INTERNAL);
    expect(create.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
    expect(create.spanContext().traceId).toBe(first.spanContext().traceId);
    expect(create.attributes).toEqual({
      'k8s.event.reason': 'SyncFailed',
      'k8s.event.action': 'Sync',
      'k8s.event.name': event.metadata.name,
      'k8s.event.uid': event.metadata.uid,
      'k8s.event.count': 1,
      'k8s.namespace.name': 'default',
      'k8s.object.kind': 'ConfigMap',
      'k8s.object.name': 'app',
      'k8s.object.uid': 'uid-app',
      'kube_events.write.result': 'created',
    });
    expect(patch.name).toBe('patch Event');
    expect(patch.parentSpanContext?.spanId).toBe(second.spanContext().spanId);
    expect(patch.attributes).toMatchObject({ 'k8s.event.count': 2, 'kube_events.write.result': 'patched' });
    expect(create.attributes).not.toHaveProperty('k8s.event.note');
  });

  it('makes the write of an occurrence published in no span a root span', async () => {
    const recorder = recorderWith();
    await recorder.publish(configMap(), syncFailed);

    const [create] = writeSpans();
    expect(create.parentSpanContext).toBeUndefined();
  });

  it('records a refused write’s error on its span', async () => {
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');
    const recorder = recorderWith();
    await expect(inSpan('reconcile', () => recorder.publish(configMap(), syncFailed))).rejects.toMatchObject({
      statusCode: 403,
    });

    const [create] = writeSpans();
    expect(create.status).toMatchObject({ code: 2, message: expect.stringContaining('forbidden') });
    expect(create.attributes['error.type']).toBe('403');
    expect(create.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('writes the Event without a span when the tracing SDK fails to start one', async () => {
    // A faulty sampler or processor throws from startSpan: tracing must not cost the object its Event.
    const startSpan = jest.spyOn(provider.getTracer('nestjs-kube-events'), 'startSpan').mockImplementation(() => {
      throw new Error('the sampler failed');
    });
    try {
      const recorder = recorderWith();
      await recorder.publish(configMap('app'), syncFailed);
      await recorder.publish(configMap('app'), syncFailed);

      expect(startSpan).toHaveBeenCalledTimes(2);
      expect(writeSpans()).toEqual([]);
      expect(stored()).toHaveLength(1);
      expect(stored()[0].series?.count).toBe(2);
    } finally {
      startSpan.mockRestore();
    }
  });

  it('keeps the write when the tracing SDK throws as its span ends', async () => {
    // A faulty processor throws from end(): the Event is written all the same, and its publish resolves.
    const spy = spansThrowingOnEnd(provider.getTracer('nestjs-kube-events'));
    try {
      const recorder = recorderWith();
      await recorder.publish(configMap('app'), syncFailed);
      await recorder.publish(configMap('app'), syncFailed);

      expect(spy).toHaveBeenCalledTimes(2);
      expect(stored()).toHaveLength(1);
      expect(stored()[0].series?.count).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('writes no span with writeSpans: false, and still the annotation', async () => {
    const recorder = recorderWith({ writeSpans: false });
    const span = await inSpan('reconcile', () => recorder.publish(configMap(), syncFailed));

    expect(writeSpans()).toEqual([]);
    expect(stored()[0].metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(span) });
  });

  describe('the write span’s context, sent as traceparent so that a traced API server’s span is its child', () => {
    const eventRequests = () => server.requests.filter((request) => request.path.includes('/events'));
    const headersOf = (span: ReadableSpanLike) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

    it('sends each write’s own span context on its request, and its tracestate', async () => {
      const recorder = recorderWith();
      const state = createTraceState('vendor=opaque');
      await withSpanContext({ ...REMOTE, traceState: state }, () =>
        inSpan('reconcile', () => recorder.publish(configMap('app'), syncFailed)),
      );
      await inSpan('reconcile', () => recorder.publish(configMap('app'), syncFailed));

      const [create, patch] = writeSpans();
      const [post, merge] = eventRequests();
      expect(post.method).toBe('POST');
      expect(post.headers.traceparent).toBe(headersOf(create));
      expect(post.headers.tracestate).toBe('vendor=opaque');
      expect(merge.method).toBe('PATCH');
      expect(merge.headers.traceparent).toBe(headersOf(patch));
      expect(merge.headers).not.toHaveProperty('tracestate');
    });

    it('sends it on the read that follows a conflict, within the same write', async () => {
      const recorder = recorderWith();
      await recorder.publish(configMap('app'), syncFailed);
      server.failNext(409, 'PATCH', 'Conflict', 'the object has been modified');
      await recorder.publish(configMap('app'), syncFailed);

      const [, patch] = writeSpans();
      const [, refused, read] = eventRequests();
      expect([refused.method, read.method]).toEqual(['PATCH', 'GET']);
      expect(read.headers.traceparent).toBe(headersOf(patch));
      expect(refused.headers.traceparent).toBe(headersOf(patch));
    });

    it('sends it from a recorded write span only: none when the sampler drops it, with writeSpans: false, or when the SDK fails to start it', async () => {
      // Published in a trace its caller chose not to sample: the write's span, parent-based, is not recorded.
      const recorder = recorderWith();
      await withSpanContext({ ...REMOTE, traceFlags: 0 }, () => recorder.publish(configMap('unsampled'), syncFailed));
      expect(stored()[0].metadata.annotations).toEqual({
        [TRACEPARENT]: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      });
      // No write span at all.
      await inSpan('reconcile', () => recorderWith({ writeSpans: false }).publish(configMap('unspanned'), syncFailed));
      const startSpan = jest.spyOn(provider.getTracer('nestjs-kube-events'), 'startSpan').mockImplementation(() => {
        throw new Error('the sampler failed');
      });
      try {
        await inSpan('reconcile', () => recorder.publish(configMap('unstarted'), syncFailed));
      } finally {
        startSpan.mockRestore();
      }
      expect(eventRequests().map((request) => request.headers.traceparent)).toEqual([undefined, undefined, undefined]);

      // The same recorder, its write in a span the SDK records.
      await inSpan('reconcile', () => recorder.publish(configMap('sampled'), syncFailed));
      const [write] = writeSpans();
      expect(eventRequests()[3].headers.traceparent).toBe(headersOf(write));
    });

    it('sends it through KubeEventsModule, and on no other request (access reviews)', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() })],
      }).compile();
      const app = await moduleRef.init();
      try {
        await inSpan('reconcile', () => app.get(EventRecorder).publish(configMap(), syncFailed));
        await server.waitForAccessReviews(3);

        const [create] = writeSpans();
        expect(eventRequests()[0].headers.traceparent).toBe(headersOf(create));
        const others = server.requestHeaders.filter(({ path }) => !path.includes('/events'));
        expect(others.length).toBeGreaterThan(0);
        for (const { headers } of others) expect(headers).not.toHaveProperty('traceparent');
      } finally {
        await app.close();
      }
    });
  });

  it('publishes a failure of @PublishesFailures in the context of the failing call', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() })],
      providers: [FailingReconciler],
    }).compile();
    const app = await moduleRef.init();
    try {
      const reconciler = app.get(FailingReconciler);
      const failing = await inSpan('reconcile', () => reconciler.reconcile(configMap()).catch(() => undefined));
      await inSpan('unrelated', async () => undefined);

      const [event] = stored();
      expect(event.reason).toBe('ReconcileFailed');
      expect(event.metadata.annotations).toEqual({ [TRACEPARENT]: traceparentOf(failing) });
    } finally {
      await app.close();
    }
  });

  it('keeps traceContext: false and writeSpans: false through KubeEventsModule', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          traceContext: false,
          writeSpans: false,
        }),
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      await inSpan('reconcile', () => app.get(EventRecorder).publish(configMap(), syncFailed));

      expect(stored()[0].metadata.annotations).toBeUndefined();
      expect(writeSpans()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  describe('only W3C trace context, never as given', () => {
    it.each<[string, string]>([
      ['a line break and a NUL', 'a=b\nrm -rf /\u0000'],
      ['300 KB', `vendor=${'x'.repeat(300 * 1024)}`],
      ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
      [
        'more than 512 characters in valid members',
        Array.from({ length: 3 }, (_, i) => `k${i}=${'v'.repeat(200)}`).join(','),
      ],
      ['an upper-case key', 'Vendor=opaque'],
      ['a key given twice', 'vendor=a,vendor=b'],
      ['a member without =', 'vendor'],
      ['a value with =', 'vendor=a=b'],
      ['a value beyond printable ASCII', 'vendor=caf\u00e9'],
      ['a tab inside a value', 'vendor=a\tb'],
    ])('leaves out a tracestate with %s, and writes the traceparent', async (_label, serialized) => {
      const recorder = recorderWith();
      const traceState = new VerbatimTraceState(() => serialized);
      await withSpanContext({ ...REMOTE, traceState }, () => recorder.publish(configMap(), syncFailed));

      expect(stored()[0].metadata.annotations).toEqual({ [TRACEPARENT]: REMOTE_TRACEPARENT });
    });

    it('writes a valid tracestate of 32 members and multi-tenant keys, without the optional white space', async () => {
      const recorder = recorderWith();
      const members = Array.from({ length: 31 }, (_, i) => `k${i}=v ${i}`);
      const serialized = ` ${members.join(' ,\t')}, tenant-1@vendor=opaque `;
      await withSpanContext({ ...REMOTE, traceState: new VerbatimTraceState(() => serialized) }, () =>
        recorder.publish(configMap(), syncFailed),
      );

      expect(stored()[0].metadata.annotations).toEqual({
        [TRACEPARENT]: REMOTE_TRACEPARENT,
        [TRACESTATE]: `${members.join(',')},tenant-1@vendor=opaque`,
      });
    });

    it('publishes without a tracestate when the TraceState throws or returns no string', async () => {
      const recorder = recorderWith();
      const throwing = new VerbatimTraceState(() => {
        throw new Error('vendor bug');
      });
      const notAString = new VerbatimTraceState(() => 42 as unknown as string);
      await withSpanContext({ ...REMOTE, traceState: throwing }, () => recorder.publish(configMap('a'), syncFailed));
      await withSpanContext({ ...REMOTE, traceState: notAString }, () => recorder.publish(configMap('b'), syncFailed));

      expect(stored().map((event) => event.metadata.annotations)).toEqual([
        { [TRACEPARENT]: REMOTE_TRACEPARENT },
        { [TRACEPARENT]: REMOTE_TRACEPARENT },
      ]);
    });

    it.each<[string, Partial<SpanContext>]>([
      ['an upper-case trace id', { traceId: '0AF7651916CD43DD8448EB211C80319C' }],
      ['an upper-case span id', { spanId: 'B7AD6B7169203331' }],
      ['an all-zero trace id', { traceId: '0'.repeat(32) }],
      ['an all-zero span id', { spanId: '0'.repeat(16) }],
      ['a short trace id', { traceId: '0af7651916cd43dd' }],
      ['flags beyond a byte', { traceFlags: 256 }],
      ['flags that are not an integer', { traceFlags: 1.5 }],
    ])('writes no trace context for a span context with %s, and publishes', async (_label, invalid) => {
      const recorder = recorderWith();
      const traceState = createTraceState('vendor=opaque');
      await withSpanContext({ ...REMOTE, traceState, ...invalid }, () => recorder.publish(configMap(), syncFailed));

      expect(stored()[0].metadata.annotations).toBeUndefined();
      expect(writeSpans()[0].parentSpanContext).toBeUndefined();
    });

    it('publishes without trace context when the active span throws from spanContext()', async () => {
      const recorder = recorderWith();
      const broken = trace.wrapSpanContext(REMOTE);
      broken.spanContext = () => {
        throw new Error('instrumentation bug');
      };
      await context.with(trace.setSpan(ROOT_CONTEXT, broken), () => recorder.publish(configMap(), syncFailed));

      expect(stored()).toHaveLength(1);
      expect(stored()[0].metadata.annotations).toBeUndefined();
    });
  });

  describe('within the API server’s 256 KiB of annotations', () => {
    // The 256 KiB, less the room the recorder keeps for its own annotations (write marks, series ended).
    const LIMIT = MAX_CALLER_ANNOTATIONS_BYTES;
    const KEY = 'example.com/payload';
    /** Caller annotations leaving `room` bytes of what callers may use. */
    const leaving = (room: number): KubeEvent => ({
      ...syncFailed,
      annotations: { [KEY]: 'v'.repeat(LIMIT - KEY.length - room) },
    });
    const TRACEPARENT_BYTES = TRACEPARENT.length + REMOTE_TRACEPARENT.length;
    const traced: SpanContext = { ...REMOTE, traceState: createTraceState('vendor=opaque') };
    const TRACESTATE_BYTES = TRACESTATE.length + 'vendor=opaque'.length;

    it('creates the Event without trace context when the caller’s annotations fill the limit', async () => {
      const recorder = recorderWith();
      const event = leaving(0);
      await withSpanContext(traced, () => recorder.publish(configMap(), event));

      expect(stored()[0].metadata.annotations).toEqual(event.annotations);
    });

    it('writes the traceparent alone when the tracestate does not fit beside it, and moves it in the patch', async () => {
      const recorder = recorderWith();
      const event = leaving(TRACEPARENT_BYTES + TRACESTATE_BYTES - 1);
      await withSpanContext(traced, () => recorder.publish(configMap(), event));
      const second = { ...traced, spanId: '00f067aa0ba902b7' };
      await withSpanContext(second, () => recorder.publish(configMap(), event));

      const [created] = stored();
      expect(stored()).toHaveLength(1);
      expect(created.series?.count).toBe(2);
      expect(created.metadata.annotations).toEqual({
        ...event.annotations,
        [TRACEPARENT]: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01',
      });
      expect(server.writes()[1].body).toMatchObject({
        metadata: {
          annotations: {
            [TRACEPARENT]: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01',
            [TRACESTATE]: null,
          },
        },
      });
    });

    it('writes both when they fit exactly, counting in UTF-8 bytes', async () => {
      const recorder = recorderWith();
      // '€' is 3 bytes: the room is counted in bytes, not characters.
      const room = LIMIT - KEY.length - 'pad'.length - TRACEPARENT_BYTES - TRACESTATE_BYTES;
      const euros = Math.floor(room / 3);
      const event: KubeEvent = {
        ...syncFailed,
        annotations: { [KEY]: '€'.repeat(euros), pad: 'p'.repeat(room - 3 * euros) },
      };
      await withSpanContext(traced, () => recorder.publish(configMap(), event));

      expect(stored()[0].metadata.annotations).toEqual({
        ...event.annotations,
        [TRACEPARENT]: REMOTE_TRACEPARENT,
        [TRACESTATE]: 'vendor=opaque',
      });
    });

    it('leaves a repeat’s patch without trace context when none fits, and counts it', async () => {
      const recorder = recorderWith();
      const event = leaving(TRACEPARENT_BYTES - 1);
      await withSpanContext(traced, () => recorder.publish(configMap(), event));
      await withSpanContext(traced, () => recorder.publish(configMap(), event));

      const [created] = stored();
      expect(created.series?.count).toBe(2);
      expect(created.metadata.annotations).toEqual(event.annotations);
      expect(server.writes()[1].body).toEqual({
        metadata: { resourceVersion: expect.any(String) },
        series: { count: 2, lastObservedTime: expect.any(String) },
      });
    });

    it('counts the caller’s own value under a trace key as replaced, not added', async () => {
      const recorder = recorderWith();
      const event: KubeEvent = {
        ...syncFailed,
        annotations: { [KEY]: 'v'.repeat(LIMIT - KEY.length - TRACEPARENT_BYTES), [TRACEPARENT]: 'stale' },
      };
      await withSpanContext(REMOTE, () => recorder.publish(configMap(), event));

      expect(stored()[0].metadata.annotations).toEqual({ ...event.annotations, [TRACEPARENT]: REMOTE_TRACEPARENT });
    });
  });
});
