// Under API Priority and Fairness throttling from the real kube-apiserver:
// the recorder's ServiceAccount is put on a priority level of one
// concurrency share (about 3 seats) that rejects what it cannot seat (real
// 429s with Retry-After), and 200 objects publish a burst of failures each.
// Once the load stops, what is queued drains as fast as the server admits
// it: within 15 s, the server counts every occurrence that resolved or was
// reported queued, one Event per object. The recorder slows down as the
// server rejects: at most 100 of its writes are answered 429.
import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PublishApiError, PublishError, type KubeEvent, type PublishOutcome } from 'nestjs-kube-events';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { Scratch, retrying } from './support/library-fixtures.js';
import { publisherRbac } from './support/publisher-rbac.js';
import { tightPriorityLevel } from './support/tight-priority-level.js';
import { muteLogger } from '../support/logged-lines.js';

const OBJECTS = 200;
const PUBLISHES = 25;
const DRAINED_WITHIN_MS = 15_000;
/** How many of the recorder's writes the server may reject while the recorder finds the rate it admits. */
const MAX_THROTTLED = 100;

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

/** The publisher's RBAC, and a priority level of one share that rejects, which only its ServiceAccount's requests meet. */
const setup = (namespace: string, serviceAccount: string, level: string) =>
  `${publisherRbac(namespace, serviceAccount)}---\n${tightPriorityLevel(level, { namespace, serviceAccount })}`;

describe('EventRecorder under API Priority and Fairness throttling', () => {
  let cp: ControlPlane;
  let scratch: Scratch;
  let level: string;

  beforeEach(async () => {
    muteLogger('warn');
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'apf-e2e');
    level = `kube-events-${scratch.namespace}`;
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await cp.kubectl(['delete', 'flowschema,prioritylevelconfiguration', level, '--ignore-not-found']);
    await scratch?.cleanup();
  });

  it('drains what is queued within 15 s of the load stopping, every occurrence counted once', async () => {
    const sa = await serviceAccountKubeConfig(cp, { namespace: scratch.namespace, name: 'throttled' });
    const applied = await cp.kubectl(['apply', '-n', scratch.namespace, '-f', '-'], {
      input: setup(scratch.namespace, 'throttled', level),
    });
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    const objects: KubernetesObject[] = [];
    for (let i = 0; i < OBJECTS; i += 20)
      objects.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => scratch.configMap(`apf-${i + j}`)))));

    const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    // The authorizer and the flow controller learn of the new objects through informers: wait until a write gets in.
    const probe = await scratch.configMap('apf-probe');
    await retrying(
      () => recorder.publish(probe, failed),
      (error) => error instanceof PublishApiError && error.statusCode === 403,
    );

    const counted = objects.map(() => 0);
    const unexpected: unknown[] = [];
    await Promise.all(
      objects.map(async (object, i) => {
        const settled: Promise<void>[] = [];
        for (let n = 0; n < PUBLISHES; n++) {
          settled.push(
            recorder.publish(object, failed).then(
              () => {
                counted[i]++;
              },
              (error: unknown) => {
                if (error instanceof PublishError && error.queued) counted[i]++;
                else unexpected.push(error);
              },
            ),
          );
          await sleep(10);
        }
        await Promise.all(settled);
      }),
    );
    const stoppedAt = Date.now();
    expect(unexpected).toEqual([]);

    let onServer: number[];
    let eventsPerObject: number[];
    do {
      const events = await scratch.allEvents();
      const about = (object: KubernetesObject) =>
        events.filter((event) => event.regarding?.uid === object.metadata!.uid);
      eventsPerObject = objects.map((object) => about(object).length);
      onServer = objects.map((object) => about(object).reduce((sum, event) => sum + (event.series?.count ?? 1), 0));
      if (onServer.every((count, i) => count === counted[i])) break;
      await sleep(250);
    } while (Date.now() - stoppedAt < DRAINED_WITHIN_MS);

    const throttled = outcomes.filter(
      (outcome) =>
        outcome.kind === 'failed' && outcome.error instanceof PublishApiError && outcome.error.statusCode === 429,
    );
    if (process.env.KUBE_EVENTS_E2E_REPORT)
      console.log(JSON.stringify({ throttled: throttled.length, drainedMs: Date.now() - stoppedAt }));
    // The server did throttle the publisher, a little, and yet nothing was still queued 15 s after the load stopped.
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled.length).toBeLessThanOrEqual(MAX_THROTTLED);
    expect(onServer).toEqual(counted);
    expect(eventsPerObject).toEqual(objects.map(() => 1));
    expect(counted.every((count) => count === PUBLISHES)).toBe(true);
  }, 120_000);
});
