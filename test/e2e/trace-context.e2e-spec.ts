// Trace context on Events against the real kube-apiserver: failing reconciles
// in OpenTelemetry spans (the SDK's in-memory exporter, AsyncLocalStorage
// context), read back through the API with client-node.
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { context, createTraceState, ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { KubeEventsModule, PublishesFailures, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { MAX_CALLER_ANNOTATIONS_BYTES } from '../../libs/kube-events/src/event-rules/annotation-bytes.js';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { CONTROLLER, Scratch } from './support/library-fixtures.js';
import { inMemoryTracing, traceGloballyWith } from '../support/in-memory-tracing.js';

const TRACEPARENT = 'tracing.k8s.io/traceparent';
const TRACESTATE = 'tracing.k8s.io/tracestate';

const tracing = inMemoryTracing();
const { spans, provider } = tracing;
const tracer = provider.getTracer('operator');

@Injectable()
class MirrorReconciler {
  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    await Promise.resolve();
    throw new Error(`source of ${object.metadata?.name} is missing`);
  }
}

/** A reconciler whose reconciles link to the trace that changed their object (KEP-5915's reading side). */
@Injectable()
class LinkedReconciler {
  @PublishesFailures({ traceLink: true })
  async reconcile(object: KubernetesObject): Promise<void> {
    await Promise.resolve();
    throw new Error(`source of ${object.metadata?.name} is missing`);
  }
}

/** One reconcile in a span of its own, as an instrumented controller runs it. */
function reconcileInSpan(reconciler: MirrorReconciler, object: KubernetesObject): Promise<Span> {
  return tracer.startActiveSpan('reconcile', async (span) => {
    await reconciler.reconcile(object).catch(() => undefined);
    span.end();
    return span;
  });
}

const writeSpans = () =>
  spans.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'nestjs-kube-events');

