// What a replica that lost its Lease can still write, against the shared
// control plane:
//
// 1. Status writes are conditional: a merge patch carrying the
//    resourceVersion the reconcile read. A writer that has not yet seen its
//    own last write (its informer lags) writes on top of it; a writer whose
//    view is older than someone else's write (a new leader's) is refused
//    with 409 by the API server, and the newer status stays.
// 2. A leader that loses its Lease cancels the reconcile it is running: the
//    reconcile is kept in a request to the API server (a proxy holds its
//    ConfigMap create), the Lease is taken over, and the request is aborted
//    by the operator; once it has stopped, the API server holds no copy, no
//    status and no Event from it.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type KubeConfig,
  V1MicroTime,
} from '@kubernetes/client-node';
import {
  CONFIG_MIRROR_API_VERSION as API_VERSION,
  CONFIG_MIRROR_GROUP as GROUP,
  CONFIG_MIRROR_PLURAL as PLURAL,
  CONFIG_MIRROR_VERSION as VERSION,
  acceptMirrorsFromLabel,
} from '../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import { ConfigMirrorStatusWriter } from '../../apps/sample-operator/src/config-mirror/config-mirror.status-writer.js';
import type { ConfigMirror } from '../../apps/sample-operator/src/config-mirror/config-mirror.types.js';
import { startOperator, type RunningOperator } from './support/operator-in-process.js';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { HoldingProxy } from './support/holding-proxy.js';
import { type Scratch, apiRefusal, randomSuffix, scratchPerTest } from './support/library-fixtures.js';
import { deleteConfigMirror, installConfigMirrorCrd, removeConfigMirrorCrd } from './support/operator-fixtures.js';
import { waitingFor } from '../support/within.js';

const MIRRORS = { group: GROUP, version: VERSION, plural: PLURAL };

