// Fixtures of the library's end-to-end tests: a fresh namespace per test on
// the shared control plane (or on an extra API server), real objects to
// publish about, and the Events read back through the API with client-node
// (never trusting what the library says it wrote).
import {
  ApiException,
  CoreV1Api,
  EventsV1Api,
  type EventsV1Event,
  type KubeConfig,
  type KubernetesObject,
  RbacAuthorizationV1Api,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventRecorder, type KubeEventsModuleOptions, PublishApiError } from 'nestjs-kube-events';
import { sharedControlPlane } from '../../../tools/control-plane/control-plane.js';

export const CONTROLLER = 'kube-events.e2e/widget-controller';
export const INSTANCE = 'widget-controller-0';
/** RFC 3339 with exactly six fractional digits, as the API server stores a MicroTime. */
export const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export function randomSuffix(bytes = 3): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * A fresh namespace on the shared control plane for each test of the
 * enclosing `describe`, deleted after it; `use` is handed each one.
 */
export function scratchPerTest(prefix: string, use: (scratch: Scratch) => void): void {
  let current: Scratch | undefined;
  beforeEach(async () => {
    current = await Scratch.create(sharedControlPlane().kubeConfig(), prefix);
    use(current);
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}

/** A fresh namespace and the admin clients to read back what the library wrote. */
export class Scratch {
  readonly core: CoreV1Api;
  readonly events: EventsV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  private readonly recorders: EventRecorder[] = [];
  private readonly clusterRoles = new Set<string>();
  private readonly nodes = new Set<string>();
  private readonly namespaces = new Set<string>();
  /** Events written to `default` (about cluster-scoped objects), deleted by cleanup(). */
  private readonly defaultEventsOf = new Set<string>();

  private constructor(
    readonly admin: KubeConfig,
    readonly namespace: string,
  ) {
    this.core = admin.makeApiClient(CoreV1Api);
    this.events = admin.makeApiClient(EventsV1Api);
    this.rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  }

  /** Creates a namespace named `<prefix>-<random>` through `admin`. */
  static async create(admin: KubeConfig, prefix: string): Promise<Scratch> {
    const scratch = new Scratch(admin, `${prefix}-${randomSuffix()}`);
    await scratch.createNamespace(scratch.namespace);
    return scratch;
  }

  /** Another namespace (with these labels), removed by cleanup() too. */
  async createNamespace(name: string, labels?: Record<string, string>) {
    const created = await this.core.createNamespace({ body: { metadata: { name, ...(labels ? { labels } : {}) } } });
    this.namespaces.add(name);
    return created;
  }

  /** A recorder writing to this cluster as the admin (unless `kubeConfig` says otherwise). */
  recorder(options: Partial<KubeEventsModuleOptions> = {}): EventRecorder {
    const recorder = new EventRecorder({
      reporter: { controller: CONTROLLER, instance: INSTANCE },
      kubeConfig: this.admin,
      ...options,
    });
    this.recorders.push(recorder);
    return recorder;
  }

  /** Shuts the recorders of this test down, as the application would: their connections close, and nothing outlives the test. */
  async shutDown(): Promise<void> {
    await Promise.all(this.recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
  }

  /** A real ConfigMap in this namespace (or another), as the server returned it: uid, resourceVersion, apiVersion, kind. */
  async configMap(name: string, namespace = this.namespace): Promise<V1ConfigMap & KubernetesObject> {
    const created = await this.core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name, namespace }, data: { key: 'value' } },
    });
    // Thrown rather than expected, so that benchmarks can stage objects too.
    if (created.apiVersion !== 'v1' || created.kind !== 'ConfigMap' || typeof created.metadata?.uid !== 'string')
      throw new Error(`the server returned a ConfigMap without apiVersion, kind or uid: ${JSON.stringify(created)}`);
    return created;
  }

  /** A real ClusterRole (names may hold upper case and ':'), deleted by cleanup(). */
  async clusterRole(name: string): Promise<KubernetesObject> {
    const created = await this.rbac.createClusterRole({ body: { metadata: { name }, rules: [] } });
    this.clusterRoles.add(name);
    this.defaultEventsOf.add(created.metadata!.uid!);
    return {
      ...created,
      apiVersion: created.apiVersion ?? 'rbac.authorization.k8s.io/v1',
      kind: created.kind ?? 'ClusterRole',
    };
  }

  /** A Node object (no kubelet behind it), deleted by cleanup(). */
  async node(name: string): Promise<KubernetesObject> {
    const created = await this.core.createNode({ body: { metadata: { name } } });
    this.nodes.add(name);
    this.defaultEventsOf.add(created.metadata!.uid!);
    return { ...created, apiVersion: created.apiVersion ?? 'v1', kind: created.kind ?? 'Node' };
  }

  /** This scratch namespace as an object to publish about (cluster-scoped: its Events go to `default`). */
  async namespaceObject(): Promise<KubernetesObject> {
    const read = await this.core.readNamespace({ name: this.namespace });
    this.defaultEventsOf.add(read.metadata!.uid!);
    return { ...read, apiVersion: read.apiVersion ?? 'v1', kind: read.kind ?? 'Namespace' };
  }

  /** Every Event in `namespace` (this one by default), oldest first. */
  async allEvents(namespace = this.namespace): Promise<EventsV1Event[]> {
    const list = await this.events.listNamespacedEvent({ namespace });
    return list.items.sort((a, b) => String(a.eventTime).localeCompare(String(b.eventTime)));
  }

  /** The Events regarding the object with this uid, oldest first. */
  async eventsAbout(
    object: KubernetesObject,
    namespace = object.metadata?.namespace || 'default',
  ): Promise<EventsV1Event[]> {
    const uid = object.metadata!.uid!;
    return (await this.allEvents(namespace)).filter((event) => event.regarding?.uid === uid);
  }

  /** Reads one Event by name; undefined once it is gone (404). */
  async readEvent(name: string, namespace = this.namespace): Promise<EventsV1Event | undefined> {
    try {
      return await this.events.readNamespacedEvent({ name, namespace });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }

  /** Deletes one Event, as the API server does once its --event-ttl has passed. */
  async deleteEvent(name: string, namespace = this.namespace): Promise<void> {
    await this.events.deleteNamespacedEvent({ name, namespace });
  }

  /**
   * Shuts the recorders down (as the application would), then removes what the test made: Events about cluster-scoped objects in
   * `default`, ClusterRoles and Nodes, then each namespace with its content. Without
   * kube-controller-manager nothing empties and finalizes a deleted
   * namespace, so this does both, as the namespace controller would.
   */
  async cleanup(): Promise<void> {
    const quietly = async (work: Promise<unknown>) => {
      try {
        await work;
      } catch {
        // already gone, or never made
      }
    };
    // No recorder (its timers, its connections) outlives the test.
    await quietly(this.shutDown());
    if (this.defaultEventsOf.size) {
      const inDefault = await this.events.listNamespacedEvent({ namespace: 'default' }).catch(() => ({ items: [] }));
      for (const event of inDefault.items) {
        if (this.defaultEventsOf.has(event.regarding?.uid ?? '')) {
          await quietly(this.events.deleteNamespacedEvent({ name: event.metadata!.name!, namespace: 'default' }));
        }
      }
    }
    for (const name of this.clusterRoles) await quietly(this.rbac.deleteClusterRole({ name }));
    for (const name of this.nodes) await quietly(this.core.deleteNode({ name }));
    for (const namespace of this.namespaces) {
      await quietly(this.events.deleteCollectionNamespacedEvent({ namespace }));
      await quietly(this.core.deleteCollectionNamespacedConfigMap({ namespace }));
      await quietly(this.rbac.deleteCollectionNamespacedRoleBinding({ namespace }));
      await quietly(this.rbac.deleteCollectionNamespacedRole({ namespace }));
      await quietly(this.core.deleteCollectionNamespacedServiceAccount({ namespace }));
      await quietly(this.core.deleteNamespace({ name: namespace }));
      await quietly(
        this.core.replaceNamespaceFinalize({
          name: namespace,
          body: { metadata: { name: namespace }, spec: { finalizers: [] } },
        }),
      );
    }
  }
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Whether a publish was refused with 403 Forbidden: the identity may not write Events there. */
export const forbidden = (error: unknown): boolean => error instanceof PublishApiError && error.statusCode === 403;

/** The API server's refusal of a hand-made request that must fail. */
export async function apiRefusal(
  request: Promise<unknown>,
): Promise<{ code: number; reason?: string; message: string }> {
  const error = await rejectionOf(request);
  if (!(error instanceof ApiException)) throw error;
  let body: unknown = error.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // not JSON
    }
  }
  const status = (body ?? {}) as { reason?: string; message?: string };
  return { code: error.code, reason: status.reason, message: status.message ?? String(error.body) };
}

/** Retries `attempt` while it throws something `retryable` accepts, for at most `limitMs`. */
export async function retrying<T>(
  attempt: () => Promise<T>,
  retryable: (error: unknown) => boolean,
  limitMs = 10_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error) || Date.now() - started > limitMs) throw error;
      await sleep(100);
    }
  }
}
