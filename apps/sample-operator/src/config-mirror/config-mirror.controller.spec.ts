// What ConfigMirrorController queues for which informer event. The
// informers are replaced (through an ESM module mock of
// config-mirror.informers.js) by FakeInformers that the test drives by hand
// (ConfigMaps: one per namespace the controller watches, none elsewhere);
// the controller is never started, so no worker takes a key and no timer runs:
// each test reads what was added to the work queue and what was forgotten.
import { jest } from '@jest/globals';
import {
  KubeConfig,
  type CoreV1Api,
  type CustomObjectsApi,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Namespace,
} from '@kubernetes/client-node';
import type { EventRecorder } from 'nestjs-kube-events';
import type { ResilientInformer } from '../controller/informer.js';
import { WorkQueue } from '../controller/work-queue.js';
import { resolveOperatorOptions } from '../operator.options.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MIRROR_NAME_LABEL,
  MIRROR_OWNER_ANNOTATION,
  MIRROR_OWNER_UID_ANNOTATION,
  MIRROR_SOURCE_ANNOTATION,
} from './config-mirror.constants.js';
import type { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import type { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';
import type { ConfigMirror } from './config-mirror.types.js';
import { muteLogger } from '../../../../test/support/logged-lines.js';

type Handler<T> = (object: T) => void;

/** Stands in for a ResilientInformer: a cache plus handlers, driven by the test. */
class FakeInformer<T extends KubernetesObject> {
  private readonly objects = new Map<string, T>();
  private readonly handlers: Record<'add' | 'update' | 'delete' | 'resync', Handler<T>[]> = {
    add: [],
    update: [],
    delete: [],
    resync: [],
  };
  hasSynced = true;

  onAdd(handler: Handler<T>): void {
    this.handlers.add.push(handler);
  }
  onUpdate(handler: Handler<T>): void {
    this.handlers.update.push(handler);
  }
  onDelete(handler: Handler<T>): void {
    this.handlers.delete.push(handler);
  }
  onResync(handler: Handler<T>): void {
    this.handlers.resync.push(handler);
  }
  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(`${namespace ?? ''}/${name}`);
  }
  list(): readonly T[] {
    return [...this.objects.values()];
  }
  whenSynced(): Promise<void> {
    return Promise.resolve();
  }
  start(): void {}
  async stop(): Promise<void> {}

  /** Like client-node's informer: the cache changes first, then the handlers run. */
  add(object: T): void {
    this.objects.set(this.keyOf(object), object);
    for (const handler of this.handlers.add) handler(object);
  }
  update(object: T): void {
    this.objects.set(this.keyOf(object), object);
    for (const handler of this.handlers.update) handler(object);
  }
  delete(object: T): void {
    this.objects.delete(this.keyOf(object));
    for (const handler of this.handlers.delete) handler(object);
  }
  resync(): void {
    for (const object of this.objects.values()) for (const handler of this.handlers.resync) handler(object);
  }

  private keyOf(object: T): string {
    return `${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;
  }
}

/** The ConfigMap informers the controller made, per namespace: an event in a namespace it does not watch reaches nothing. */
class WatchedConfigMaps {
  readonly informers = new Map<string, FakeInformer<V1ConfigMap>>();

  informerFor(namespace: string): FakeInformer<V1ConfigMap> {
    const informer = new FakeInformer<V1ConfigMap>();
    informer.stop = async () => void this.informers.delete(namespace);
    this.informers.set(namespace, informer);
    return informer;
  }
  get namespaces(): string[] {
    return [...this.informers.keys()].sort();
  }
  add(object: V1ConfigMap): void {
    this.informers.get(object.metadata!.namespace!)?.add(object);
  }
  update(object: V1ConfigMap): void {
    this.informers.get(object.metadata!.namespace!)?.update(object);
  }
  delete(object: V1ConfigMap): void {
    this.informers.get(object.metadata!.namespace!)?.delete(object);
  }
}

let mirrors: FakeInformer<ConfigMirror>;
let configMaps: WatchedConfigMaps;
let namespaces: FakeInformer<V1Namespace>;

jest.unstable_mockModule('./config-mirror.informers.js', () => ({
  configMirrorInformer: () => mirrors as unknown as ResilientInformer<ConfigMirror>,
  configMapInformer: (_kubeConfig: unknown, _core: unknown, namespace: string) =>
    configMaps.informerFor(namespace) as unknown as ResilientInformer<V1ConfigMap>,
  namespaceInformer: () => namespaces as unknown as ResilientInformer<V1Namespace>,
}));

const { ConfigMirrorController } = await import('./config-mirror.controller.js');

function mirror(
  name: string,
  overrides: { uid?: string; generation?: number; sourceName?: string; sourceNamespace?: string } = {},
): ConfigMirror {
  return {
    apiVersion: 'mirror.kube-events.dev/v1alpha1',
    kind: 'ConfigMirror',
    metadata: {
      name,
      namespace: 'default',
      uid: overrides.uid ?? `uid-${name}`,
      generation: overrides.generation ?? 1,
    },
    spec: {
      sourceName: overrides.sourceName ?? 'app-config',
      ...(overrides.sourceNamespace ? { sourceNamespace: overrides.sourceNamespace } : {}),
      targetNamespaces: ['ns-a'],
    },
  };
}

function source(data: Record<string, string>, name = 'app-config', namespace = 'default'): V1ConfigMap {
  return { metadata: { name, namespace }, data };
}

/** The copy `owner` keeps of default/app-config in `namespace` (ns-a), naming its uid (`uid-app`). */
interface CopyOptions {
  owner?: string;
  uid?: string;
  namespace?: string;
  name?: string;
}

function copy(data: Record<string, string>, options: CopyOptions = {}): V1ConfigMap {
  const { owner = 'default/app', namespace = 'ns-a', name = 'app-config' } = options;
  const uid = options.uid ?? `uid-${owner.split('/')[1]}`;
  return {
    metadata: {
      name,
      namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [MIRROR_NAME_LABEL]: owner.split('/')[1] },
      annotations: {
        [MIRROR_OWNER_ANNOTATION]: owner,
        ...(uid ? { [MIRROR_OWNER_UID_ANNOTATION]: uid } : {}),
        [MIRROR_SOURCE_ANNOTATION]: 'default/app-config',
      },
    },
    data,
  };
}

/** A namespace that accepts copies from the ConfigMirrors of `from`. */
function accepting(name: string, from: string, labels: Record<string, string> = {}): V1Namespace {
  return { metadata: { name, labels: { ...labels, [`accept-from.mirror.kube-events.dev/${from}`]: 'true' } } };
}

describe('ConfigMirrorController: what is queued', () => {
  let added: jest.SpiedFunction<WorkQueue<string>['add']>;
  let forgotten: jest.SpiedFunction<WorkQueue<string>['forget']>;
  let statusWriter: { forget: jest.Mock<(mirror: ConfigMirror) => void> };
  let recorder: { forget: jest.Mock<(object: KubernetesObject) => void> };

  /** Keys added to the queue since the last call. */
  function queued(): string[] {
    const keys = added.mock.calls.map(([key]) => key);
    added.mockClear();
    return keys;
  }

  beforeEach(() => {
    muteLogger('log');
    muteLogger('warn');
    added = jest.spyOn(WorkQueue.prototype as WorkQueue<string>, 'add');
    forgotten = jest.spyOn(WorkQueue.prototype as WorkQueue<string>, 'forget');
    mirrors = new FakeInformer<ConfigMirror>();
    configMaps = new WatchedConfigMaps();
    namespaces = new FakeInformer<V1Namespace>();
    statusWriter = { forget: jest.fn() };
    recorder = { forget: jest.fn() };
    new ConfigMirrorController(
      new KubeConfig(),
      {} as CoreV1Api,
      {} as CustomObjectsApi,
      {} as ConfigMirrorReconciler,
      statusWriter as unknown as ConfigMirrorStatusWriter,
      recorder as unknown as EventRecorder,
      resolveOperatorOptions({ instance: 'test', resyncPeriodMs: 0 }),
    );
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  test('an added ConfigMirror is queued by namespace/name', () => {
    mirrors.add(mirror('app'));
    expect(queued()).toEqual(['default/app']);
  });

  test('an update with the same uid and generation (a status write) is not queued again', () => {
    const app = mirror('app', { generation: 4 });
    mirrors.add(app);
    queued();

    mirrors.update({ ...app, status: { observedGeneration: 4 } });
    mirrors.update({ ...app, metadata: { ...app.metadata, resourceVersion: '99' } });

    expect(queued()).toEqual([]);
  });

  test('an update with a new generation is queued, once per generation', () => {
    mirrors.add(mirror('app', { generation: 1 }));
    queued();

    mirrors.update(mirror('app', { generation: 2 }));
    expect(queued()).toEqual(['default/app']);

    mirrors.update({ ...mirror('app', { generation: 2 }), status: { observedGeneration: 2 } });
    expect(queued()).toEqual([]);
  });

  test('a ConfigMirror made again under the same name (new uid, same generation) is queued', () => {
    mirrors.add(mirror('app', { uid: 'uid-old', generation: 1 }));
    queued();

    // The delete was missed (e.g. the watch was down); the new object arrives as an update.
    mirrors.update(mirror('app', { uid: 'uid-new', generation: 1 }));

    expect(queued()).toEqual(['default/app']);
  });

  test('a resync queues every ConfigMirror even without a change', () => {
    mirrors.add(mirror('app'));
    mirrors.add(mirror('other'));
    queued();

    mirrors.resync();

    expect(queued().sort()).toEqual(['default/app', 'default/other']);
  });

  test('a change to a source ConfigMap queues the ConfigMirrors that use it, and only those', () => {
    mirrors.add(mirror('app', { sourceName: 'app-config' }));
    mirrors.add(mirror('also-app', { sourceName: 'app-config', sourceNamespace: 'default' }));
    mirrors.add(mirror('elsewhere', { sourceName: 'app-config', sourceNamespace: 'other' }));
    mirrors.add(mirror('unrelated', { sourceName: 'db-config' }));
    queued();

    configMaps.add(source({ greeting: 'hello' }));
    expect(queued().sort()).toEqual(['default/also-app', 'default/app']);

    configMaps.update(source({ greeting: 'hi' }));
    expect(queued().sort()).toEqual(['default/also-app', 'default/app']);

    configMaps.delete(source({ greeting: 'hi' }));
    expect(queued().sort()).toEqual(['default/also-app', 'default/app']);

    configMaps.update(source({ x: '1' }, 'unused-config'));
    expect(queued()).toEqual([]);
  });

  test("a source in another namespace queues no mirror by default, so that a refusal's timing says nothing of it", () => {
    mirrors.add(mirror('reaches-out', { sourceName: 'secret-config', sourceNamespace: 'kube-system' }));
    queued();
    configMaps.add(source({ token: 'x' }, 'secret-config', 'kube-system'));
    configMaps.update(source({ token: 'y' }, 'secret-config', 'kube-system'));
    configMaps.delete(source({ token: 'y' }, 'secret-config', 'kube-system'));
    expect(queued()).toEqual([]);

    // With MIRROR_SOURCES=any-namespace it may read it, and follows it.
    mirrors = new FakeInformer<ConfigMirror>();
    configMaps = new WatchedConfigMaps();
    new ConfigMirrorController(
      new KubeConfig(),
      {} as CoreV1Api,
      {} as CustomObjectsApi,
      {} as ConfigMirrorReconciler,
      statusWriter as unknown as ConfigMirrorStatusWriter,
      recorder as unknown as EventRecorder,
      resolveOperatorOptions({ instance: 'test', resyncPeriodMs: 0, mirrorSources: 'any-namespace' }),
    );
    mirrors.add(mirror('reaches-out', { sourceName: 'secret-config', sourceNamespace: 'kube-system' }));
    queued();
    configMaps.update(source({ token: 'z' }, 'secret-config', 'kube-system'));
    expect(queued()).toEqual(['default/reaches-out']);
  });

  test('a target namespace that comes to accept copies from a mirror queues it; nothing else about a namespace does', () => {
    mirrors.add(mirror('app')); // in default, targets ns-a
    queued();

    namespaces.add({ metadata: { name: 'ns-a' } });
    namespaces.update({ metadata: { name: 'ns-a', labels: { team: 'a' } } });
    namespaces.update(accepting('ns-a', 'someone-else'));
    namespaces.add(accepting('ns-b', 'default')); // accepts, but is not a target
    expect(queued()).toEqual([]);

    namespaces.update(accepting('ns-a', 'default'));
    expect(queued()).toEqual(['default/app']);
    // Still accepting: another label changing does not queue it again.
    namespaces.update(accepting('ns-a', 'default', { team: 'a' }));
    expect(queued()).toEqual([]);

    // Created already accepting.
    namespaces.delete(accepting('ns-a', 'default'));
    namespaces.add(accepting('ns-a', 'default'));
    expect(queued()).toEqual(['default/app']);
  });

  test('ConfigMaps are watched only where ConfigMirrors read (their source) or write (targets that accept them)', () => {
    expect(configMaps.namespaces).toEqual([]);
    mirrors.add(mirror('app')); // in default, targets ns-a
    expect(configMaps.namespaces).toEqual(['default']);
    namespaces.add(accepting('ns-b', 'default')); // accepts, but is not a target
    namespaces.add({ metadata: { name: 'ns-a' } });
    expect(configMaps.namespaces).toEqual(['default']);
    namespaces.update(accepting('ns-a', 'default'));
    expect(configMaps.namespaces).toEqual(['default', 'ns-a']);
    // A source in another namespace, refused by default: not watched.
    mirrors.add(mirror('reaches-out', { sourceNamespace: 'kube-system' }));
    expect(configMaps.namespaces).toEqual(['default', 'ns-a']);
    mirrors.delete(mirror('app'));
    mirrors.delete(mirror('reaches-out', { sourceNamespace: 'kube-system' }));
    expect(configMaps.namespaces).toEqual([]);
  });

  test('an edited or deleted copy queues the mirror whose uid it names, which reads it and repairs what drifted', () => {
    mirrors.add(mirror('app'));
    namespaces.add(accepting('ns-a', 'default'));
    configMaps.add(copy({ greeting: 'hello' }));
    queued();

    configMaps.update(copy({ greeting: 'tampered' }));
    expect(queued()).toEqual(['default/app']);
    configMaps.delete(copy({ greeting: 'tampered' }));
    expect(queued()).toEqual(['default/app']);
  });

  test('a ConfigMap whose owner annotation names a mirror it cannot prove it belongs to queues nothing', () => {
    mirrors.add(mirror('app')); // default/app, uid-app, copies app-config into ns-a
    const other = mirror('other', { sourceName: 'other-config' });
    mirrors.add({ ...other, metadata: { ...other.metadata, namespace: 'tenant-b' } });
    namespaces.add(accepting('ns-a', 'default'));
    namespaces.add(accepting('ns-c', 'someone-else'));
    queued();

    const forged = [
      copy({ x: '1' }, { uid: 'uid-guessed' }), // another uid
      copy({ x: '1' }, { uid: '' }), // no uid at all
      copy({ x: '1' }, { name: 'other-name' }), // not the source's name
      copy({ x: '1' }, { namespace: 'tenant-b' }), // another tenant's namespace, not a target
      copy({ x: '1' }, { owner: 'default/missing' }), // no such mirror
    ];
    for (const configMap of forged) {
      configMaps.add(configMap);
      configMaps.update(configMap);
      configMaps.delete(configMap);
    }
    expect(queued()).toEqual([]);
  });

  test('a ConfigMap that is not a copy queues no owner', () => {
    mirrors.add(mirror('app'));
    namespaces.add(accepting('ns-a', 'default'));
    configMaps.add(source({ greeting: 'hello' }));
    const unmanaged = copy({ greeting: 'other' });
    delete unmanaged.metadata!.labels![MANAGED_BY_LABEL];
    queued();

    configMaps.update(unmanaged);
    configMaps.delete(unmanaged);

    expect(queued()).toEqual([]);
  });

  test('deleting a ConfigMirror forgets its key: backoff, status writer, Event series and the generation seen', () => {
    const app = mirror('app', { generation: 3 });
    mirrors.add(app);
    queued();

    mirrors.delete(app);

    expect(forgotten).toHaveBeenCalledWith('default/app');
    expect(statusWriter.forget).toHaveBeenCalledWith(app);
    expect(recorder.forget).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'ConfigMirror', metadata: app.metadata }),
    );
    expect(queued()).toEqual([]);

    // The generation is forgotten too: the same uid/generation seen again is queued, not filtered out.
    mirrors.update(app);
    expect(queued()).toEqual(['default/app']);
  });

  test('a recorder that cannot forget the Event series does not break the delete', () => {
    const warn = muteLogger('warn');
    recorder.forget.mockImplementation(() => {
      throw new Error('not a known object');
    });
    const app = mirror('app');
    mirrors.add(app);

    expect(() => mirrors.delete(app)).not.toThrow();
    expect(forgotten).toHaveBeenCalledWith('default/app');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('could not forget the Event series of default/app'));
  });
});
