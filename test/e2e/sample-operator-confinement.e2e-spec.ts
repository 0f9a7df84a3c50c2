// The sample operator as a hostile tenant meets it, on the real API server,
// running as the ServiceAccount of apps/sample-operator/deploy with its RBAC
// applied as it ships. Every assertion reads what the API server holds (or
// answers), or what the operator's /status reports of its own caches:
// 1. The API server confines it: it may not read kube-system's ConfigMaps nor
//    write Events there; a mirror into a namespace that did not opt in (no
//    RoleBinding) is refused by the API server, and the refusal shows as a
//    Warning Event and in the status; a mirror in a namespace that did not
//    opt in shows the refusal in its status.
// 2. Its cache does not grow with what a tenant stores: 50 ConfigMaps of
//    900 KiB, in a namespace it watches, add their metadata and nothing else.
// 3. A ConfigMap whose owner annotations name another tenant's mirror (its
//    uid included) does not queue that mirror: its Event does not count on.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  EventsV1Api,
  type EventsV1Event,
  type KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { startOperator, type RunningOperator } from './support/operator-in-process.js';
import type { ConfigMirror } from '../../apps/sample-operator/src/config-mirror/config-mirror.types.js';
import {
  COPIES_CLUSTER_ROLE,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MIRROR_NAME_LABEL,
  MIRROR_OWNER_ANNOTATION,
  MIRROR_OWNER_UID_ANNOTATION,
  MIRROR_SOURCE_ANNOTATION,
  MIRRORS_CLUSTER_ROLE,
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
const AS_OPERATOR = `--as=system:serviceaccount:${SERVICE_ACCOUNT.namespace}:${SERVICE_ACCOUNT.name}`;
/** Retries a minute apart: within a test, a mirror reconciles again only when something queues it. */
const SLOW_RETRY_MS = 60_000;

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const suffix = () => randomBytes(3).toString('hex');

const log = new OperatorLog();
const eventually = eventuallyShowing(() => log, 30_000);

describe('sample operator: what a tenant cannot make it do', () => {
  let cp: ControlPlane;
  let admin: KubeConfig;
  let core: CoreV1Api;
  let rbac: RbacAuthorizationV1Api;
  let configMirrors: ConfigMirrors;
  let installedCrd = false;
  let operator: RunningOperator | undefined;
  const namespaces: string[] = [];
  const mirrors: { namespace: string; name: string }[] = [];

  /** A fresh namespace, opted in for its ConfigMirrors and/or its copies as asked. */
  async function namespace(
    prefix: string,
    optIn: { mirrors?: boolean; copies?: boolean; acceptFrom?: string } = {},
  ): Promise<string> {
    const name = `${prefix}-${suffix()}`;
    const labels = optIn.acceptFrom ? { [acceptMirrorsFromLabel(optIn.acceptFrom)]: 'true' } : undefined;
    await core.createNamespace({ body: { metadata: { name, ...(labels ? { labels } : {}) } } });
    namespaces.push(name);
    for (const [wanted, role] of [
      [optIn.mirrors, MIRRORS_CLUSTER_ROLE],
      [optIn.copies, COPIES_CLUSTER_ROLE],
    ] as const) {
      if (!wanted) continue;
      await rbac.createNamespacedRoleBinding({
        namespace: name,
        body: {
          metadata: { name: role, namespace: name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', ...SERVICE_ACCOUNT }],
        },
      });
    }
    return name;
  }

  /** Waits until the authorizer lets the operator list ConfigMaps in `namespace` (RBAC takes effect quickly, not at once). */
  async function boundIn(namespace: string): Promise<void> {
    await eventually(`the RoleBinding in ${namespace} to take effect`, async () => {
      const result = await cp.kubectl(['auth', 'can-i', 'list', 'configmaps', '-n', namespace, AS_OPERATOR]);
      return result.stdout.trim() === 'yes';
    });
  }

  async function createMirror(namespace: string, name: string, spec: ConfigMirror['spec']): Promise<ConfigMirror> {
    mirrors.push({ namespace, name });
    return configMirrors.create(namespace, name, spec);
  }

  async function warnings(namespace: string, name: string): Promise<EventsV1Event[]> {
    const uid = (await configMirrors.read(namespace, name)).metadata.uid;
    const list = await admin.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
    return list.items.filter((event) => event.regarding?.uid === uid && event.type === 'Warning');
  }

  /** The Warnings of failed reconciles, without those of the Ready condition's transitions. */
  async function failures(namespace: string, name: string): Promise<EventsV1Event[]> {
    return (await warnings(namespace, name)).filter((event) => event.reason === 'ReconcileFailed');
  }

  async function startAsServiceAccount(retryMs?: number): Promise<RunningOperator> {
    const { kubeConfig } = await serviceAccountKubeConfig(cp, SERVICE_ACCOUNT);
    log.clear();
    operator = await startOperator(
      {
        kubeConfig,
        instance: 'e2e-confined',
        resyncPeriodMs: 0,
        shutdownTimeoutMs: 5_000,
        ...(retryMs ? { retryBaseDelayMs: retryMs, retryMaxDelayMs: retryMs } : { retryMaxDelayMs: 500 }),
      },
      { logger: log },
    );
    await operator.whenReady();
    return operator;
  }

  beforeAll(async () => {
    cp = sharedControlPlane();
    admin = cp.kubeConfig();
    core = admin.makeApiClient(CoreV1Api);
    rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    configMirrors = new ConfigMirrors(admin);
    installedCrd = await installConfigMirrorCrd(cp);
    const applied = await cp.kubectl([
      'apply',
      '-f',
      join(DEPLOY, 'service-account.yaml'),
      '-f',
      join(DEPLOY, 'rbac.yaml'),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply exited with ${applied.code}: ${applied.stderr}`);
    await eventually('the ClusterRoleBinding to take effect', async () => {
      const result = await cp.kubectl([
        'auth',
        'can-i',
        'watch',
        'configmirrors.mirror.kube-events.dev',
        '-A',
        AS_OPERATOR,
      ]);
      return result.stdout.trim() === 'yes';
    });
  }, 120_000);

  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    for (const { namespace, name } of mirrors.splice(0)) await configMirrors.delete(namespace, name);
    // The control plane has no namespace controller: what a namespace holds stays until deleted.
    for (const name of namespaces.splice(0)) {
      await core.deleteCollectionNamespacedConfigMap({ namespace: name }).catch(() => {});
      await core.deleteNamespace({ name }).catch(() => {});
    }
  }, 120_000);

  afterAll(async () => {
    await cp.kubectl(['delete', '-f', join(DEPLOY, 'rbac.yaml'), '--ignore-not-found', '--wait=false']);
    // Not service-account.yaml: the control plane has no namespace controller, so a deleted configmirror-system
    // would stay Terminating and refuse the ServiceAccount to the next file that applies it.
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  test("the shipped RBAC gives the operator nothing of a namespace's content until it opts in", async () => {
    const canI = async (...args: string[]) => (await cp.kubectl(['auth', 'can-i', ...args, AS_OPERATOR])).stdout.trim();
    expect(await canI('get', 'configmaps', '-n', 'kube-system')).toBe('no');
    expect(await canI('list', 'configmaps', '-A')).toBe('no');
    expect(await canI('create', 'events.events.k8s.io', '-n', 'kube-system')).toBe('no');
    expect(await canI('patch', 'events.events.k8s.io', '-n', 'kube-system')).toBe('no');
    expect(await canI('list', 'secrets', '-A')).toBe('no');

    const tenant = await namespace('opted-in', { mirrors: true });
    const target = await namespace('target', { copies: true });
    await boundIn(tenant);
    expect(await canI('create', 'events.events.k8s.io', '-n', tenant)).toBe('yes');
    expect(await canI('create', 'configmaps', '-n', tenant)).toBe('no');
    expect(await canI('create', 'configmaps', '-n', target)).toBe('yes');
    expect(await canI('delete', 'configmaps', '-n', target)).toBe('no');
  });

  test('a mirror into a namespace that did not opt in is refused by the API server: a Warning Event and Ready=False', async () => {
    const tenant = await namespace('tenant', { mirrors: true });
    // It carries the label the operator's code asks for, but no RoleBinding: only the API server stands in the way.
    const unbound = await namespace('unbound', { acceptFrom: tenant });
    const open = await namespace('open', { copies: true, acceptFrom: tenant });
    await boundIn(tenant);
    await boundIn(open);
    await core.createNamespacedConfigMap({
      namespace: tenant,
      body: { metadata: { name: 'app-config' }, data: { greeting: 'hello' } },
    });
    await startAsServiceAccount();
    await createMirror(tenant, 'app-config', { sourceName: 'app-config', targetNamespaces: [open, unbound] });

    const condition = await eventually('Ready=False Forbidden', async () => {
      const current = await configMirrors.ready(tenant, 'app-config');
      return current?.reason === 'Forbidden' && current;
    });
    expect(condition.status).toBe('False');
    expect(condition.message).toContain(`could not read ConfigMap ${unbound}/app-config: Forbidden:`);
    expect(condition.message).toContain(
      `the API server lets the operator into namespace ${unbound} only once it opts in: ` +
        `a RoleBinding there of the ClusterRole ${COPIES_CLUSTER_ROLE}`,
    );
    const [warning] = await eventually('the Warning Event', async () => {
      const found = await failures(tenant, 'app-config');
      return found.length > 0 && found;
    });
    expect(warning).toMatchObject({
      reason: 'ReconcileFailed',
      note: expect.stringContaining(`${unbound}/app-config`),
    });
    expect((await configMirrors.read(tenant, 'app-config')).status?.syncedNamespaces).toEqual([open]);
    expect((await configMirrors.configMap(open, 'app-config'))?.data).toEqual({ greeting: 'hello' });
    expect(await configMirrors.configMap(unbound, 'app-config')).toBeUndefined();
  });

  test('a mirror in a namespace that did not opt in learns why from its status; nothing of the namespace is read', async () => {
    const closed = await namespace('closed');
    const target = await namespace('target', { copies: true, acceptFrom: closed });
    await core.createNamespacedConfigMap({
      namespace: closed,
      body: { metadata: { name: 'app-config' }, data: { password: 'hunter2' } },
    });
    await startAsServiceAccount();
    await createMirror(closed, 'app-config', { sourceName: 'app-config', targetNamespaces: [target] });

    const condition = await eventually('Ready=False Forbidden', async () => {
      const current = await configMirrors.ready(closed, 'app-config');
      return current?.reason === 'Forbidden' && current;
    });
    expect(condition.message).toContain(`could not read source ConfigMap ${closed}/app-config: Forbidden:`);
    expect(condition.message).toContain(`a RoleBinding there of the ClusterRole ${MIRRORS_CLUSTER_ROLE}`);
    expect(await configMirrors.configMap(target, 'app-config')).toBeUndefined();
    // Its Events would be written in its namespace, which did not let the operator in: there are none.
    expect(await warnings(closed, 'app-config')).toEqual([]);
  });

  test("a tenant's large ConfigMaps, mirrored or not, leave the operator's cache as it was", async () => {
    const tenant = await namespace('big', { mirrors: true });
    const target = await namespace('target', { copies: true, acceptFrom: tenant });
    const elsewhere = await namespace('elsewhere', { mirrors: true });
    await boundIn(tenant);
    await boundIn(target);
    await core.createNamespacedConfigMap({
      namespace: tenant,
      body: { metadata: { name: 'app-config' }, data: { greeting: 'hello' } },
    });
    const running = await startAsServiceAccount();
    await createMirror(tenant, 'app-config', { sourceName: 'app-config', targetNamespaces: [target] });
    await eventually('Ready=True', async () => (await configMirrors.ready(tenant, 'app-config'))?.status === 'True');
    const before = running.status().controller.cache;
    expect(before.configMapNamespaces).toEqual([tenant, target].sort());

    const count = 50;
    const size = 900 * 1024;
    const payload = 'x'.repeat(size);
    for (const [ns, many] of [
      [tenant, count],
      [elsewhere, 10],
    ] as const) {
      for (let i = 0; i < many; i++) {
        await core.createNamespacedConfigMap({
          namespace: ns,
          body: {
            metadata: { name: `blob-${i}`, annotations: { note: 'y'.repeat(100 * 1024) } },
            data: { blob: payload },
          },
        });
      }
    }
    // The operator has seen every one in the namespace it watches: its cache holds each.
    const after = await eventually(
      `the cache to hold the ${count} new ConfigMaps`,
      async () => {
        const cache = running.status().controller.cache;
        return cache.objects >= before.objects + count && cache;
      },
      60_000,
    );
    const stored = (count + 10) * size;
    const grown = after.bytes - before.bytes;
    process.stdout.write(
      `cache: ${before.objects} objects, ${before.bytes} B before; ${after.objects} objects, ${after.bytes} B after ` +
        `${count + 10} ConfigMaps of ${size} B (${stored} B stored): x${(after.bytes / before.bytes).toFixed(2)}, ` +
        `${(grown / count).toFixed(0)} B per watched ConfigMap\n`,
    );
    // Their metadata (names, versions), never their data or their annotations.
    expect(grown / count).toBeLessThan(512);
    expect(grown / stored).toBeLessThan(0.001);
    expect(after.configMapNamespaces).toEqual([tenant, target].sort());
  }, 180_000);

  test("a ConfigMap whose owner annotations name another tenant's mirror does not queue it", async () => {
    const tenantA = await namespace('tenant-a', { mirrors: true });
    const targetA = await namespace('target-a', { copies: true, acceptFrom: tenantA });
    const tenantB = await namespace('tenant-b', { mirrors: true });
    for (const ns of [tenantA, targetA, tenantB]) await boundIn(ns);
    await core.createNamespacedConfigMap({
      namespace: tenantA,
      body: { metadata: { name: 'app-config' }, data: { version: '1' } },
    });
    await startAsServiceAccount(SLOW_RETRY_MS);
    await createMirror(tenantA, 'app-config', { sourceName: 'app-config', targetNamespaces: [targetA] });
    // B's source is missing: it fails once, and retries only a minute later.
    const mirrorB = await createMirror(tenantB, 'victim', { sourceName: 'missing', targetNamespaces: [tenantA] });
    await eventually('A in sync', async () => (await configMirrors.ready(tenantA, 'app-config'))?.status === 'True');
    const [failure] = await eventually('B failing once', async () => {
      const found = await failures(tenantB, 'victim');
      return found.length > 0 && found;
    });
    expect(failure.series).toBeUndefined();
    const statusBefore = (await configMirrors.read(tenantB, 'victim')).metadata.resourceVersion;

    // Tenant A forges a copy of B's mirror, uid and all, under the name B copies, in a namespace B lists as a
    // target but which does not accept B's copies.
    const forged = {
      metadata: {
        name: 'missing',
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [MIRROR_NAME_LABEL]: 'victim' },
        annotations: {
          [MIRROR_OWNER_ANNOTATION]: `${tenantB}/victim`,
          [MIRROR_OWNER_UID_ANNOTATION]: mirrorB.metadata.uid!,
          [MIRROR_SOURCE_ANNOTATION]: `${tenantB}/missing`,
        },
      },
      data: { n: '0' },
    };
    await core.createNamespacedConfigMap({ namespace: tenantA, body: forged });
    for (let n = 1; n <= 5; n++) {
      await core.patchNamespacedConfigMap(
        { namespace: tenantA, name: 'missing', body: { data: { n: String(n) } } },
        mergePatch,
      );
    }
    await core.deleteNamespacedConfigMap({ namespace: tenantA, name: 'missing' });
    // After those changes, in the same watch: A's source changes, and its copy follows once the operator got there.
    await core.patchNamespacedConfigMap(
      { namespace: tenantA, name: 'app-config', body: { data: { version: '2' } } },
      mergePatch,
    );
    await eventually(
      'the copy to follow',
      async () => (await configMirrors.configMap(targetA, 'app-config'))?.data?.version === '2',
    );

    const after = await failures(tenantB, 'victim');
    expect(after).toHaveLength(1);
    expect(after[0].metadata?.name).toBe(failure.metadata?.name);
    expect(after[0].series).toBeUndefined();
    expect((await configMirrors.read(tenantB, 'victim')).metadata.resourceVersion).toBe(statusBefore);
  }, 120_000);
});
