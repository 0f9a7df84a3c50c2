import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { KubeConfig, type KubernetesObject, type makeInformer } from '@kubernetes/client-node';
import { ResilientInformer } from './informer.js';
import { FakeClock } from 'nestjs-kube-events/testing';
import { flush } from '../../../../test/support/flush.js';
import { muteLogger } from '../../../../test/support/logged-lines.js';

/** The clock's one pending timer, as a count and how far off it is. */
function pendingTimer(clock: FakeClock): { count: number; inMs: number | undefined } {
  return { count: clock.pendingTimers, inMs: clock.msUntilNextTimer() };
}

/** Stands in for client-node's ListWatch: the test decides what each start does. */
class FakeListWatch {
  readonly callbacks: Record<string, ((arg?: unknown) => void)[]> = {
    add: [],
    update: [],
    delete: [],
    error: [],
    connect: [],
  };
  objects: KubernetesObject[] = [];
  starts = 0;
  stops = 0;
  /** What the next start does: 'ok', or an error it reports through the error callbacks. */
  next: ('ok' | Error)[] = [];

  on(verb: string, cb: (arg?: unknown) => void): void {
    this.callbacks[verb].push(cb);
  }
  off(): void {}
  async start(): Promise<void> {
    this.starts++;
    const outcome = this.next.shift() ?? 'ok';
    if (outcome !== 'ok') this.emit('error', outcome);
  }
  async stop(): Promise<void> {
    this.stops++;
    this.emit('error', new Error('aborted'));
  }
  get(name: string, namespace?: string) {
    return this.objects.find((o) => o.metadata?.name === name && o.metadata?.namespace === namespace);
  }
  list() {
    return this.objects;
  }
  emit(verb: string, arg?: unknown): void {
    for (const cb of this.callbacks[verb]) cb(arg);
  }
}

describe('ResilientInformer', () => {
  let clock: FakeClock;
  let fake: FakeListWatch;
  let informer: ResilientInformer<KubernetesObject>;
  let warn: jest.SpiedFunction<Logger['warn']>;

  function create(resyncPeriodMs = 0) {
    informer = new ResilientInformer<KubernetesObject>({
      name: 'widgets',
      kubeConfig: new KubeConfig(),
      path: '/apis/example.com/v1/widgets',
      list: async () => ({ items: [] }),
      resyncPeriodMs,
      clock,
      hint: (code) => (code === 404 ? 'is the CRD installed?' : undefined),
      makeInformer: (() => fake) as unknown as typeof makeInformer,
    });
  }

  beforeEach(() => {
    clock = new FakeClock();
    fake = new FakeListWatch();
    warn = muteLogger('warn');
    muteLogger('log');
  });

  afterEach(async () => {
    await informer.stop();
    jest.restoreAllMocks();
  });

  it('hands the cache trimmed objects, and a list of nothing (a metadata-only list has items: null) as empty', async () => {
    let listFn: (() => Promise<{ items: KubernetesObject[] }>) | undefined;
    const lists: (KubernetesObject[] | null)[] = [
      [{ metadata: { name: 'a', namespace: 'ns', annotations: { big: 'x'.repeat(1000) } } }],
      null,
    ];
    informer = new ResilientInformer<KubernetesObject>({
      name: 'widgets',
      kubeConfig: new KubeConfig(),
      path: '/apis/example.com/v1/widgets',
      list: async () => ({ items: lists.shift()! }),
      trim: (object) => ({ metadata: { name: object.metadata?.name, namespace: object.metadata?.namespace } }),
      clock,
      makeInformer: ((_kubeConfig: unknown, _path: unknown, list: typeof listFn) => {
        listFn = list;
        return fake;
      }) as unknown as typeof makeInformer,
    });
    await expect(listFn!()).resolves.toEqual({ items: [{ metadata: { name: 'a', namespace: 'ns' } }] });
    await expect(listFn!()).resolves.toEqual({ items: [] });
  });

  it('is synced once its first start lists and watches without error', async () => {
    create();
    expect(informer.hasSynced).toBe(false);
    informer.start();
    await informer.whenSynced();
    expect(informer.hasSynced).toBe(true);
    expect(fake.starts).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('restarts a failed start with a backoff that doubles, and resets it once connected', async () => {
    fake.next = [
      Object.assign(new Error('Not Found'), { statusCode: 404 }),
      new Error('fetch failed'),
      'ok',
      new Error('connection reset'),
    ];
    create();
    informer.start();
    await flush();
    expect(informer.hasSynced).toBe(false);
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 1_000 });
    expect(warn.mock.calls[0][0]).toContain('(HTTP 404): Not Found; is the CRD installed?');

    await clock.advance(1_000);
    await flush();
    expect(fake.starts).toBe(2);
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 2_000 });

    await clock.advance(2_000);
    await flush();
    expect(fake.starts).toBe(3);
    expect(informer.hasSynced).toBe(true);
    expect(clock.pendingTimers).toBe(0);

    fake.emit('error', new Error('watch died'));
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 1_000 });
  });

  it('restarts after the watch fails later, only once however many errors arrive', async () => {
    create();
    informer.start();
    await informer.whenSynced();
    fake.emit('error', new Error('ECONNRESET'));
    fake.emit('error', new Error('ECONNRESET'));
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 1_000 });
    await clock.advance(1_000);
    await flush();
    expect(fake.starts).toBe(2);
  });

  it('ignores the errors its own stop causes, and cancels a pending restart', async () => {
    fake.next = [new Error('fetch failed')];
    create();
    informer.start();
    await flush();
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 1_000 });
    warn.mockClear();
    await informer.stop();
    expect(fake.stops).toBe(1);
    expect(warn).not.toHaveBeenCalled();
    expect(clock.pendingTimers).toBe(0);
  });

  it('hands every cached object to the resync handlers each period', async () => {
    fake.objects = [{ metadata: { name: 'a', namespace: 'x' } }, { metadata: { name: 'b', namespace: 'y' } }];
    create(60_000);
    const resynced: string[] = [];
    informer.onResync((object) => resynced.push(object.metadata!.name!));
    informer.start();
    await informer.whenSynced();
    await clock.advance(59_999);
    expect(resynced).toEqual([]);
    await clock.advance(1);
    expect(resynced).toEqual(['a', 'b']);
    await clock.advance(60_000);
    expect(resynced).toEqual(['a', 'b', 'a', 'b']);
  });

  it('passes object events through', async () => {
    create();
    const seen: string[] = [];
    informer.onAdd((o) => seen.push(`add ${o.metadata!.name}`));
    informer.onUpdate((o) => seen.push(`update ${o.metadata!.name}`));
    informer.onDelete((o) => seen.push(`delete ${o.metadata!.name}`));
    fake.emit('add', { metadata: { name: 'a' } });
    fake.emit('update', { metadata: { name: 'a' } });
    fake.emit('delete', { metadata: { name: 'a' } });
    expect(seen).toEqual(['add a', 'update a', 'delete a']);
  });
});
