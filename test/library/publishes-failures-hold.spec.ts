// How long a failed reconcile waits for its Event (SPEC §7): for its own
// write when that goes out at once, never for a write that waits for the
// object's budget or for a write of its series already on its way; the
// count still reaches the server, and a write that fails later is reported.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  EventRecorder,
  KubeEventsMetrics,
  KubeEventsModule,
  PublishesFailures,
  type KubeEventsModuleOptions,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap } from '../support/objects.js';
import { flush } from '../support/flush.js';
import { muteLogger } from '../support/logged-lines.js';
import { eventually } from '../support/eventually.js';

@Injectable()
class Reconciler {
  @PublishesFailures()
  async reconcile(_object: KubernetesObject): Promise<void> {
    await Promise.resolve();
    throw new Error('source ConfigMap default/app not found');
  }
}

let controllers = 0;

describe('@PublishesFailures does not hold a failed reconcile for a write that waits', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let app: TestingModule | undefined;
  let warn: jest.SpiedFunction<Logger['warn']>;

  /** An application whose reconciles fail, with a controller of its own (metrics are per controller). */
  async function start(options: Partial<KubeEventsModuleOptions> = {}) {
    const controller = `hold-test-${++controllers}`;
    app = await Test.createTestingModule({
      // A 403 scripted here stands for a refusal: with no permission check, no review contradicts it.
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller },
          kubeConfig,
          timeout: 10_000,
          permissionCheck: 'off',
          ...options,
        }),
      ],
      providers: [Reconciler],
    }).compile();
    await app.init();
    const recorder = app.get(EventRecorder);
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    return { controller, recorder, outcomes, reconciler: app.get(Reconciler), metrics: app.get(KubeEventsMetrics) };
  }

  /** Resolves once the Event about `name` counts `count` on the server. */
  async function counted(name: string, count: number): Promise<void> {
    const countOf = () => {
      const event = server.events().find((stored) => stored.regarding.name === name);
      return event ? (event.series?.count ?? 1) : 0;
    };
    await eventually(`a count of ${count} on the Event about ${name}`, () => countOf() >= count, { everyMs: 20 });
  }

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
    warn = muteLogger('warn');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('rethrows at once once the object’s burst is spent, and the folded count reaches the server', async () => {
    const { reconciler, recorder } = await start({
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 200 },
    });
    // The burst's write goes out at once: the reconcile waits for it, one round trip.
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    expect(server.seriesWrites()).toEqual(['POST']);
    // The next failures wait for the object's budget: counted in their series, rethrown before any write.
    for (let i = 0; i < 4; i++) await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    expect(server.seriesWrites()).toEqual(['POST']);
    // One write carries them, after maxDelay.
    await counted('app', 5);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 5']);
    // publish() still resolves only once its occurrence is on the server.
    await recorder.publish(configMap(), { type: 'Normal', reason: 'Synced', action: 'Sync' });
    expect(server.events().map((event) => event.reason)).toEqual(['ReconcileFailed', 'Synced']);
    expect(warn).not.toHaveBeenCalled();
  });

  it('rethrows at once while a write of the series is on its way, and the count reaches the server', async () => {
    const { reconciler } = await start();
    server.delayNext(3_000, 'POST');
    // This failure's own write goes out at once, and the server holds it: the reconcile waits for it.
    let firstDone = false;
    const first = reconciler.reconcile(configMap()).catch((error: unknown) => {
      firstDone = true;
      return error;
    });
    await server.waitForRequests(1, 'POST');
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    // Both returned while the create is still held: nothing is on the server yet, and the first still waits.
    expect(server.events()).toEqual([]);
    expect(firstDone).toBe(false);
    await expect(first).resolves.toThrow('not found');
    expect(server.events()).toHaveLength(1);
    // The two that waited follow the create in one patch.
    await counted('app', 3);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 3']);
  });

  it('rethrows at once while every connection to the server is busy with other writes', async () => {
    const { reconciler } = await start();
    // Eight objects' creates hold the recorder's eight connections; their reconciles wait for them.
    for (let i = 0; i < 8; i++) server.delayNext(3_000, 'POST');
    const waiting = Array.from({ length: 8 }, (_, i) => reconciler.reconcile(configMap(`busy-${i}`)).catch(() => 0));
    await server.waitForRequests(8, 'POST');
    // A ninth object's write would wait for a connection: its reconcile does not.
    await expect(reconciler.reconcile(configMap('ninth'))).rejects.toThrow('not found');
    expect(server.events()).toEqual([]);
    await Promise.all(waiting);
    await counted('ninth', 1);
    expect(server.events()).toHaveLength(9);
  });

  it('reports a write that fails after the reconcile returned: outcome, log and metrics', async () => {
    const { reconciler, outcomes, metrics, controller } = await start({
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 200 },
    });
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    server.failNext(403, 'PATCH', 'Forbidden', 'events.events.k8s.io is forbidden');
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    // Returned before the write was sent; the write then fails.
    await server.waitForRequests(1, 'PATCH');
    const refused = () => outcomes.find((outcome) => outcome.kind === 'failed');
    while (!refused() || warn.mock.calls.length < 2) await flush();
    expect(refused()).toMatchObject({ count: 2, error: { statusCode: 403 }, failure: true });
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      expect.stringMatching(/Could not publish the failure of Reconciler\.reconcile as an Event: .*403/),
      expect.stringMatching(/Could not publish the failure of Reconciler\.reconcile as an Event: .*403/),
    ]);
    expect(Object.values(metrics.snapshot()[controller].failed)).toEqual([1]);
    expect(server.events()[0].series).toBeUndefined();
  });
});
