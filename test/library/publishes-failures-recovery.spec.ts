// `@PublishesFailures({ recovery })` (SPEC §7): one Normal Event when a
// success ends failures, saying how many over how long; nothing otherwise.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap } from '../support/objects.js';
import { muteLogger } from '../support/logged-lines.js';
import { eventually } from '../support/eventually.js';

@Injectable()
class Reconciler {
  failing = false;

  @PublishesFailures({ recovery: true })
  async reconcile(_object: KubernetesObject): Promise<string> {
    await Promise.resolve();
    if (this.failing) throw new Error('source ConfigMap default/app not found');
    return 'synced';
  }

  @PublishesFailures({ recovery: { reason: 'Reconciled' }, reason: 'CheckFailed', action: 'Check' })
  check(_object: KubernetesObject): number {
    if (this.failing) throw new Error('bad shape');
    return 7;
  }

  @PublishesFailures({ recovery: true, labels: { 'app.kubernetes.io/part-of': 'shop' } })
  labelled(_object: KubernetesObject): void {
    if (this.failing) throw new Error('labelled failure');
  }

  @PublishesFailures()
  async quiet(_object: KubernetesObject): Promise<void> {
    if (this.failing) throw new Error('quiet failure');
  }
}

describe('@PublishesFailures({ recovery })', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let app: TestingModule | undefined;
  let reconciler: Reconciler;

  // A 403 scripted here stands for a refusal: with no permission check, no review contradicts it.
  async function start(providers: unknown[] = [Reconciler]) {
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, permissionCheck: 'off' })],
      providers: providers as [],
    }).compile();
    await app.init();
  }

  const normal = () => server.events().filter((event) => event.type === 'Normal');

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('puts the labels option on the failure Event and on the recovery Event', async () => {
    await start();
    reconciler = app!.get(Reconciler);
    reconciler.failing = true;
    expect(() => reconciler.labelled(configMap())).toThrow('labelled failure');
    await app!.get(EventRecorder).flush();
    reconciler.failing = false;
    reconciler.labelled(configMap());
    await app!.get(EventRecorder).flush();
    expect(server.events().map((event) => [event.type, event.metadata.labels])).toEqual([
      ['Warning', { 'app.kubernetes.io/part-of': 'shop' }],
      ['Normal', { 'app.kubernetes.io/part-of': 'shop' }],
    ]);
  });

  it('publishes one Normal Recovered event when a success ends three failures, saying so', async () => {
    await start();
    reconciler = app!.get(Reconciler);
    reconciler.failing = true;
    for (let i = 0; i < 3; i++) await expect(reconciler.reconcile(configMap())).rejects.toThrow('not found');
    reconciler.failing = false;
    await expect(reconciler.reconcile(configMap())).resolves.toBe('synced');
    expect(normal()).toEqual([
      expect.objectContaining({
        type: 'Normal',
        reason: 'Recovered',
        action: 'Reconcile',
        note: expect.stringMatching(/^Recovered after 3 failures over \d+(ms|s)$/),
        regarding: expect.objectContaining({ name: 'app', uid: 'uid-app' }),
      }),
    ]);
    // Further successes end nothing: no more Events.
    await reconciler.reconcile(configMap());
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3', 'POST']);
  });

  it('publishes nothing on a success that ends no failure, and counts only the failures since the last recovery', async () => {
    await start();
    reconciler = app!.get(Reconciler);
    await reconciler.reconcile(configMap());
    expect(server.requests).toHaveLength(0);
    reconciler.failing = true;
    await expect(reconciler.reconcile(configMap())).rejects.toThrow();
    await expect(reconciler.reconcile(configMap())).rejects.toThrow();
    reconciler.failing = false;
    await reconciler.reconcile(configMap());
    reconciler.failing = true;
    await expect(reconciler.reconcile(configMap())).rejects.toThrow();
    reconciler.failing = false;
    await reconciler.reconcile(configMap());
    expect(normal().map((event) => event.note!.replace(/ over .*/, ''))).toEqual([
      'Recovered after 2 failures',
      'Recovered after 1 failure',
    ]);
    // The failure after the first recovery started a new Warning Event.
    expect(server.events().filter((event) => event.type === 'Warning')).toHaveLength(2);
  });

  it('takes its reason from the options, and its action from the failures’, for a synchronous method too', async () => {
    await start();
    reconciler = app!.get(Reconciler);
    reconciler.failing = true;
    expect(() => reconciler.check(configMap('w2'))).toThrow('bad shape');
    reconciler.failing = false;
    expect(reconciler.check(configMap('w2'))).toBe(7);
    await server.waitForRequests(2, 'POST');
    await eventually('the recovery Event', () => normal().length > 0, { everyMs: 10 });
    expect(normal()).toEqual([
      expect.objectContaining({
        reason: 'Reconciled',
        action: 'Check',
        note: expect.stringMatching(/^Recovered after 1 failure over /),
      }),
    ]);
  });

  it('is off by default', async () => {
    await start();
    reconciler = app!.get(Reconciler);
    reconciler.failing = true;
    await expect(reconciler.quiet(configMap())).rejects.toThrow('quiet failure');
    reconciler.failing = false;
    await reconciler.quiet(configMap());
    expect(normal()).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('logs a recovery Event the server refuses, and the success still returns its value', async () => {
    const warn = muteLogger('warn');
    await start();
    reconciler = app!.get(Reconciler);
    reconciler.failing = true;
    await expect(reconciler.reconcile(configMap())).rejects.toThrow();
    server.failNext(403, 'POST', 'Forbidden');
    reconciler.failing = false;
    await expect(reconciler.reconcile(configMap())).resolves.toBe('synced');
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      expect.stringMatching(/Could not publish the recovery of Reconciler\.reconcile as an Event: .*403/),
    ]);
  });

  it('fails start-up on a recovery reason the API server would refuse, naming the option', async () => {
    @Injectable()
    class Misconfigured {
      @PublishesFailures({ recovery: { reason: '' } })
      async reconcile(_object: KubernetesObject): Promise<void> {}
    }
    const module = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [Misconfigured],
    }).compile();
    await expect(module.init()).rejects.toThrow(/Misconfigured\.reconcile: invalid option recovery: reason must be/);
  });
});
