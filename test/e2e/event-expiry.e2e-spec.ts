// Expiry: the API server deletes an Event --event-ttl after its last update.
// Against an extra kube-apiserver with a 3 s TTL (same etcd, its own prefix),
// a series whose Event is gone is created again (count 1) by the next
// publish — its PATCH answered 404 — and then counts on in the new Event.
import { type ControlPlane, E2E_ENV, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeEvent } from 'nestjs-kube-events';
import { Scratch } from './support/library-fixtures.js';

const EVENT_TTL_MS = 3_000;
// An external cluster (KUBE_EVENTS_E2E_KUBECONFIG) keeps its own TTL, 1 h by default, which cannot be
// shortened from here: there the test deletes the Event as the TTL would.
const external = process.env[E2E_ENV.external] === '1';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('EventRecorder when the API server expires Events (--event-ttl)', () => {
  let extra: ControlPlane | undefined;
  let scratch: Scratch;

  beforeAll(async () => {
    if (!external) extra = await sharedControlPlane().startExtraApiServer({ eventTtl: `${EVENT_TTL_MS / 1000}s` });
  });
  afterAll(async () => {
    await extra?.stop();
  });
  beforeEach(async () => {
    scratch = await Scratch.create((extra ?? sharedControlPlane()).kubeConfig(), 'expiry-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
  });

  it('creates the series again (count 1) once the server has deleted its Event, then counts on', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();

    await recorder.publish(cm, failed);
    await recorder.publish(cm, failed);
    const [first] = await scratch.allEvents();
    expect(first.series?.count).toBe(2);
    const name = first.metadata!.name!;

    if (external) await scratch.deleteEvent(name);
    const started = Date.now();
    while (await scratch.readEvent(name)) {
      expect(Date.now() - started).toBeLessThan(EVENT_TTL_MS + 15_000);
      await sleep(100);
    }

    // Well within the series window: the recorder still holds the series and tries to patch it.
    await recorder.publish(cm, failed);
    const [second, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(second.metadata!.name).not.toBe(name);
    expect(second.series).toBeUndefined();

    await recorder.publish(cm, failed);
    const counted = await scratch.readEvent(second.metadata!.name!);
    expect(counted?.series?.count).toBe(2);
    expect(await scratch.allEvents()).toHaveLength(1);
  });
});
