// @PublishesFailures and KubeEventsModule in a small Nest application against
// the real kube-apiserver: the scenarios of test/library/publishes-failures.spec.ts
// and kube-events.module.spec.ts that a real server can exercise, read back
// through the API. Each test has a fresh namespace, removed afterwards.
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, InjectEventRecorder, KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { CONTROLLER, MICRO_TIME, Scratch } from './support/library-fixtures.js';
import { lastProbe } from '../support/eventually.js';

@Injectable()
class MirrorReconciler {
  failWith: Error | undefined;

  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<string> {
    await Promise.resolve();
    if (this.failWith) throw this.failWith;
    return `synced ${object.metadata?.name}`;
  }

  /** Informer objects lack apiVersion/kind: the options fill them in. */
  @PublishesFailures({ resourceArg: 1, apiVersion: 'v1', kind: 'ConfigMap', reason: 'CheckFailed', action: 'Check' })
  check(_label: string, _item: KubernetesObject): number {
    if (this.failWith) throw this.failWith;
    return 7;
  }
}

@Injectable()
class BillingReconciler {
  constructor(@InjectEventRecorder('billing') readonly recorder: EventRecorder) {}

  @PublishesFailures({ recorder: 'billing' })
  async reconcile(_object: KubernetesObject): Promise<void> {
    throw new Error('invoice rejected');
  }
}

const BILLING = 'kube-events.e2e/billing-controller';

describe('@PublishesFailures in a Nest application against the real API server', () => {
  let scratch: Scratch;
  let app: TestingModule | undefined;
  let reconciler: MirrorReconciler;

  beforeEach(async () => {
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'failures-e2e');
    const kubeConfig = scratch.admin;
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER, instance: 'pod-0' }, kubeConfig }),
        KubeEventsModule.forRoot({ name: 'billing', reporter: { controller: BILLING }, kubeConfig }),
      ],
      providers: [MirrorReconciler, BillingReconciler],
    }).compile();
    await app.init();
    reconciler = app.get(MirrorReconciler);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await scratch?.cleanup();
  });

  it('publishes a Warning ReconcileFailed Event and rethrows the original error', async () => {
    const cm = await scratch.configMap('app-config');
    const error = new Error('source ConfigMap default/app not found');
    reconciler.failWith = error;
    await expect(reconciler.reconcile(cm)).rejects.toBe(error);

    const [event, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(event).toMatchObject({
      type: 'Warning',
      reason: 'ReconcileFailed',
      action: 'Reconcile',
      note: 'source ConfigMap default/app not found',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app-config', uid: cm.metadata!.uid },
      reportingController: CONTROLLER,
      reportingInstance: 'pod-0',
    });
    expect(String(event.eventTime)).toMatch(MICRO_TIME);
  });

  it('counts repeated failures of one object in one Event', async () => {
    const cm = await scratch.configMap('app-config');
    reconciler.failWith = new Error('source missing');
    for (let attempt = 0; attempt < 3; attempt++)
      await expect(reconciler.reconcile(cm)).rejects.toThrow('source missing');
    const events = await scratch.allEvents();
    expect(events.map((event) => event.series?.count)).toEqual([3]);
  });

  it('keeps the failure series apart from publish(), and starts a new failure Event after a successful reconcile', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = app!.get(EventRecorder);
    const same = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source missing' } as const;
    reconciler.failWith = new Error('source missing');
    await expect(reconciler.reconcile(cm)).rejects.toThrow(); // failure Event 1
    await recorder.publish(cm, same); // publish() Event 2, same content
    reconciler.failWith = undefined;
    await expect(reconciler.reconcile(cm)).resolves.toBe('synced app-config'); // forgets failure series only
    reconciler.failWith = new Error('source missing');
    await expect(reconciler.reconcile(cm)).rejects.toThrow(); // failure Event 3
    await recorder.publish(cm, same); // Event 2, count 2

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.note, event.series?.count])).toEqual([
      ['source missing', undefined],
      ['source missing', 2],
      ['source missing', undefined],
    ]);
  });

  it('fills in apiVersion/kind from the options for a synchronous method, and publishes in the background', async () => {
    const cm = await scratch.configMap('app-config');
    const informerItem = { metadata: cm.metadata }; // no apiVersion, no kind
    expect(reconciler.check('x', informerItem)).toBe(7);
    const error = new Error('bad shape');
    reconciler.failWith = error;
    expect(() => reconciler.check('x', informerItem)).toThrow(error);

    const events = await lastProbe(
      () => scratch.allEvents(),
      (found) => found.length > 0,
      { timeoutMs: 5_000, everyMs: 50 },
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      reason: 'CheckFailed',
      action: 'Check',
      note: 'bad shape',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app-config', uid: cm.metadata!.uid },
    });
  });

  it('publishes through the recorder it names, with that recorder’s reporter', async () => {
    const cm = await scratch.configMap('app-config');
    const billing = app!.get(BillingReconciler);
    await expect(billing.reconcile(cm)).rejects.toThrow('invoice rejected');
    await billing.recorder.publish(cm, { type: 'Normal', reason: 'Invoiced', action: 'Invoice' });
    await app!.get(EventRecorder).publish(cm, { type: 'Normal', reason: 'Synced', action: 'Sync' });

    const events = await scratch.allEvents();
    expect(events.map((event) => [event.reason, event.reportingController, event.reportingInstance])).toEqual([
      ['ReconcileFailed', BILLING, BILLING],
      ['Invoiced', BILLING, BILLING],
      ['Synced', CONTROLLER, 'pod-0'],
    ]);
  });
});
