// Labels on Events against the real kube-apiserver: a label selector (the
// real kubectl's `get events -l`) finds the operator's Events, and only them.
import type { KubeEvent } from 'nestjs-kube-events';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch } from './support/library-fixtures.js';

/** The names `kubectl get events -l <selector>` lists in the scratch namespace. */
async function selected(cp: ControlPlane, namespace: string, selector: string): Promise<string[]> {
  const { stdout, stderr, code } = await cp.kubectl([
    'get',
    'events.events.k8s.io',
    '--namespace',
    namespace,
    '--selector',
    selector,
    '--output',
    'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
  ]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return stdout.split('\n').filter(Boolean).sort();
}

describe('labels on Events, on the real API server', () => {
  let cp: ControlPlane;
  let scratch: Scratch;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'labels-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
  });

  it('kubectl get events -l finds the Events published with that label, and a repeat keeps it', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const shop: KubeEvent = {
      type: 'Warning',
      reason: 'SyncFailed',
      action: 'Sync',
      note: 'source missing',
      labels: { 'app.kubernetes.io/part-of': 'shop', 'example.com/tier': 'backend' },
    };
    await recorder.publish(cm, shop);
    await recorder.publish(cm, shop);
    await recorder.publish(cm, { type: 'Normal', reason: 'Synced', action: 'Sync', labels: { tier: 'other' } });
    await recorder.publish(cm, { type: 'Normal', reason: 'Checked', action: 'Check' });

    const events = await scratch.allEvents();
    const labelled = events.filter((event) => event.reason === 'SyncFailed');
    expect(labelled).toHaveLength(1);
    expect(labelled[0].series?.count).toBe(2);
    expect(labelled[0].metadata?.labels).toEqual(shop.labels);

    expect(await selected(cp, scratch.namespace, 'app.kubernetes.io/part-of=shop')).toEqual([
      labelled[0].metadata!.name,
    ]);
    expect(await selected(cp, scratch.namespace, 'app.kubernetes.io/part-of=shop,example.com/tier=backend')).toEqual([
      labelled[0].metadata!.name,
    ]);
    expect(await selected(cp, scratch.namespace, 'app.kubernetes.io/part-of=billing')).toEqual([]);
    expect(await selected(cp, scratch.namespace, 'tier')).toHaveLength(1);
  });

  it('takes every key and value the library accepts: the longest prefix, name and value, an empty value', async () => {
    const cm = await scratch.configMap('app-config');
    const labels = {
      [`${'p'.repeat(63)}.${'q'.repeat(63)}.${'r'.repeat(63)}.${'s'.repeat(61)}/${'n'.repeat(63)}`]: 'v'.repeat(63),
      'Upper.Case_key-1': 'V_1.a-2',
      empty: '',
    };
    await scratch.recorder().publish(cm, { type: 'Normal', reason: 'Labelled', action: 'Label', labels });

    const [event] = await scratch.allEvents();
    expect(event.metadata?.labels).toEqual(labels);
    expect(await selected(cp, scratch.namespace, 'empty=')).toEqual([event.metadata!.name]);
  });
});
