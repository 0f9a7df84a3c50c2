// KEP-5915's reading side: with `traceLink`, a @PublishesFailures reconcile runs in a root span of kind
// consumer linked to the trace context its object's annotation carries, and the failure Event names that span.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { SpanKind, trace } from '@opentelemetry/api';
import { PublishesFailures } from 'nestjs-kube-events';
import { FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { inMemoryTracing, spansThrowingOnEnd, traceGloballyWith } from '../support/in-memory-tracing.js';

const tracing = inMemoryTracing();
const APPLIED = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

@Injectable()
class WidgetReconciler {
  @PublishesFailures({ traceLink: true })
  async reconcile(object: KubernetesObject): Promise<void> {
    throw new Error(`cannot sync ${object.metadata?.name} with password=hunter2-secret`);
  }

  @PublishesFailures({ traceLink: { annotation: 'traceparent' }, reason: 'PipelineFailed' })
  async run(object: KubernetesObject): Promise<string> {
    return `ran ${object.metadata?.name}`;
  }
}

const widget = (annotations?: Record<string, string>): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'shop', uid: 'uid-w1', ...(annotations && { annotations }) },
});

describe('@PublishesFailures({ traceLink })', () => {
  traceGloballyWith(tracing);
  let app: TestingModule;

  beforeEach(async () => {
    app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot()],
      providers: [WidgetReconciler],
    }).compile();
    await app.init();
  });
  afterEach(() => app.close());

  const reconcileSpans = () =>
    tracing.spans.getFinishedSpans().filter((span) => span.name.startsWith('WidgetReconciler.'));

  it("starts a root consumer span linked to the object's traceparent, and the failure Event names it", async () => {
    // Called inside another span (an informer's): the reconcile's is a root of its own all the same.
    const informer = await trace.getTracer('test').startActiveSpan('informer', async (active) => {
      const annotations = { 'tracing.k8s.io/traceparent': APPLIED, 'tracing.k8s.io/tracestate': 'vendor=opaque' };
      await app
        .get(WidgetReconciler)
        .reconcile(widget(annotations))
        .catch(() => undefined);
      active.end();
      return active.spanContext();
    });

    const [span] = reconcileSpans();
    expect(span).toMatchObject({ name: 'WidgetReconciler.reconcile', kind: SpanKind.CONSUMER });
    // A root: neither the informer's trace nor the applied one (which it links to).
    expect([informer.traceId, '4bf92f3577b34da6a3ce929d0e0e4736']).not.toContain(span.spanContext().traceId);
    expect(span.links).toEqual([
      expect.objectContaining({
        context: expect.objectContaining({
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '00f067aa0ba902b7',
          isRemote: true,
        }),
      }),
    ]);
    expect(span.links[0].context.traceState?.serialize()).toBe('vendor=opaque');
    expect(span.attributes).toEqual({
      'k8s.object.kind': 'Widget',
      'k8s.object.name': 'w1',
      'k8s.namespace.name': 'shop',
      'k8s.object.uid': 'uid-w1',
    });
    // A span goes to a collector: the error it records is redacted.
    expect(JSON.stringify(span.events)).not.toContain('hunter2-secret');
    expect(span.status.code).toBe(2);

    const event = app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed' });
    const { traceId, spanId } = span.spanContext();
    expect(event.annotations?.['tracing.k8s.io/traceparent']).toBe(`00-${traceId}-${spanId}-01`);
  });

  it.each([
    ['no annotation', undefined],
    ['an invalid traceparent', { 'tracing.k8s.io/traceparent': '00-0000-bad' }],
    ['an all-zero trace id', { 'tracing.k8s.io/traceparent': `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }],
  ])('starts the span without a link for %s, and nothing else changes', async (_label, annotations) => {
    await app
      .get(WidgetReconciler)
      .reconcile(widget(annotations))
      .catch(() => undefined);

    const [span] = reconcileSpans();
    expect(span.links).toEqual([]);
    app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed', count: 1 });
  });

  it('runs the reconcile without its span when the tracing SDK fails to start one, and still reports it', async () => {
    // A faulty sampler throws from startSpan: the reconcile runs, and fails or returns as it would untraced.
    const startSpan = jest
      .spyOn(tracing.provider.getTracer('nestjs-kube-events'), 'startSpan')
      .mockImplementation(() => {
        throw new Error('the sampler failed');
      });
    try {
      const reconciler = app.get(WidgetReconciler);
      await expect(reconciler.reconcile(widget({ 'tracing.k8s.io/traceparent': APPLIED }))).rejects.toThrow(
        'cannot sync w1',
      );
      await expect(reconciler.run(widget())).resolves.toBe('ran w1');

      expect(startSpan.mock.calls.map(([name]) => name)).toEqual(
        expect.arrayContaining(['WidgetReconciler.reconcile', 'WidgetReconciler.run']),
      );
      expect(reconcileSpans()).toEqual([]);
      app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed', count: 1 });
    } finally {
      startSpan.mockRestore();
    }
  });

  it('keeps the reconcile’s error when the tracing SDK throws as its span ends', async () => {
    const spy = spansThrowingOnEnd(tracing.provider.getTracer('nestjs-kube-events'));
    try {
      await expect(app.get(WidgetReconciler).reconcile(widget())).rejects.toThrow('cannot sync w1');
      await expect(app.get(WidgetReconciler).run(widget())).resolves.toBe('ran w1');
      expect(spy.mock.calls.map(([name]) => name)).toEqual(
        expect.arrayContaining(['WidgetReconciler.reconcile', 'WidgetReconciler.run']),
      );
    } finally {
      spy.mockRestore();
    }
  });

  it('reads the annotation a project names, and keeps the return value', async () => {
    await expect(app.get(WidgetReconciler).run(widget({ traceparent: APPLIED }))).resolves.toBe('ran w1');

    const [span] = reconcileSpans();
    expect(span).toMatchObject({ name: 'WidgetReconciler.run', kind: SpanKind.CONSUMER });
    expect(span.links.map((link) => link.context.traceId)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736']);
    expect(span.status.code).toBe(0);
  });
});