describe('a replica that lost its Lease', () => {
  let cp: ControlPlane;
  let admin: KubeConfig;
  let customObjects: CustomObjectsApi;
  let installedCrd = false;
  let scratch: Scratch;
  const mirrors: string[] = [];

  beforeAll(async () => {
    cp = sharedControlPlane();
    admin = cp.kubeConfig();
    customObjects = admin.makeApiClient(CustomObjectsApi);
    installedCrd = await installConfigMirrorCrd(cp);
  });

  afterAll(async () => {
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  scratchPerTest('stale-leader', (made) => (scratch = made));

  afterEach(async () => {
    for (const name of mirrors.splice(0)) await deleteConfigMirror(customObjects, scratch.namespace, name);
  });

  async function createMirror(name: string, targets: string[]): Promise<ConfigMirror> {
    const created = (await customObjects.createNamespacedCustomObject({
      ...MIRRORS,
      namespace: scratch.namespace,
      body: {
        apiVersion: API_VERSION,
        kind: 'ConfigMirror',
        metadata: { name, namespace: scratch.namespace },
        spec: { sourceName: name, targetNamespaces: targets },
      },
    })) as ConfigMirror;
    mirrors.push(name);
    return created;
  }

  async function readMirror(name: string): Promise<ConfigMirror> {
    return (await customObjects.getNamespacedCustomObject({
      ...MIRRORS,
      namespace: scratch.namespace,
      name,
    })) as ConfigMirror;
  }

  const outcome = (message: string) => ({ ready: false, reason: 'SourceNotFound', message, syncedNamespaces: [] });
  const readyMessage = (mirror: ConfigMirror) => mirror.status?.conditions?.find((c) => c.type === 'Ready')?.message;

  test("status writes are conditional: a stale writer's patch is refused with 409, and the newer status stays", async () => {
    const read = await createMirror('app-config', [scratch.namespace]);
    const stale = new ConfigMirrorStatusWriter(customObjects);

    // Its informer has not seen its own writes yet: each one builds on the previous one, by the version it got back.
    await stale.write(read, outcome('first'));
    await stale.write(read, outcome('second'));
    expect(readyMessage(await readMirror('app-config'))).toBe('second');

    // Another writer (the new leader) writes from what the server holds now.
    const successor = new ConfigMirrorStatusWriter(customObjects);
    await successor.write(await readMirror('app-config'), outcome('the new leader'));

    // The stale writer's next write names a version the server no longer has.
    const refusal = await apiRefusal(stale.write(read, outcome('stale')));
    expect(refusal).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(refusal.message).toContain('the object has been modified');
    expect(readyMessage(await readMirror('app-config'))).toBe('the new leader');
  });

  describe('with leader election, through a proxy that can hold a request', () => {
    let proxy: HoldingProxy;
    let operator: RunningOperator | undefined;

    beforeEach(async () => {
      proxy = await HoldingProxy.start(admin);
    });

    afterEach(async () => {
      await operator?.stop();
      operator = undefined;
      await proxy.close();
    });

    test('losing the Lease cancels the running reconcile: its request is aborted and it writes nothing more', async () => {
      const target = `${scratch.namespace}-target`;
      await scratch.createNamespace(target, { [acceptMirrorsFromLabel(scratch.namespace)]: 'true' });
      await scratch.configMap('app-config');
      const leaseName = `stale-leader-${randomSuffix()}`;
      operator = await startOperator(
        {
          kubeConfig: proxy.kubeConfig(),
          instance: 'stale-leader',
          leaderElect: true,
          leaderElection: {
            leaseName,
            namespace: scratch.namespace,
            leaseDurationMs: 3_000,
            renewDeadlineMs: 2_000,
            retryPeriodMs: 500,
          },
          resyncPeriodMs: 0,
          retryMaxDelayMs: 500,
          shutdownTimeoutMs: 20_000,
        },
        { logger: ['error', 'warn', 'log'] },
      );
      await waitingFor('the Lease', operator.leaderElection!.whenLeading(), 20_000);
      await waitingFor('the informers', operator.whenReady(), 20_000);

      // The reconcile of the new mirror gets as far as creating the copy, and waits there.
      const creating = proxy.hold(
        (method, path) => method === 'POST' && path === `/api/v1/namespaces/${target}/configmaps`,
      );
      await createMirror('app-config', [target]);
      const held = await waitingFor('the copy being created', creating, 20_000);

      // Someone else takes the Lease, as a new leader would once this one's expired.
      const leases = admin.makeApiClient(CoordinationV1Api);
      for (;;) {
        const current = await leases.readNamespacedLease({ namespace: scratch.namespace, name: leaseName });
        const now = new V1MicroTime();
        try {
          await leases.replaceNamespacedLease({
            namespace: scratch.namespace,
            name: leaseName,
            body: {
              ...current,
              spec: {
                ...current.spec,
                holderIdentity: 'new-leader',
                acquireTime: now,
                renewTime: now,
                leaseDurationSeconds: 60,
              },
            },
          });
          break;
        } catch (error) {
          // The leader renewed in between: read it again.
          if (!(error instanceof ApiException && error.code === 409)) throw error;
        }
      }

      expect(await waitingFor('the Lease to be lost', operator.leaderElection!.whenLost(), 20_000)).toContain(
        'new-leader',
      );
      await waitingFor('the held request to be aborted by the operator', held.abandoned, 10_000);
      // Stopping drains what is left (the cancelled reconcile) and flushes the Events: all it would write is written by now.
      await operator.stop();
      held.release();
      await sleep(200);

      const mirror = await readMirror('app-config');
      expect(mirror.status).toBeUndefined();
      const events = await admin.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: scratch.namespace });
      expect(events.items.filter((event) => event.regarding?.uid === mirror.metadata.uid)).toEqual([]);
      await expect(
        admin.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: target, name: 'app-config' }),
      ).rejects.toMatchObject({ code: 404 });
    });
  });
});
