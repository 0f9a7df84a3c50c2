import { EventsV1Api, PatchStrategy, setHeaderOptions, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer } from '../test/support/fake-api-server/index.js';
import { median, microsPerOp, printTable, ratio } from './measure.js';

const reporter = { controller: 'bench.example.com/widget-controller', instance: 'bench-0' };
const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
};
const OBJECTS = 50;
const REPEATS = 4; // one create and three patches per object

const objectAt = (round: number, i: number): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${round}-${i}`, namespace: 'default', uid: `uid-${round}-${i}`, resourceVersion: '1' },
});

const microTime = () => `${new Date().toISOString().slice(0, -1)}000Z`;

/** The same requests, written by hand with client-node: a create, then merge patches of the series. */
async function byHand(api: EventsV1Api, round: number): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    const object = objectAt(round, i);
    const created = await api.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: `${object.metadata!.name}.${process.hrtime.bigint().toString(16)}`, namespace: 'default' },
        eventTime: microTime() as unknown as Date,
        type: failed.type,
        reason: failed.reason,
        action: failed.action,
        note: failed.note,
        regarding: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: object.metadata!.name,
          namespace: 'default',
          uid: object.metadata!.uid,
        },
        reportingController: reporter.controller,
        reportingInstance: reporter.instance,
      },
    });
    for (let count = 2; count <= REPEATS; count++) {
      await api.patchNamespacedEvent(
        {
          name: created.metadata!.name!,
          namespace: 'default',
          body: { series: { count, lastObservedTime: microTime() } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  }
}

async function byRecorder(recorder: EventRecorder, round: number): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    const object = objectAt(round, i);
    for (let n = 0; n < REPEATS; n++) await recorder.publish(object, failed);
  }
}

export async function httpOverhead(): Promise<void> {
  const server = await FakeApiServer.start();
  try {
    const kubeConfig = server.kubeConfig();
    const api = kubeConfig.makeApiClient(EventsV1Api);
    // The same requests as by hand: budgets that never fold a write.
    const recorder = new EventRecorder({
      reporter,
      kubeConfig,
      writeControl: { objectBurst: 1e9, qps: 1e9, burst: 1e9 },
    });
    const requests = OBJECTS * REPEATS;
    const hand: number[] = [];
    const recorded: number[] = [];
    await byHand(api, -1); // warm up both paths
    await byRecorder(recorder, -1);
    for (let round = 0; round < 15; round++) {
      server.reset();
      hand.push(await microsPerOp(requests, () => byHand(api, round)));
      server.reset();
      recorded.push(await microsPerOp(requests, () => byRecorder(recorder, round)));
      const sent = server.requests.filter((request) => request.method === 'POST' || request.method === 'PATCH').length;
      if (sent !== requests) throw new Error(`the recorder sent ${sent} requests, not ${requests}`);
    }
    const baseline = median(hand);
    const ours = median(recorded);
    printTable(
      `Recorder vs the same requests by hand with client-node (local HTTP server; ${OBJECTS} objects × ${REPEATS} publishes, median of 15 interleaved rounds)`,
      ['writer', 'µs per request', 'ratio'],
      [
        ['client-node by hand (baseline)', baseline.toFixed(0), '1.00×'],
        ['EventRecorder.publish', ours.toFixed(0), ratio(ours, baseline)],
      ],
    );
  } finally {
    await server.close();
  }
}
