// The sample operator (apps/sample-operator) against the control plane that
// test/e2e/global-setup.ts started. Every assertion reads what the API server
// holds, through @kubernetes/client-node: the ConfigMirror's status, the
// events.k8s.io/v1 Events about it (as listed, and as a watch saw them come
// and change), and the copies. Nothing is asserted on log lines.
//
// 1. As the admin: a ConfigMirror whose source is missing fails, retried with
//    backoff, into ONE Warning ReconcileFailed Event whose series.count grows;
//    the source appears, the mirror becomes Ready and a Normal Synced Event
//    says what was copied; the source goes away again, and that failure gets a
//    NEW Event; a spec change is reflected in observedGeneration.
// 2. As the ServiceAccount of apps/sample-operator/deploy (its
//    service-account.yaml and rbac.yaml applied as they ship, the mirror's
//    namespace and the targets opted in as examples/mirror-namespace.yaml and
//    examples/target-namespace.yaml show): the same
//    loop works end to end, with no 403 anywhere, so the least RBAC is
//    sufficient.
// 3. The namespace rules, by default: a source in another namespace is refused
//    with the same Warning whether it exists or not; a target namespace that
//    has not opted in is refused with the same Warning whether it exists or
//    not, and nothing is written there; opting in lets the mirror in.
// 4. With MIRROR_SOURCES and MIRROR_TARGETS set to any-namespace, a mirror
//    reads another namespace and writes into one that did not opt in.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type EventsV1Event,
  type KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  type V1ConfigMap,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { startOperator, type PublicOperatorStatus, type RunningOperator } from './support/operator-in-process.js';
import type {
  ConfigMirror,
  ConfigMirrorCondition,
} from '../../apps/sample-operator/src/config-mirror/config-mirror.types.js';
import {
  CONFIG_MIRROR_API_VERSION as API_VERSION,
  CONFIG_MIRROR_CONTROLLER as CONTROLLER,
  CONFIG_MIRROR_GROUP as GROUP,
  CONFIG_MIRROR_PLURAL as PLURAL,
  CONFIG_MIRROR_VERSION as VERSION,
  MIRROR_NAME_LABEL as MIRROR_LABEL,
  acceptMirrorsFromLabel,
} from '../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { installConfigMirrorCrd, removeConfigMirrorCrd } from './support/operator-fixtures.js';
import { ConfigMirrors } from './support/config-mirrors.js';
import { OperatorLog, eventuallyShowing } from './support/operator-log.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = join(REPO_ROOT, 'apps/sample-operator/deploy');
const SERVICE_ACCOUNT = { namespace: 'configmirror-system', name: 'configmirror-controller' };
/** Quick retries: 5 ms doubling, capped at 500 ms. */
const RETRY_MAX_DELAY_MS = 500;

// ---------------------------------------------------------------------------
// Helpers

const suffix = () => randomBytes(3).toString('hex');

const eventually = eventuallyShowing(() => operatorLog, 20_000);

async function kubectlOk(cp: ControlPlane, args: string[]): Promise<string> {
  const result = await cp.kubectl(args);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** The log of the operator running now; `eventually` shows its end when it times out. */
let operatorLog: OperatorLog | undefined;

interface SeenEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  event: EventsV1Event;
}

/**
 * Watches the events.k8s.io/v1 Events of one namespace from a known
 * resourceVersion, so that each Event is seen as it was created and as each
 * patch changed it. Re-watches from the last version seen when the watch ends.
 */
