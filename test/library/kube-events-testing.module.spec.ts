import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { TerminusModule } from '@nestjs/terminus';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  EventRecorder,
  getEventRecorderToken,
  InjectEventRecorder,
  InvalidEventError,
  KubeEventsHealth,
  KubeEventsMetrics,
  KubeEventsSink,
  MAX_NOTE_BYTES,
  PublishesFailures,
  type EventSink,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { FakeClock, FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { muteLogger } from '../support/logged-lines.js';

const widget = (name = 'w1'): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
});

/** A user's reconciler, as it would be written for production. */
@Injectable()
class WidgetReconciler {
  failWith: Error | undefined;

  constructor(readonly recorder: EventRecorder) {}

  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    if (this.failWith) throw this.failWith;
    await this.recorder.publish(object, { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'all good' });
  }
}

@Injectable()
class BillingReconciler {
  constructor(@InjectEventRecorder('billing') readonly recorder: EventRecorder) {}

  @PublishesFailures({ recorder: 'billing', reason: 'InvoiceFailed' })
  async reconcile(_object: KubernetesObject): Promise<void> {
    throw new Error('invoice rejected');
  }
}

@Module({ providers: [WidgetReconciler], exports: [WidgetReconciler] })
class WidgetsModule {}

describe('KubeEventsTestingModule', () => {
  let app: TestingModule;
  let reconciler: WidgetReconciler;
  let recorder: FakeEventRecorder;

  beforeEach(async () => {
    muteLogger('warn');
    app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot(), WidgetsModule],
    }).compile();
    await app.init();
    reconciler = app.get(WidgetReconciler);
    recorder = app.get(FakeEventRecorder);
  });
  afterEach(async () => {
    await app.close();
    jest.restoreAllMocks();
  });

  it("injects the fake under the recorder's own token, in modules that do not import it", () => {
    expect(recorder).toBeInstanceOf(EventRecorder);
    expect(app.get(EventRecorder)).toBe(recorder);
    expect(reconciler.recorder).toBe(recorder);
    expect(recorder.reporter).toEqual({ controller: 'kube-events-test', instance: 'kube-events-test' });
  });

  it('records the failure Event of a @PublishesFailures method, with its count, without any server', async () => {
    reconciler.failWith = new Error('source ConfigMap default/app not found');
    for (let attempt = 0; attempt < 3; attempt++)
      await expect(reconciler.reconcile(widget())).rejects.toThrow('not found');

    const event = recorder.expectEvent({ type: 'Warning', reason: 'ReconcileFailed', regarding: 'w1', count: 3 });
    expect(event).toMatchObject({
      namespace: 'default',
      action: 'Reconcile',
      note: 'source ConfigMap default/app not found',
      regarding: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', uid: 'uid-w1' },
      reportingController: 'kube-events-test',
      body: { series: { count: 3 } },
    });
    expect(recorder.events).toHaveLength(1);
  });

  it('folds concurrent failures as production does, the count exact once the reconciles return', async () => {
    reconciler.failWith = new Error('boom');
    await Promise.all(Array.from({ length: 20 }, () => reconciler.reconcile(widget()).catch(() => undefined)));
    recorder.expectEvent({ reason: 'ReconcileFailed', note: 'boom', count: 20 });
    expect(recorder.events).toHaveLength(1);
  });

  it('starts a new failure Event after a success, and keeps other events apart', async () => {
    reconciler.failWith = new Error('boom');
    await expect(reconciler.reconcile(widget())).rejects.toThrow();
    reconciler.failWith = undefined;
    await reconciler.reconcile(widget());
    reconciler.failWith = new Error('boom');
    await expect(reconciler.reconcile(widget())).rejects.toThrow();

    expect(recorder.events.map((event) => `${event.reason} ${event.count}`)).toEqual([
      'ReconcileFailed 1',
      'Synced 1',
      'ReconcileFailed 1',
    ]);
    recorder.expectEvent({ type: 'Normal', reason: 'Synced', note: /good/, regarding: { kind: 'Widget', name: 'w1' } });
  });

  it('validates and truncates as production does', async () => {
    await expect(recorder.publish(widget(), { type: 'Normal', reason: '', action: 'Sync' })).rejects.toBeInstanceOf(
      InvalidEventError,
    );
    await recorder.publish(widget(), { type: 'Warning', reason: 'Huge', action: 'Sync', note: 'é'.repeat(2_000) });
    const { note } = recorder.expectEvent({ reason: 'Huge' });
    expect(Buffer.byteLength(note!)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    expect(note!.endsWith('...')).toBe(true);
    expect(recorder.events).toHaveLength(1);
  });

  it('explains what was recorded when no Event matches', async () => {
    reconciler.failWith = new Error('boom');
    await expect(reconciler.reconcile(widget())).rejects.toThrow();
    expect(() => recorder.expectEvent({ reason: 'Synced' })).toThrow(
      /Expected an Event matching \{ reason: "Synced" \}, but none of the 1 recorded Event\(s\) matches:\n {2}- Warning ReconcileFailed \(Reconcile\) about Widget default\/w1, count 1: "boom"/,
    );
    expect(() => recorder.expectEvent({ reason: 'ReconcileFailed', count: 2 })).toThrow(/await recorder\.flush\(\)/);
    expect(() => recorder.expectNoEvent({ reason: 'ReconcileFailed' })).toThrow(/Expected no Event matching/);
    recorder.expectNoEvent({ reason: 'Synced' });
  });

  it('says a missing uid is why repeats did not fold, where the object has none', async () => {
    const uidless: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c1', namespace: 'default' },
    };
    reconciler.failWith = new Error('boom');
    await expect(reconciler.reconcile(uidless)).rejects.toThrow();
    await expect(reconciler.reconcile(uidless)).rejects.toThrow();
    expect(recorder.events.map((event) => event.count)).toEqual([1, 1]);
    const failure = (() => {
      try {
        recorder.expectEvent({ reason: 'ReconcileFailed', regarding: 'c1', count: 2 });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(failure).toMatch(/has no metadata\.uid/);
    expect(failure).not.toMatch(/flush\(\)/);
  });

  it('clear() forgets the Events; a repeat then starts a new Event', async () => {
    reconciler.failWith = new Error('boom');
    await expect(reconciler.reconcile(widget())).rejects.toThrow();
    await expect(reconciler.reconcile(widget())).rejects.toThrow();
    recorder.clear();
    expect(recorder.events).toHaveLength(0);
    expect(() => recorder.expectEvent({ reason: 'ReconcileFailed' })).toThrow(/no Event was recorded/);
    await expect(reconciler.reconcile(widget())).rejects.toThrow();
    recorder.expectEvent({ reason: 'ReconcileFailed', count: 1 });
  });

  it('never blocks: thousands of distinct Events are all recorded', async () => {
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) =>
        recorder.publish(widget(`w${i}`), { type: 'Normal', reason: 'Synced', action: 'Sync' }),
      ),
    );
    expect(recorder.events).toHaveLength(2_000);
  });

  it('feeds sinks and in-memory metrics', async () => {
    @KubeEventsSink()
    @Injectable()
    class CollectingSink implements EventSink {
      readonly kinds: string[] = [];
      handle(outcome: PublishOutcome) {
        this.kinds.push(outcome.kind);
      }
    }
    const withSink = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot({ reporter: { controller: 'widgets' } })],
      providers: [CollectingSink],
    }).compile();
    await withSink.init();
    await withSink.get(FakeEventRecorder).publish(widget(), { type: 'Normal', reason: 'Synced', action: 'Sync' });
    await withSink.get(FakeEventRecorder).publish(widget(), { type: 'Normal', reason: 'Synced', action: 'Sync' });
    expect(withSink.get(CollectingSink).kinds).toEqual(['created', 'patched']);
    expect(withSink.get(KubeEventsMetrics).snapshot().widgets).toMatchObject({ created: 1, patched: 1 });
    expect(withSink.get(KubeEventsMetrics).prometheus).toBe(false);
    await withSink.close();
  });

  it("provides the fake's health, which the terminus indicator reads as it reads a recorder's", async () => {
    const withHealth = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot(), TerminusModule],
      providers: [KubeEventsHealthIndicator],
    }).compile();
    await withHealth.init();
    await withHealth.get(FakeEventRecorder).publish(widget(), { type: 'Normal', reason: 'Synced', action: 'Sync' });

    expect(withHealth.get(KubeEventsHealth).state()).toMatchObject({
      writable: true,
      permissions: { scope: 'off', missing: [] },
      occurrences: { queued: 0, dropped: 0 },
    });
    expect(withHealth.get(KubeEventsHealthIndicator).isHealthy()['kube-events']).toMatchObject({
      status: 'up',
      server: 'reachable',
    });
    await withHealth.close();
  });

  it('stands in for a named recorder', async () => {
    const named = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot({ name: 'billing', reporter: { controller: 'billing' } })],
      providers: [BillingReconciler],
    }).compile();
    await named.init();
    const billing = named.get<FakeEventRecorder>(getEventRecorderToken('billing'));
    expect(named.get(BillingReconciler).recorder).toBe(billing);
    await expect(named.get(BillingReconciler).reconcile(widget())).rejects.toThrow('invoice rejected');
    expect(billing.expectEvent({ reason: 'InvoiceFailed' }).reportingController).toBe('billing');
    await named.close();
  });
});

describe('FakeEventRecorder without Nest', () => {
  it('works as a plain object', async () => {
    const clock = new FakeClock();
    const recorder = new FakeEventRecorder({
      reporter: { controller: 'example.com/widgets' },
      seriesWindow: 50,
      clock,
    });
    await recorder.publish(widget(), { type: 'Normal', reason: 'Synced', action: 'Sync' });
    await clock.advance(51);
    await recorder.publish(widget(), { type: 'Normal', reason: 'Synced', action: 'Sync' });
    expect(recorder.events.map((event) => event.count)).toEqual([1, 1]);
  });
});
