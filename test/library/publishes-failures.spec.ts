import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Scope, SetMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { muteLogger } from '../support/logged-lines.js';
import { eventually } from '../support/eventually.js';

interface Widget extends KubernetesObject {
  spec?: { fail?: string };
}

const widget = (name = 'w1'): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
});

class SourceMissingError extends Error {}

@Injectable()
class WidgetReconciler {
  readonly seen: unknown[] = [];
  failWith: Error | undefined;
  /** Bound when Nest creates the provider, before the module wraps the method: as a controller hands its reconcile to a queue. */
  readonly boundReconcile = this.reconcile.bind(this);

  @PublishesFailures()
  @SetMetadata('audit', 'reconcile')
  async reconcile(widget: Widget, attempt: number): Promise<string> {
    this.seen.push(this, widget, attempt);
    await Promise.resolve();
    if (this.failWith) throw this.failWith;
    return `synced ${widget.metadata?.name}`;
  }

  @PublishesFailures({
    resourceArg: 1,
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    reason: 'CheckFailed',
    action: 'Check',
  })
  check(_label: string, _item: KubernetesObject): number {
    if (this.failWith) throw this.failWith;
    return 7;
  }

  @PublishesFailures({
    resourceArg: (request: { object: Widget }) => request.object,
    note: (e) => `custom: ${(e as Error).message}`,
  })
  async handle(_request: { object: Widget }): Promise<void> {
    if (this.failWith) throw this.failWith;
  }
}

@Injectable()
class BillingReconciler {
  @PublishesFailures({ recorder: 'billing' })
  async reconcile(_widget: Widget): Promise<void> {
    throw new Error('invoice rejected');
  }
}

@Injectable({ scope: Scope.TRANSIENT })
class TransientReconciler {
  @PublishesFailures()
  async reconcile(_widget: Widget): Promise<void> {
    throw new Error('transient failure');
  }
}

@Injectable()
class ReconcileQueue {
  constructor(readonly reconciler: TransientReconciler) {}
}