class EventWatch {
  readonly seen: SeenEvent[] = [];
  private controller: AbortController | undefined;
  private stopped = false;
  private resourceVersion = '';

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const list = await this.kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: this.namespace });
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    await this.watch();
  }

  /** What the watch saw of the Event named `name`, in order. */
  history(name: string): SeenEvent[] {
    return this.seen.filter((seen) => seen.event.metadata?.name === name);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.controller?.abort();
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    this.controller = await new Watch(this.kubeConfig).watch(
      `/apis/events.k8s.io/v1/namespaces/${this.namespace}/events`,
      { resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
      (type, object: EventsV1Event) => {
        if (object?.metadata?.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
        if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') this.seen.push({ type, event: object });
      },
      () => {
        if (!this.stopped) void this.watch().catch(() => {});
      },
    );
    if (this.stopped) this.controller.abort();
  }
}

/** What a test needs to drive one ConfigMirror and read what the API server holds about it. */
class Scenario {
  readonly core: CoreV1Api;
  readonly customObjects: CustomObjectsApi;
  readonly events: EventsV1Api;
  readonly mirrors: ConfigMirrors;
  readonly namespace: string;
  readonly targets: string[];
  readonly name = 'app-config';

  constructor(admin: KubeConfig, prefix: string) {
    this.core = admin.makeApiClient(CoreV1Api);
    this.customObjects = admin.makeApiClient(CustomObjectsApi);
    this.events = admin.makeApiClient(EventsV1Api);
    this.mirrors = new ConfigMirrors(admin);
    const id = suffix();
    this.namespace = `${prefix}-${id}`;
    this.targets = [`${prefix}-${id}-a`, `${prefix}-${id}-b`];
  }

  get source(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** The mirror's namespace, and its targets, which accept copies from it. */
  async createNamespaces(): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name: this.namespace } } });
    for (const name of this.targets) {
      await this.core.createNamespace({
        body: { metadata: { name, labels: { [acceptMirrorsFromLabel(this.namespace)]: 'true' } } },
      });
    }
  }

  /**
   * Deletes the ConfigMirror and waits until it is gone, then the namespaces.
   * (The control plane has no namespace controller: a deleted namespace stays
   * Terminating, with its objects, so an operator started later would still
   * reconcile a ConfigMirror left in it and be refused its Events there.)
   */
  async cleanUp(): Promise<void> {
    await this.mirrors.delete(this.namespace, this.name);
    for (const name of [this.namespace, ...this.targets]) {
      await this.core.deleteNamespace({ name }).catch(() => {});
    }
  }

  createMirror(targets = this.targets): Promise<ConfigMirror> {
    return this.mirrors.create(this.namespace, this.name, { sourceName: this.name, targetNamespaces: targets });
  }

  mirror(): Promise<ConfigMirror> {
    return this.mirrors.read(this.namespace, this.name);
  }

  ready(): Promise<ConfigMirrorCondition | undefined> {
    return this.mirrors.ready(this.namespace, this.name);
  }

  createSource(data: Record<string, string>): Promise<V1ConfigMap> {
    return this.mirrors.createConfigMap(this.namespace, this.name, data);
  }

  /** The Events about the ConfigMirror (by uid), oldest first. */
  async mirrorEvents(): Promise<EventsV1Event[]> {
    const uid = (await this.mirror()).metadata.uid;
    const list = await this.events.listNamespacedEvent({ namespace: this.namespace });
    return list.items
      .filter((event) => event.regarding?.uid === uid)
      .sort((a, b) => Date.parse(String(a.eventTime)) - Date.parse(String(b.eventTime)));
  }

  async failureEvents(): Promise<EventsV1Event[]> {
    return (await this.mirrorEvents()).filter(
      (event) => event.type === 'Warning' && event.reason === 'ReconcileFailed',
    );
  }

  copy(namespace: string): Promise<V1ConfigMap | undefined> {
    return this.mirrors.configMap(namespace, this.name);
  }
}

function seriesCount(event: EventsV1Event | undefined): number {
  return event?.series?.count ?? (event ? 1 : 0);
}

// ---------------------------------------------------------------------------