describe('trace context on Events against the real API server', () => {
  let scratch: Scratch;
  let app: TestingModule | undefined;

  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER }, kubeConfig: scratch.admin, ...options }),
      ],
      providers: [MirrorReconciler, LinkedReconciler],
    }).compile();
    await app.init();
    return app.get(MirrorReconciler);
  };

  traceGloballyWith(tracing);
  beforeEach(async () => {
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'tracing-e2e');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await scratch?.cleanup();
  });

  it('leaves one Event for three failing reconciles in three spans, naming the third span’s trace; a fourth outside any span counts on it and leaves the trace', async () => {
    const reconciler = await start();
    const cm = await scratch.configMap('app-config');
    const reconciles: Span[] = [];
    for (let attempt = 0; attempt < 3; attempt++) reconciles.push(await reconcileInSpan(reconciler, cm));

    const [event, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(event.series?.count).toBe(3);
    const third = reconciles[2].spanContext();
    expect(event.metadata?.annotations?.[TRACEPARENT]).toBe(`00-${third.traceId}-${third.spanId}-01`);
    expect(new Set(reconciles.map((span) => span.spanContext().traceId)).size).toBe(3);

    await reconciler.reconcile(cm).catch(() => undefined);
    const [after, ...othersAfter] = await scratch.allEvents();
    expect(othersAfter).toHaveLength(0);
    expect(after.metadata?.name).toBe(event.metadata?.name);
    expect(after.series?.count).toBe(4);
    expect(after.metadata?.annotations?.[TRACEPARENT]).toBe(`00-${third.traceId}-${third.spanId}-01`);
  });

  it('links the reconcile of an object created with a traceparent to that trace, and the Warning Event names the reconcile', async () => {
    await start();
    const reconciler = app!.get(LinkedReconciler);
    const applied = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const core = scratch.admin.makeApiClient(CoreV1Api);
    const create = (name: string, traceparent: string) =>
      core.createNamespacedConfigMap({
        namespace: scratch.namespace,
        body: { metadata: { name, annotations: { [TRACEPARENT]: traceparent } }, data: { key: 'value' } },
      });
    // As the server returns it: kind, apiVersion, uid, and the annotation kubectl apply would have left.
    const traced = await create('traced', applied);
    const invalid = await create('invalid', '00-not-a-trace-01');

    await reconciler.reconcile(traced).catch(() => undefined);
    await reconciler.reconcile(invalid).catch(() => undefined);

    const reconciles = spans.getFinishedSpans().filter((span) => span.name === 'LinkedReconciler.reconcile');
    expect(reconciles).toHaveLength(2);
    const [linked, unlinked] = reconciles;
    expect(linked.links.map((link) => link.context.traceId)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736']);
    expect(linked.attributes).toMatchObject({ 'k8s.object.name': 'traced', 'k8s.object.uid': traced.metadata!.uid });
    expect(unlinked.links).toEqual([]);

    const [event] = await scratch.eventsAbout(traced);
    const { traceId, spanId } = linked.spanContext();
    expect(event).toMatchObject({ type: 'Warning', reason: 'ReconcileFailed' });
    expect(event.metadata?.annotations?.[TRACEPARENT]).toBe(`00-${traceId}-${spanId}-01`);
    const [other] = await scratch.eventsAbout(invalid);
    expect(other).toMatchObject({ type: 'Warning', reason: 'ReconcileFailed', note: 'source of invalid is missing' });
  });

  it('runs each write in a span carrying the Event’s identity, a child of its reconcile', async () => {
    const reconciler = await start();
    const cm = await scratch.configMap('app-config');
    const first = await reconcileInSpan(reconciler, cm);
    const second = await reconcileInSpan(reconciler, cm);

    const [event] = await scratch.allEvents();
    const [create, patch] = writeSpans();
    expect(create.name).toBe('create Event');
    expect(create.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
    expect(create.attributes).toEqual({
      'k8s.event.reason': 'ReconcileFailed',
      'k8s.event.action': 'Reconcile',
      'k8s.event.name': event.metadata!.name,
      'k8s.event.uid': event.metadata!.uid,
      'k8s.event.count': 1,
      'k8s.namespace.name': scratch.namespace,
      'k8s.object.kind': 'ConfigMap',
      'k8s.object.name': 'app-config',
      'k8s.object.uid': cm.metadata!.uid,
      'kube_events.write.result': 'created',
    });
    expect(patch.name).toBe('patch Event');
    expect(patch.parentSpanContext?.spanId).toBe(second.spanContext().spanId);
    expect(patch.attributes).toMatchObject({
      'k8s.event.name': event.metadata!.name,
      'k8s.event.uid': event.metadata!.uid,
      'k8s.event.count': 2,
      'kube_events.write.result': 'patched',
    });
  });

  it('records the error of a write the server refused on its span', async () => {
    const reconciler = await start();
    // A namespace that does not exist: the server refuses the create (404 NotFound).
    const missing: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-config', namespace: `${scratch.namespace}-gone`, uid: 'uid-app-config' },
    };
    await reconcileInSpan(reconciler, missing);

    const [create] = writeSpans();
    expect(create.status.code).toBe(2);
    expect(create.attributes['error.type']).toBe('404');
    expect(create.events[0]).toMatchObject({ name: 'exception' });
  });

  it('writes no annotation with traceContext: false', async () => {
    const reconciler = await start({ traceContext: false });
    const cm = await scratch.configMap('app-config');
    await reconcileInSpan(reconciler, cm);
    await reconcileInSpan(reconciler, cm);

    const [event] = await scratch.allEvents();
    expect(event.series?.count).toBe(2);
    expect(event.metadata?.annotations).toBeUndefined();
  });

  it('continues, with resumeSeries, a series whose Event names another process’s trace, and moves it to the new one', async () => {
    const cm = await scratch.configMap('app-config');
    const failed = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source missing' } as const;
    const first = scratch.recorder({ resumeSeries: true });
    const before = await tracer.startActiveSpan('reconcile', async (span) => {
      await first.publishFailure(cm, failed);
      span.end();
      return span.spanContext();
    });
    const [left] = await scratch.allEvents();
    expect(left.metadata?.annotations?.[TRACEPARENT]).toBe(`00-${before.traceId}-${before.spanId}-01`);

    // Another process of the controller (a restart, a new leader) knows nothing of the series.
    const second = scratch.recorder({ resumeSeries: true });
    const after = await tracer.startActiveSpan('reconcile', async (span) => {
      await second.publishFailure(cm, failed);
      span.end();
      return span.spanContext();
    });
    const [continued, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(continued.metadata?.name).toBe(left.metadata?.name);
    expect(continued.series?.count).toBe(2);
    expect(continued.metadata?.annotations?.[TRACEPARENT]).toBe(`00-${after.traceId}-${after.spanId}-01`);
  });

  it('creates and counts an Event whose own annotations are just under what a caller may use of the 256 KiB, trace context giving way', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      traceState: createTraceState('vendor=opaque'),
      isRemote: true,
    });
    const inTrace = (work: () => Promise<void>) =>
      context.with(remote, () =>
        tracer.startActiveSpan('reconcile', async (span) => {
          await work();
          span.end();
          return span.spanContext();
        }),
      );
    const traceparentBytes = TRACEPARENT.length + 55;
    // Room for the traceparent and 10 bytes: the tracestate (38 bytes with its key) does not fit.
    const payload = 'v'.repeat(MAX_CALLER_ANNOTATIONS_BYTES - 'example.com/payload'.length - traceparentBytes - 10);
    const full = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source missing' } as const;
    const nearLimit = { ...full, annotations: { 'example.com/payload': payload } };
    const atLimit = {
      ...full,
      reason: 'SyncStuck',
      annotations: { 'example.com/payload': `${payload}${'v'.repeat(traceparentBytes + 10)}` },
    };

    const first = await inTrace(() => recorder.publish(cm, nearLimit));
    const second = await inTrace(() => recorder.publish(cm, nearLimit));
    await inTrace(() => recorder.publish(cm, atLimit));

    const events = await scratch.allEvents();
    const near = events.find((event) => event.reason === 'SyncFailed')!;
    const at = events.find((event) => event.reason === 'SyncStuck')!;
    expect(events).toHaveLength(2);
    expect(near.series?.count).toBe(2);
    expect(near.metadata?.annotations).toEqual({
      'example.com/payload': payload,
      [TRACEPARENT]: `00-${second.traceId}-${second.spanId}-01`,
    });
    expect(first.traceId).toBe(second.traceId);
    expect(at.metadata?.annotations).toEqual(atLimit.annotations);
    expect(Object.keys(near.metadata?.annotations ?? {})).not.toContain(TRACESTATE);
  });
});