describe('@PublishesFailures', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let app: TestingModule;
  let reconciler: WidgetReconciler;

  async function start(timeout = 2_000) {
    app = await Test.createTestingModule({
      imports: [
        // A 403 scripted here stands for a refusal: with no permission check, no review contradicts it.
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, timeout, permissionCheck: 'off' }),
        KubeEventsModule.forRoot({
          name: 'billing',
          reporter: { controller: 'billing' },
          kubeConfig,
          timeout,
          permissionCheck: 'off',
        }),
      ],
      providers: [WidgetReconciler, BillingReconciler],
    }).compile();
    await app.init();
    reconciler = app.get(WidgetReconciler);
  }

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
  });
  afterEach(async () => {
    await app?.close();
    await server.close();
    jest.restoreAllMocks();
  });

  it('publishes a Warning ReconcileFailed event and rethrows the original error', async () => {
    await start();
    const error = new SourceMissingError('source ConfigMap default/app not found');
    reconciler.failWith = error;
    await expect(reconciler.reconcile(widget(), 1)).rejects.toBe(error);
    expect(server.events()).toHaveLength(1);
    expect(server.events()[0]).toMatchObject({
      type: 'Warning',
      reason: 'ReconcileFailed',
      action: 'Reconcile',
      note: 'source ConfigMap default/app not found',
      regarding: { kind: 'Widget', name: 'w1', uid: 'uid-w1' },
      reportingController: 'widgets',
    });
  });

  it('keeps this, the arguments, the return value, the name and other metadata', async () => {
    await start();
    const object = widget();
    await expect(reconciler.reconcile(object, 3)).resolves.toBe('synced w1');
    expect(reconciler.seen).toEqual([reconciler, object, 3]);
    expect(reconciler.reconcile.name).toBe('reconcile');
    expect(reconciler.reconcile.length).toBe(2);
    expect(Reflect.getMetadata('audit', reconciler.reconcile)).toBe('reconcile');
    expect(server.requests).toHaveLength(0);
  });

  it('publishes through a reference to the method taken before the application initialised', async () => {
    const warn = muteLogger('warn');
    await start();
    const error = new Error('source missing');
    reconciler.failWith = error;
    await expect(reconciler.boundReconcile(widget(), 1)).rejects.toBe(error);
    await expect(reconciler.boundReconcile(widget(), 2)).rejects.toBe(error);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2']);
    reconciler.failWith = undefined;
    await expect(reconciler.boundReconcile(widget(), 3)).resolves.toBe('synced w1');
    reconciler.failWith = error;
    await expect(reconciler.reconcile(widget(), 4)).rejects.toBe(error);
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'POST']);
    expect(reconciler.seen.filter((seen) => typeof seen === 'number')).toEqual([1, 2, 3, 4]);
    expect(warn.mock.calls.filter(([message]) => String(message).includes('is not active'))).toEqual([]);
  });

  it('publishes the failures of a transient provider, through the instance its consumer was given', async () => {
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [TransientReconciler, ReconcileQueue],
    }).compile();
    await app.init();
    await expect(app.get(ReconcileQueue).reconciler.reconcile(widget())).rejects.toThrow('transient failure');
    expect(server.events()).toMatchObject([{ reason: 'ReconcileFailed', note: 'transient failure' }]);
  });

  it('skips a request-scoped provider with one warning at start-up, and says nothing more when its method runs', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequestReconciler {
      @PublishesFailures()
      async reconcile(_widget: Widget): Promise<void> {
        throw new Error('per-request failure');
      }
    }
    const warn = muteLogger('warn');
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [PerRequestReconciler],
    }).compile();
    await app.init();
    const perRequest = await app.resolve(PerRequestReconciler);
    await expect(perRequest.reconcile(widget())).rejects.toThrow('per-request failure');
    await expect(perRequest.reconcile(widget())).rejects.toThrow('per-request failure');
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      expect.stringMatching(/^@PublishesFailures is ignored on request-scoped provider PerRequestReconciler/),
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('folds repeated failures and starts a new Event after a success', async () => {
    await start();
    const recorder = app.get(EventRecorder);
    reconciler.failWith = new Error('source missing');
    await expect(reconciler.reconcile(widget(), 1)).rejects.toThrow();
    await recorder.publish(widget(), {
      type: 'Warning',
      reason: 'ReconcileFailed',
      action: 'Reconcile',
      note: 'source missing',
    });
    reconciler.failWith = undefined;
    await reconciler.reconcile(widget(), 2);
    reconciler.failWith = new Error('source missing');
    await expect(reconciler.reconcile(widget(), 3)).rejects.toThrow();
    await recorder.publish(widget(), {
      type: 'Warning',
      reason: 'ReconcileFailed',
      action: 'Reconcile',
      note: 'source missing',
    });
    expect(server.seriesWrites()).toEqual(['POST', 'POST', 'POST', 'PATCH 2']);
  });

  it('counts repeated failures of one object in one Event', async () => {
    await start();
    reconciler.failWith = new Error('source missing');
    for (let attempt = 0; attempt < 3; attempt++)
      await expect(reconciler.reconcile(widget(), attempt)).rejects.toThrow();
    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 3']);
  });

  it('keeps a synchronous method synchronous, with apiVersion/kind options and another argument', async () => {
    await start();
    const listItem = { metadata: { name: 'w2', namespace: 'default', uid: 'uid-w2' } };
    expect(reconciler.check('x', listItem)).toBe(7);
    const error = new Error('bad shape');
    reconciler.failWith = error;
    expect(() => reconciler.check('x', listItem)).toThrow(error);
    await server.waitForRequests(1);
    expect(server.events()[0]).toMatchObject({
      reason: 'CheckFailed',
      action: 'Check',
      regarding: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w2' },
    });
  });

  it('takes the object and the note from the options', async () => {
    await start();
    reconciler.failWith = new Error('boom');
    await expect(reconciler.handle({ object: widget('w3') })).rejects.toThrow('boom');
    expect(server.events()[0]).toMatchObject({ note: 'custom: boom', regarding: { name: 'w3' } });
  });

  it('publishes through the recorder it names', async () => {
    await start();
    await expect(app.get(BillingReconciler).reconcile(widget())).rejects.toThrow('invoice rejected');
    expect(server.events()[0].reportingController).toBe('billing');
  });

  it('logs a failed publish and still rethrows the reconcile error', async () => {
    await start();
    const warn = muteLogger('warn');
    server.failNext(403, 'POST', 'Forbidden');
    const error = new Error('source missing');
    reconciler.failWith = error;
    await expect(reconciler.reconcile(widget(), 1)).rejects.toBe(error);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/WidgetReconciler\.reconcile.*403/));
  });

  it('is bounded by the recorder timeout when the server hangs', async () => {
    await start(300);
    const warn = muteLogger('warn');
    server.hangNext('POST');
    const error = new Error('source missing');
    reconciler.failWith = error;
    const started = Date.now();
    await expect(reconciler.reconcile(widget(), 1)).rejects.toBe(error);
    // It waited for the publish, up to the timeout, and logged that the publish timed out.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringMatching(/did not finish within 300 ms/),
    ]);
  });

  it('rethrows the reconcile error even when the note formatter throws, and a throwing selector never fails a success', async () => {
    @Injectable()
    class Fragile {
      @PublishesFailures({ note: (error) => (error as { body: { message: string } }).body.message })
      async reconcile(_widget: Widget): Promise<void> {
        throw new Error('plain error, no body');
      }

      @PublishesFailures({
        resourceArg: () => {
          throw new Error('selector bug');
        },
      })
      async succeed(): Promise<string> {
        return 'done';
      }
    }
    const warn = muteLogger('warn');
    const module = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [Fragile],
    }).compile();
    await module.init();
    await expect(module.get(Fragile).reconcile(widget())).rejects.toThrow('plain error, no body');
    await expect(module.get(Fragile).succeed()).resolves.toBe('done');
    expect(warn).toHaveBeenCalledTimes(2);
    await module.close();
  });

  it('fails start-up when it names a recorder that is not registered', async () => {
    @Injectable()
    class Orphan {
      @PublishesFailures({ recorder: 'missing' })
      async reconcile(): Promise<void> {}
    }
    const module = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [Orphan],
    }).compile();
    await expect(module.init()).rejects.toThrow(/names the recorder "missing"/);
  });

  it('logs an unreachable server once per outage, not once per failure, and writes the failures when it is back', async () => {
    const warn = muteLogger('warn');
    await start(1_000);
    reconciler.failWith = new SourceMissingError('source missing');
    await expect(reconciler.reconcile(widget(), 1)).rejects.toThrow('source missing');
    server.outage(1_500);
    const started = Date.now();
    for (let attempt = 2; attempt <= 6; attempt++)
      await expect(reconciler.reconcile(widget(), attempt)).rejects.toThrow('source missing');
    // Rejected at once while the server is known to be down, not after the timeout each.
    expect(Date.now() - started).toBeLessThan(1_000);
    const unreachable = warn.mock.calls.filter(([line]) => String(line).includes('unreachable since'));
    expect(unreachable).toHaveLength(1);
    expect(unreachable[0][0]).toMatch(/WidgetReconciler\.reconcile.*occurrence is queued/);
    // The queued failures are written once the server answers again, with no publish to push them.
    await eventually('the six failures counted on the server', () => (server.events()[0]?.series?.count ?? 1) >= 6, {
      everyMs: 50,
    });
    // The server may hold the sixth before the recorder has its answer: the seventh then waits behind that write.
    await reconciler.reconcile(widget(), 7).catch(() => undefined);
    await eventually('the seventh failure counted on the same Event', () => server.events()[0]?.series?.count === 7, {
      everyMs: 50,
    });
    expect(server.events()).toHaveLength(1);
  });
});