describe('sample operator (ConfigMirror) against the control plane', () => {
  let cp: ControlPlane;
  let admin: KubeConfig;
  let installedCrd = false;

  beforeAll(async () => {
    cp = sharedControlPlane();
    admin = cp.kubeConfig();
    installedCrd = await installConfigMirrorCrd(cp);
  });

  afterAll(async () => {
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  describe('as the cluster admin', () => {
    let scenario: Scenario;
    let operator: RunningOperator | undefined;
    let logs: OperatorLog;
    let watch: EventWatch;
    let firstFailure: EventsV1Event;
    let recoveredAt: { uid: string; count: number };

    beforeAll(async () => {
      scenario = new Scenario(admin, 'mirror-e2e');
      await scenario.createNamespaces();
      watch = new EventWatch(admin, scenario.namespace);
      await watch.start();
      logs = new OperatorLog();
      operatorLog = logs;
      operator = await startOperator(
        {
          kubeConfig: cp.kubeConfig(),
          instance: 'e2e-admin',
          retryMaxDelayMs: RETRY_MAX_DELAY_MS,
          resyncPeriodMs: 0,
          shutdownTimeoutMs: 5_000,
        },
        { logger: logs },
      );
      await operator.whenReady();
    });

    afterAll(async () => {
      await operator?.stop();
      await watch?.stop();
      await scenario?.cleanUp();
    });

    test('a missing source: ONE Warning ReconcileFailed Event whose series.count grows, and Ready=False SourceNotFound', async () => {
      const created = await scenario.createMirror();

      const growing = await eventually('a ReconcileFailed Event with series.count >= 2', async () => {
        const [event] = await scenario.failureEvents();
        return seriesCount(event) >= 2 && event;
      });
      const grown = await eventually('the series.count to grow again', async () => {
        const [event] = await scenario.failureEvents();
        return seriesCount(event) > seriesCount(growing) && event;
      });

      const failures = await scenario.failureEvents();
      expect(failures).toHaveLength(1);
      firstFailure = failures[0];
      expect(grown.metadata?.name).toBe(growing.metadata?.name);
      expect(firstFailure).toMatchObject({
        type: 'Warning',
        reason: 'ReconcileFailed',
        action: 'Reconcile',
        note: `source ConfigMap ${scenario.source} not found`,
        reportingController: CONTROLLER,
        reportingInstance: 'e2e-admin',
        regarding: {
          apiVersion: API_VERSION,
          kind: 'ConfigMirror',
          name: scenario.name,
          namespace: scenario.namespace,
          uid: created.metadata.uid,
        },
      });
      // Named like client-go's: the object's name, a dot, hex nanoseconds.
      expect(firstFailure.metadata?.name).toMatch(/^app-config\.[0-9a-f]+$/);
      expect(firstFailure.series?.lastObservedTime).toBeDefined();

      // The watch saw it created without a series, then patched with a growing count, never the
      // same count twice (retries that come while a write is in flight are folded into the next one).
      const history = await eventually('the watch to see the Event created and patched twice', async () => {
        const seen = watch.history(firstFailure.metadata!.name!);
        return seen.length >= 3 && seen;
      });
      expect(history[0].type).toBe('ADDED');
      expect(history[0].event.series).toBeUndefined();
      const counts = history.slice(1).map((seen) => seen.event.series?.count ?? 0);
      expect(counts.length).toBeGreaterThanOrEqual(2);
      expect(counts[0]).toBeGreaterThanOrEqual(2);
      counts.slice(1).forEach((count, index) => expect(count).toBeGreaterThan(counts[index]));

      const mirror = await scenario.mirror();
      const ready = mirror.status?.conditions?.find((condition) => condition.type === 'Ready');
      expect(ready).toMatchObject({
        status: 'False',
        reason: 'SourceNotFound',
        message: `source ConfigMap ${scenario.source} not found`,
        observedGeneration: mirror.metadata.generation,
      });
      expect(mirror.status?.observedGeneration).toBe(mirror.metadata.generation);
      expect(mirror.status?.syncedNamespaces ?? []).toEqual([]);

      // The condition's first status, once: retries that leave the status as it was publish no transition.
      const transitions = (await scenario.mirrorEvents()).filter((event) => event.action === 'UpdateStatus');
      expect(transitions).toHaveLength(1);
      expect(transitions[0]).toMatchObject({
        type: 'Warning',
        reason: 'SourceNotFound',
        note: `Ready → False: source ConfigMap ${scenario.source} not found`,
        reportingController: CONTROLLER,
      });
      expect(transitions[0].series).toBeUndefined();
    });

    test('the source appears: Ready=True Synced, one Normal Synced Event saying what was copied, and the copies', async () => {
      expect(firstFailure).toBeDefined();
      await scenario.createSource({ greeting: 'hello', color: 'blue' });

      const ready = await eventually('Ready=True', async () => {
        const condition = await scenario.ready();
        return condition?.status === 'True' && condition;
      });
      expect(ready).toMatchObject({
        reason: 'Synced',
        message: `ConfigMap ${scenario.source} is mirrored to ${scenario.targets.join(', ')}`,
      });
      const mirror = await scenario.mirror();
      expect(mirror.status?.observedGeneration).toBe(mirror.metadata.generation);
      expect(mirror.status?.syncedNamespaces).toEqual([...scenario.targets].sort());

      const synced = await eventually('the Synced Event', async () =>
        (await scenario.mirrorEvents()).filter((event) => event.reason === 'Synced' && event.action === 'Sync'),
      );
      expect(synced).toHaveLength(1);
      expect(synced[0]).toMatchObject({
        type: 'Normal',
        reason: 'Synced',
        action: 'Sync',
        note: `copied ConfigMap ${scenario.source} to ${scenario.targets.join(', ')}`,
        reportingController: CONTROLLER,
        regarding: { kind: 'ConfigMirror', name: scenario.name, uid: mirror.metadata.uid },
      });

      // Ready's transition, published once the status write succeeded, as `kubectl describe` shows it.
      const mirrored = `ConfigMap ${scenario.source} is mirrored to ${scenario.targets.join(', ')}`;
      const turnedTrue = await eventually('the Event of Ready turning True', async () =>
        (await scenario.mirrorEvents()).find((event) => event.action === 'UpdateStatus' && event.type === 'Normal'),
      );
      expect(turnedTrue).toMatchObject({ reason: 'Synced', note: `Ready False → True: ${mirrored}` });
      const described = await cp.kubectl(['describe', 'configmirror', scenario.name, '-n', scenario.namespace]);
      expect(described.code).toBe(0);
      expect(described.stdout).toMatch(
        new RegExp(`^\\s+Normal\\s+Synced\\s+\\S+\\s+\\S+\\s+Ready False → True: ConfigMap \\S+ is mirrored to`, 'm'),
      );

      for (const namespace of scenario.targets) {
        const copy = await scenario.copy(namespace);
        expect(copy?.data).toEqual({ greeting: 'hello', color: 'blue' });
        expect(copy?.metadata?.labels?.[MIRROR_LABEL]).toBe(scenario.name);
      }
      const labelled = await scenario.core.listConfigMapForAllNamespaces({
        labelSelector: `${MIRROR_LABEL}=${scenario.name}`,
      });
      expect(labelled.items.map((item) => item.metadata?.namespace).sort()).toEqual(
        expect.arrayContaining([...scenario.targets].sort()),
      );

      // The failure series stopped: its Event still exists, unchanged from here on. Every failed
      // reconcile awaited its publish (@PublishesFailures), so its count is on the server already.
      const [failure] = await scenario.failureEvents();
      expect(failure.metadata?.name).toBe(firstFailure.metadata?.name);
      recoveredAt = { uid: failure.metadata!.uid!, count: seriesCount(failure) };
      await sleep(2 * RETRY_MAX_DELAY_MS);
      const [later] = await scenario.failureEvents();
      expect(seriesCount(later)).toBe(recoveredAt.count);
    });

    test('the source goes away again: a NEW Warning Event (another name, created without a series), Ready=False', async () => {
      expect(recoveredAt).toBeDefined();
      await scenario.core.deleteNamespacedConfigMap({ namespace: scenario.namespace, name: scenario.name });

      const fresh = await eventually('a second ReconcileFailed Event', async () => {
        const failures = await scenario.failureEvents();
        return failures.find((event) => event.metadata?.name !== firstFailure.metadata?.name);
      });
      expect(fresh.metadata?.name).not.toBe(firstFailure.metadata?.name);
      expect(fresh).toMatchObject({
        type: 'Warning',
        reason: 'ReconcileFailed',
        note: `source ConfigMap ${scenario.source} not found`,
      });
      const history = await eventually('the watch to see the new Event', async () => {
        const seen = watch.history(fresh.metadata!.name!);
        return seen.length > 0 && seen;
      });
      expect(history[0]).toMatchObject({ type: 'ADDED' });
      expect(history[0].event.series).toBeUndefined();

      // The old Event was left as it was.
      const old = (await scenario.failureEvents()).find(
        (event) => event.metadata?.name === firstFailure.metadata?.name,
      );
      expect(seriesCount(old)).toBe(recoveredAt.count);
      expect(await scenario.failureEvents()).toHaveLength(2);

      const ready = await eventually('Ready=False again', async () => {
        const condition = await scenario.ready();
        return condition?.status === 'False' && condition;
      });
      expect(ready.reason).toBe('SourceNotFound');
      // The copies stay: the operator never deletes them.
      for (const namespace of scenario.targets) expect(await scenario.copy(namespace)).toBeDefined();
    });

    test('a spec change: the status reports the new observedGeneration and the new cause', async () => {
      await scenario.createSource({ greeting: 'hello again' });
      await eventually('Ready=True', async () => (await scenario.ready())?.status === 'True');
      const before = await scenario.mirror();
      const missing = `${scenario.namespace}-missing`;
      const notAllowed = `target namespace ${missing} does not accept mirrors from ${scenario.namespace}: it needs the label ${acceptMirrorsFromLabel(scenario.namespace)}=true`;
      const patched = (await scenario.customObjects.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace: scenario.namespace,
          name: scenario.name,
          body: [{ op: 'add', path: '/spec/targetNamespaces/-', value: missing }],
        },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      )) as ConfigMirror;
      expect(patched.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);

      const mirror = await eventually('status for the new generation', async () => {
        const current = await scenario.mirror();
        return current.status?.observedGeneration === patched.metadata.generation && current;
      });
      const ready = mirror.status?.conditions?.find((condition) => condition.type === 'Ready');
      expect(ready).toMatchObject({
        status: 'False',
        reason: 'TargetNotAllowed',
        message: notAllowed,
        observedGeneration: patched.metadata.generation,
      });
      // The reachable targets are still in sync, and say so.
      expect(mirror.status?.syncedNamespaces).toEqual([...scenario.targets].sort());
      const failure = await eventually('a ReconcileFailed Event about the missing namespace', async () =>
        (await scenario.failureEvents()).find((event) => event.note === notAllowed),
      );
      expect(failure.regarding?.resourceVersion).toBeDefined();
    });
  });

  describe('as the ServiceAccount of apps/sample-operator/deploy, before its Events Role is applied', () => {
    const CAN_I_EVENTS = ['auth', 'can-i', 'create', 'events.events.k8s.io', '-n', SERVICE_ACCOUNT.namespace];
    const AS = `--as=system:serviceaccount:${SERVICE_ACCOUNT.namespace}:${SERVICE_ACCOUNT.name}`;
    let operator: RunningOperator | undefined;
    let logs: OperatorLog;

    async function status(): Promise<PublicOperatorStatus> {
      const response = await fetch(`http://127.0.0.1:${operator!.healthProbePort}/status`);
      return (await response.json()) as PublicOperatorStatus;
    }

    const permissionLines = () =>
      logs.lines.filter((line) => line.includes('events.k8s.io') && line.includes('cannot all be written'));

    beforeAll(async () => {
      await cp.kubectl(['delete', '-f', join(DEPLOY, 'events-rbac.yaml'), '--ignore-not-found']);
      await kubectlOk(cp, ['apply', '-f', join(DEPLOY, 'service-account.yaml'), '-f', join(DEPLOY, 'rbac.yaml')]);
      await eventually('no Events rights in its namespace', async () =>
        (await cp.kubectl([...CAN_I_EVENTS, AS])).stdout.trim() === 'no' ? true : undefined,
      );
      const { kubeConfig } = await serviceAccountKubeConfig(cp, SERVICE_ACCOUNT);
      logs = new OperatorLog();
      operatorLog = logs;
      operator = await startOperator(
        {
          kubeConfig,
          instance: 'e2e-events-rbac',
          retryMaxDelayMs: RETRY_MAX_DELAY_MS,
          shutdownTimeoutMs: 5_000,
          healthProbePort: 0,
          healthProbeBindAddress: '127.0.0.1',
        },
        { logger: logs },
      );
    });

    afterAll(async () => {
      await operator?.stop();
      await cp.kubectl(['delete', '-f', join(DEPLOY, 'events-rbac.yaml'), '--ignore-not-found', '--wait=false']);
      await cp.kubectl(['delete', '-f', join(DEPLOY, 'rbac.yaml'), '--ignore-not-found', '--wait=false']);
    });

    test('it says once at start-up which verbs it lacks; /status counts it, in words and counts, and stays ready', async () => {
      const [line] = await eventually('the start-up line about Events', async () => {
        const lines = permissionLines();
        return lines.length ? lines : undefined;
      });
      expect(line).toMatch(/^WARN \[EventRecorder\] /);
      expect(line).toContain(
        `system:serviceaccount:${SERVICE_ACCOUNT.namespace}:${SERVICE_ACCOUNT.name} may not create, get, patch, list events in API group events.k8s.io`,
      );
      expect(line).toContain(`in namespace "${SERVICE_ACCOUNT.namespace}"`);

      // No Event went to its own namespace yet: a warning, not a reason Events cannot be written.
      const { events } = operator!.status();
      expect(events).toMatchObject({
        writable: true,
        problems: [],
        permissions: {
          scope: 'per-namespace',
          missing: [
            { namespace: SERVICE_ACCOUNT.namespace, verbs: ['create', 'get', 'patch', 'list'], published: false },
          ],
        },
      });
      expect(events.warnings).toEqual([
        `may not create, get, patch events.k8s.io events in namespace "${SERVICE_ACCOUNT.namespace}", where nothing was published yet`,
      ]);
      const body = await status();
      expect(body.events).toMatchObject({
        writable: true,
        permissions: { scope: 'per-namespace', missingWherePublished: 0, missingElsewhere: 1 },
        warnings: 1,
      });
      expect(JSON.stringify(body)).not.toContain(SERVICE_ACCOUNT.namespace);
      expect(Object.keys(body).sort()).toEqual(['controller', 'events', 'instance', 'leaderElection']);
      // Events only report on the copies: the operator stays ready while it cannot write them.
      expect((await fetch(`http://127.0.0.1:${operator!.healthProbePort}/readyz`)).status).toBe(200);
      expect(permissionLines()).toHaveLength(1);
    });

    test('once deploy/events-rbac.yaml is applied, the finding goes, with no further line', async () => {
      await kubectlOk(cp, ['apply', '-f', join(DEPLOY, 'events-rbac.yaml')]);
      // The recorder reviews a namespace found missing again every 30 s.
      const body = await eventually(
        'no right missing in /status',
        async () => {
          const body = await status();
          return body.events.permissions.missingElsewhere === 0 ? body : undefined;
        },
        90_000,
      );
      expect(body.events).toMatchObject({ writable: true, problems: 0, warnings: 0 });
      expect(operator!.status().events).toMatchObject({ problems: [], warnings: [], permissions: { missing: [] } });
      expect(permissionLines()).toHaveLength(1);
    }, 120_000);
  });

  describe('as the ServiceAccount of apps/sample-operator/deploy (least RBAC)', () => {
    let scenario: Scenario;
    let operator: RunningOperator | undefined;
    let logs: OperatorLog;
    let serviceAccount: KubeConfig;

    beforeAll(async () => {
      await kubectlOk(cp, [
        'apply',
        '-f',
        join(DEPLOY, 'service-account.yaml'),
        '-f',
        join(DEPLOY, 'rbac.yaml'),
        '-f',
        join(DEPLOY, 'events-rbac.yaml'),
      ]);
      serviceAccount = (await serviceAccountKubeConfig(cp, SERVICE_ACCOUNT)).kubeConfig;
      // RBAC changes reach the authorizer's cache quickly, but not instantly.
      await eventually('the ClusterRoleBinding to take effect', async () => {
        await serviceAccount
          .makeApiClient(CustomObjectsApi)
          .listCustomObjectForAllNamespaces({ group: GROUP, version: VERSION, resourcePlural: PLURAL });
        return true;
      });
      scenario = new Scenario(admin, 'mirror-e2e-sa');
      await scenario.createNamespaces();
      // The mirror's namespace lets the operator in for its ConfigMirrors (examples/mirror-namespace.yaml), and
      // the targets let it write there (examples/target-namespace.yaml).
      const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
      const bindings: [string, string][] = [
        [scenario.namespace, 'configmirror-controller-mirrors'],
        ...scenario.targets.map((namespace): [string, string] => [namespace, 'configmirror-controller-copies']),
      ];
      for (const [namespace, role] of bindings) {
        await rbac.createNamespacedRoleBinding({
          namespace,
          body: {
            metadata: { name: role, namespace },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
            subjects: [{ kind: 'ServiceAccount', ...SERVICE_ACCOUNT }],
          },
        });
      }
      logs = new OperatorLog();
      operatorLog = logs;
      operator = await startOperator(
        {
          kubeConfig: serviceAccount,
          instance: 'e2e-sa',
          retryMaxDelayMs: RETRY_MAX_DELAY_MS,
          resyncPeriodMs: 0,
          shutdownTimeoutMs: 5_000,
        },
        { logger: logs },
      );
      await operator.whenReady();
    });

    afterAll(async () => {
      await operator?.stop();
      await scenario?.cleanUp();
      await cp.kubectl(['delete', '-f', join(DEPLOY, 'rbac.yaml'), '--ignore-not-found', '--wait=false']);
      await cp.kubectl(['delete', '-f', join(DEPLOY, 'events-rbac.yaml'), '--ignore-not-found', '--wait=false']);
      // Not service-account.yaml: the control plane has no namespace controller, so a deleted configmirror-system
      // would stay Terminating and refuse the ServiceAccount to the next file that applies it.
    });

    test('the credentials really are the restricted ServiceAccount', async () => {
      // Not allowed by rbac.yaml: deleting ConfigMaps, reading Secrets, writing ConfigMaps where no RoleBinding lets it.
      const core = serviceAccount.makeApiClient(CoreV1Api);
      await expect(core.listSecretForAllNamespaces()).rejects.toMatchObject({ code: 403 });
      await expect(
        core.deleteNamespacedConfigMap({ namespace: scenario.namespace, name: 'anything' }),
      ).rejects.toMatchObject({ code: 403 });
      await expect(
        core.createNamespacedConfigMap({ namespace: scenario.namespace, body: { metadata: { name: 'anything' } } }),
      ).rejects.toMatchObject({ code: 403 });
    });

    test('it reconciles, writes status, creates and patches Events, and repairs copies, without a 403', async () => {
      await scenario.createMirror();

      // Events: create (the first failure) and patch (series.count >= 2).
      const failure = await eventually('a ReconcileFailed Event with series.count >= 2', async () => {
        const [event] = await scenario.failureEvents();
        return seriesCount(event) >= 2 && event;
      });
      expect(failure).toMatchObject({
        reportingController: CONTROLLER,
        reportingInstance: 'e2e-sa',
        note: `source ConfigMap ${scenario.source} not found`,
      });
      // Status through the status subresource.
      await eventually('Ready=False SourceNotFound', async () => (await scenario.ready())?.reason === 'SourceNotFound');

      // Copies: namespaces get, configmaps create.
      await scenario.createSource({ greeting: 'hello' });
      await eventually('Ready=True', async () => (await scenario.ready())?.status === 'True');
      for (const namespace of scenario.targets)
        expect((await scenario.copy(namespace))?.data).toEqual({ greeting: 'hello' });

      // Copies: update, when someone edits one.
      const [drifting] = scenario.targets;
      const copy = (await scenario.copy(drifting))!;
      await scenario.core.replaceNamespacedConfigMap({
        namespace: drifting,
        name: scenario.name,
        body: { ...copy, data: { greeting: 'tampered' } },
      });
      await eventually('the copy repaired', async () => (await scenario.copy(drifting))?.data?.greeting === 'hello');
      const synced = await eventually('a Synced Event for the repair', async () => {
        const events = (await scenario.mirrorEvents()).filter((event) => event.reason === 'Synced');
        return events.find((event) => event.note === `copied ConfigMap ${scenario.source} to ${drifting}`);
      });
      expect(synced.reportingInstance).toBe('e2e-sa');

      const forbidden = logs.lines.filter((line) => /\b403\b|forbidden/i.test(line));
      expect(forbidden).toEqual([]);
    });
  });

  describe('namespace rules', () => {
    const namespaces: string[] = [];
    const mirrors: { namespace: string; name: string }[] = [];
    let core: CoreV1Api;
    let configMirrors: ConfigMirrors;
    let operator: RunningOperator | undefined;

    async function namespace(prefix: string, labels: Record<string, string> = {}): Promise<string> {
      const name = `${prefix}-${suffix()}`;
      await core.createNamespace({ body: { metadata: { name, labels } } });
      namespaces.push(name);
      return name;
    }

    async function createMirror(namespace: string, name: string, spec: ConfigMirror['spec']): Promise<void> {
      await configMirrors.create(namespace, name, spec);
      mirrors.push({ namespace, name });
    }

    /** The failure Warnings (ReconcileFailed, not the Ready condition's transitions) about one ConfigMirror, once there is one. */
    async function warnings(namespace: string, name: string): Promise<EventsV1Event[]> {
      const uid = (await configMirrors.read(namespace, name)).metadata.uid;
      return eventually(`a Warning Event about ConfigMirror ${namespace}/${name}`, async () => {
        const list = await admin.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
        const found = list.items.filter(
          (event) => event.regarding?.uid === uid && event.type === 'Warning' && event.reason === 'ReconcileFailed',
        );
        return found.length > 0 && found;
      });
    }

    async function startWith(options: Parameters<typeof startOperator>[0], instance: string): Promise<void> {
      const logs = new OperatorLog();
      operatorLog = logs;
      operator = await startOperator(
        {
          kubeConfig: cp.kubeConfig(),
          instance,
          retryMaxDelayMs: RETRY_MAX_DELAY_MS,
          resyncPeriodMs: 0,
          shutdownTimeoutMs: 5_000,
          ...options,
        },
        { logger: logs },
      );
      await operator.whenReady();
    }

    beforeAll(() => {
      core = admin.makeApiClient(CoreV1Api);
      configMirrors = new ConfigMirrors(admin);
    });

    afterEach(async () => {
      await operator?.stop();
      operator = undefined;
      for (const { namespace, name } of mirrors.splice(0)) await configMirrors.delete(namespace, name);
      for (const name of namespaces.splice(0)) await core.deleteNamespace({ name }).catch(() => {});
    });

    test('by default a source in another namespace is refused, with the same Warning whether it exists or not', async () => {
      await startWith({}, 'e2e-rules');
      const tenant = await namespace('tenant');
      const other = await namespace('other');
      const target = await namespace('target', { [acceptMirrorsFromLabel(tenant)]: 'true' });
      await configMirrors.createConfigMap(other, 'present', { password: 'hunter2' });
      await createMirror(tenant, 'reads-present', {
        sourceName: 'present',
        sourceNamespace: other,
        targetNamespaces: [target],
      });
      await createMirror(tenant, 'reads-absent', {
        sourceName: 'absent',
        sourceNamespace: other,
        targetNamespaces: [target],
      });

      const refusal = `spec.sourceNamespace ${other} is refused: a ConfigMirror copies only from its own namespace (${tenant}); nothing was read from ${other}`;
      for (const name of ['reads-present', 'reads-absent']) {
        const [warning] = await warnings(tenant, name);
        expect(warning).toMatchObject({
          type: 'Warning',
          reason: 'ReconcileFailed',
          note: refusal,
          reportingController: CONTROLLER,
        });
        const ready = await eventually('Ready=False', async () => {
          const condition = (await configMirrors.read(tenant, name)).status?.conditions?.find(
            (c) => c.type === 'Ready',
          );
          return condition?.status === 'False' && condition;
        });
        expect(ready).toMatchObject({ reason: 'SourceNotAllowed', message: refusal });
      }
      expect(await configMirrors.configMap(target, 'present')).toBeUndefined();
      expect(await configMirrors.configMap(target, 'absent')).toBeUndefined();
    });

    test('by default a target that has not opted in is refused alike whether it exists or not, and nothing is written there', async () => {
      await startWith({}, 'e2e-rules');
      const tenant = await namespace('tenant');
      const open = await namespace('open', { [acceptMirrorsFromLabel(tenant)]: 'true' });
      // It accepts mirrors, but from another namespace; and holds a ConfigMap of the source's name.
      const closed = await namespace('closed', { [acceptMirrorsFromLabel('someone-else')]: 'true' });
      const missing = `missing-${suffix()}`;
      await configMirrors.createConfigMap(closed, 'app-config', { theirs: 'yes' });
      await configMirrors.createConfigMap(tenant, 'app-config', { greeting: 'hello' });
      await createMirror(tenant, 'app-config', { sourceName: 'app-config', targetNamespaces: [open, closed, missing] });

      const label = acceptMirrorsFromLabel(tenant);
      const [warning] = await warnings(tenant, 'app-config');
      expect(warning.note).toBe(
        `target namespaces ${closed}, ${missing} do not accept mirrors from ${tenant}: each needs the label ${label}=true`,
      );
      const mirror = await eventually('Ready=False TargetNotAllowed', async () => {
        const current = await configMirrors.read(tenant, 'app-config');
        const ready = current.status?.conditions?.find((condition) => condition.type === 'Ready');
        return ready?.reason === 'TargetNotAllowed' && current;
      });
      expect(mirror.status?.syncedNamespaces).toEqual([open]);
      expect((await configMirrors.configMap(open, 'app-config'))?.data).toEqual({ greeting: 'hello' });
      const untouched = await configMirrors.configMap(closed, 'app-config');
      expect(untouched?.data).toEqual({ theirs: 'yes' });
      expect(untouched?.metadata?.labels?.[MIRROR_LABEL]).toBeUndefined();

      // Opting in lets the mirror in: only now does it learn that the name is taken there.
      await core.patchNamespace(
        { name: closed, body: { metadata: { labels: { [label]: 'true' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      const conflict = await eventually('the refusal to become a conflict', async () => {
        const ready = (await configMirrors.read(tenant, 'app-config')).status?.conditions?.find(
          (c) => c.type === 'Ready',
        );
        return ready?.message.includes(closed) && ready.message.includes('already exists') && ready;
      });
      expect(conflict.message).toContain(
        `target namespace ${missing} does not accept mirrors from ${tenant}: it needs the label ${label}=true`,
      );
      expect((await configMirrors.configMap(closed, 'app-config'))?.data).toEqual({ theirs: 'yes' });
    });

    test('a namespace that comes to accept a mirror gets its copy at once, not at the next retry', async () => {
      // Retries a minute apart: only the namespace watch can bring the copy within the test.
      await startWith({ retryBaseDelayMs: 60_000, retryMaxDelayMs: 60_000 }, 'e2e-rules');
      const tenant = await namespace('tenant');
      const later = await namespace('later');
      await configMirrors.createConfigMap(tenant, 'app-config', { greeting: 'hello' });
      await createMirror(tenant, 'app-config', { sourceName: 'app-config', targetNamespaces: [later] });
      const [warning] = await warnings(tenant, 'app-config');
      expect(warning.note).toContain(`target namespace ${later} does not accept mirrors from ${tenant}`);

      await core.patchNamespace(
        { name: later, body: { metadata: { labels: { [acceptMirrorsFromLabel(tenant)]: 'true' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      const copy = await eventually('the copy', () => configMirrors.configMap(later, 'app-config'), 10_000);
      expect(copy.data).toEqual({ greeting: 'hello' });
    });

    test('MIRROR_SOURCES=any-namespace and MIRROR_TARGETS=any-namespace let a mirror read and write anywhere', async () => {
      await startWith({ mirrorSources: 'any-namespace', mirrorTargets: 'any-namespace' }, 'e2e-rules-wide');
      const tenant = await namespace('tenant');
      const other = await namespace('other');
      const target = await namespace('target');
      await configMirrors.createConfigMap(other, 'shared', { greeting: 'from afar' });
      await createMirror(tenant, 'shared', {
        sourceName: 'shared',
        sourceNamespace: other,
        targetNamespaces: [target],
      });

      await eventually('Ready=True', async () => {
        const ready = (await configMirrors.read(tenant, 'shared')).status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True';
      });
      expect((await configMirrors.configMap(target, 'shared'))?.data).toEqual({ greeting: 'from afar' });
    });
  });
});
