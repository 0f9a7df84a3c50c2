// Leader election of the sample operator (LEADER_ELECT=true) against the
// shared control plane: built operator processes (apps/sample-operator/dist/main.js,
// as the Deployment runs them) campaign for one coordination.k8s.io/v1 Lease
// with short timings (lease 3 s, renew deadline 2 s, retry 0.5 s) while a
// ConfigMirror keeps failing, so that whoever reconciles shows it at once:
//
// 1. two replicas: one holds the Lease and reconciles; the other only reads the Lease;
// 2. SIGKILL of the leader (no release): the other takes the Lease once it
//    expired, within the lease duration plus two attempt intervals, and reconciles;
// 3. SIGTERM of the leader: it drains, releases the Lease and exits 0; a
//    standby takes it at its next attempt, long before the lease duration;
// 4. someone else takes the Lease over (as kubectl would): the leader cannot
//    renew, stops reconciling and exits 1 (as controller-runtime does);
// 5. the Role of apps/sample-operator/deploy/rbac.yaml is enough for a
//    ServiceAccount to acquire, renew and release the Lease.
//
// Who reconciled is read from the API server (the Lease, the Events'
// reportingInstance and their time spans) and from each process's log.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type EventsV1Event,
  type KubeConfig,
  RbacAuthorizationV1Api,
  type V1Lease,
  type V1Role,
  V1MicroTime,
  loadAllYaml,
} from '@kubernetes/client-node';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { LeaderElector, JITTER_FACTOR } from '../../apps/sample-operator/src/leader-election/leader-elector.js';
import { LeaseLock } from '../../apps/sample-operator/src/leader-election/lease-lock.js';
import { LEASE_NAME } from '../../apps/sample-operator/src/operator.options.js';
import { exitOf, ProcessLog } from './support/child-process.js';
import {
  createFailingConfigMirror,
  deleteConfigMirror,
  ensureOperatorBuilt,
  installConfigMirrorCrd,
  removeConfigMirrorCrd,
  spawnOperator,
} from './support/operator-fixtures.js';
import { eventually } from '../support/eventually.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = join(REPO_ROOT, 'apps/sample-operator/deploy');

const LEASE_MS = 3_000;
const RENEW_DEADLINE_MS = 2_000;
const RETRY_MS = 500;
/** The longest a candidate waits between two attempts: the retry period plus client-go's jitter. */
const MAX_ATTEMPT_INTERVAL_MS = RETRY_MS * (1 + JITTER_FACTOR);
/** Room for requests, process exits, log lines and this test's own polling. */
const SLACK_MS = 1_000;

const LEADS = (identity: string) => `${identity} leads (lease`;
const STANDS_BY = 'stands by';
const RELEASED = 'released leader lease';
const LOST = 'lost the lease';
const STOPPED_LINE = /stopped \(\d+ reconcile\(s\) were in flight\)/;

interface Replica {
  name: string;
  child: ChildProcess;
  log: ProcessLog;
}

const poll = <T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 25,
): Promise<T> => eventually(what, check, { timeoutMs, everyMs });

describe('sample operator: leader election between replicas (LEADER_ELECT=true)', () => {
  let cp: ControlPlane;
  let admin: KubeConfig;
  let core: CoreV1Api;
  let customObjects: CustomObjectsApi;
  let leases: CoordinationV1Api;
  let events: EventsV1Api;
  let installedCrd = false;
  const namespace = `mirror-le-${randomBytes(3).toString('hex')}`;
  const name = 'failing';
  const replicas: Replica[] = [];
  const reconcileLine = `${namespace}/${name} failed (attempt`;

  function start(replicaName: string): Replica {
    const child = spawnOperator(cp, {
      POD_NAME: replicaName,
      POD_NAMESPACE: namespace,
      LEADER_ELECT: 'true',
      LEADER_ELECT_LEASE_DURATION_MS: String(LEASE_MS),
      LEADER_ELECT_RENEW_DEADLINE_MS: String(RENEW_DEADLINE_MS),
      LEADER_ELECT_RETRY_PERIOD_MS: String(RETRY_MS),
      WORKERS: '1',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    const replica = { name: replicaName, child, log: new ProcessLog(child) };
    replicas.push(replica);
    return replica;
  }

  async function lease(): Promise<V1Lease | undefined> {
    try {
      return await leases.readNamespacedLease({ namespace, name: LEASE_NAME });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }

  /** Polls the Lease (every 25 ms) until `identity` holds it; resolves with the time (Date.now()) it was seen. */
  async function heldBy(identity: string, timeoutMs = 15_000): Promise<number> {
    await poll(
      `the Lease to be held by ${identity}`,
      async () => (await lease())?.spec?.holderIdentity === identity,
      timeoutMs,
    );
    return Date.now();
  }

  async function failureEvents(): Promise<EventsV1Event[]> {
    const list = await events.listNamespacedEvent({ namespace });
    return list.items.filter((event) => event.reason === 'ReconcileFailed');
  }

  const reconciles = (replica: Replica, from = 0) =>
    replica.log.lines.slice(from).filter((line) => line.includes(reconcileLine));

  beforeAll(async () => {
    await ensureOperatorBuilt();
    cp = sharedControlPlane();
    admin = cp.kubeConfig();
    core = admin.makeApiClient(CoreV1Api);
    customObjects = admin.makeApiClient(CustomObjectsApi);
    leases = admin.makeApiClient(CoordinationV1Api);
    events = admin.makeApiClient(EventsV1Api);
    installedCrd = await installConfigMirrorCrd(cp);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    // The replica that reconciles it fails, and retries, all the time.
    await createFailingConfigMirror(customObjects, namespace, name);
  }, 180_000);

  afterAll(async () => {
    for (const { child } of replicas) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await Promise.all(replicas.map(({ child }) => exitOf(child, 10_000)));
    if (customObjects) await deleteConfigMirror(customObjects, namespace, name);
    await core?.deleteNamespace({ name: namespace }).catch(() => {});
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  let leader: Replica;
  let standby: Replica;

  test('two replicas: one holds the Lease and reconciles, the other stands by', async () => {
    const [a, b] = [start('le-a'), start('le-b')];
    const holder = await poll(
      'a holder of the Lease',
      async () => (await lease())?.spec?.holderIdentity || undefined,
      20_000,
    );
    expect(['le-a', 'le-b']).toContain(holder);
    [leader, standby] = holder === 'le-a' ? [a, b] : [b, a];

    await leader.log.waitFor(`${reconcileLine} 3)`);
    await standby.log.waitFor(STANDS_BY);
    await sleep(4 * RETRY_MS); // the standby reads the Lease a few more times meanwhile

    expect((await lease())?.spec).toMatchObject({ holderIdentity: leader.name, leaseDurationSeconds: LEASE_MS / 1000 });
    expect(reconciles(standby)).toEqual([]);
    expect(standby.log.text()).toContain(
      `${leader.name} leads (lease ${namespace}/${LEASE_NAME}); ${standby.name} stands by`,
    );
    expect(standby.log.text()).not.toContain('ConfigMirror controller ready');
    // What the API server holds: the failures were reported by the leader only.
    const failures = await poll('a ReconcileFailed Event', async () => {
      const found = await failureEvents();
      return found.length > 0 && found;
    });
    expect(new Set(failures.map((event) => event.reportingInstance))).toEqual(new Set([leader.name]));
  });

  test('SIGKILL of the leader: the standby takes the Lease once it expired, and reconciles', async () => {
    expect(leader).toBeDefined();
    const transitions = (await lease())?.spec?.leaseTransitions ?? 0;
    const [before] = await failureEvents();
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await exitOf(leader.child, 5_000);
    const takenAt = await heldBy(standby.name, 15_000);
    const handover = takenAt - killedAt;

    // Not before the Lease expired: the last renewal was at most one retry period before the kill...
    expect(handover).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS - 100);
    // ...and as soon as it did: the standby saw that renewal within one attempt interval, and checks every
    // attempt interval (typically lease + one retry period; client-go's jitter can make it two intervals).
    expect(handover).toBeLessThanOrEqual(LEASE_MS + 2 * MAX_ATTEMPT_INTERVAL_MS + SLACK_MS);
    expect((await lease())?.spec?.leaseTransitions).toBe(transitions + 1);

    const leads = await standby.log.waitFor(LEADS(standby.name));
    await standby.log.waitFor(`${reconcileLine} 3)`);
    expect(reconciles(standby, 0).length).toBe(reconciles(standby, leads).length); // none before it led
    // resumeSeries: the new leader continues the failure's Event (the count grows on it) instead of starting its own.
    await poll('the same ReconcileFailed Event counting on under the new leader', async () => {
      const found = await failureEvents();
      return (
        found.length === 1 &&
        found[0].metadata?.name === before.metadata?.name &&
        (found[0].series?.count ?? 1) > (before.series?.count ?? 1)
      );
    });
    process.stderr.write(
      `leader-election e2e: SIGKILL -> Lease taken over in ${handover} ms (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)\n`,
    );
    [leader, standby] = [standby, start('le-c')];
  });

  test('SIGTERM of the leader: it stops reconciling, releases the Lease and exits 0; the standby takes over at once', async () => {
    await standby.log.waitFor(STANDS_BY);
    const transitions = (await lease())?.spec?.leaseTransitions ?? 0;
    const signalledAt = Date.now();
    leader.child.kill('SIGTERM');
    expect(await exitOf(leader.child, 10_000)).toBe(0);
    const exitedAt = Date.now();
    const takenAt = await heldBy(standby.name, 10_000);

    // Released, not expired: the standby took it at its next attempt, well within the lease duration.
    expect(takenAt - exitedAt).toBeLessThan(MAX_ATTEMPT_INTERVAL_MS + SLACK_MS);
    expect(takenAt - exitedAt).toBeLessThan(LEASE_MS);
    const spec = (await lease())?.spec;
    expect(spec?.leaseTransitions).toBe(transitions + 1);
    // The old leader stopped its controller (and flushed its Events) before it let go of the Lease.
    const stopped = leader.log.index(STOPPED_LINE);
    const released = leader.log.index(RELEASED);
    expect(stopped).toBeGreaterThanOrEqual(0);
    expect(released).toBeGreaterThan(stopped);
    expect(reconciles(leader, stopped)).toEqual([]);
    await standby.log.waitFor(LEADS(standby.name));
    await standby.log.waitFor(`${reconcileLine} 2)`);
    process.stderr.write(
      `leader-election e2e: SIGTERM -> exit in ${exitedAt - signalledAt} ms, Lease taken over ${takenAt - exitedAt} ms after the exit\n`,
    );
    leader = standby;
  });

  test('someone else takes the Lease over: the leader cannot renew it, stops reconciling and exits 1', async () => {
    await leader.log.waitFor(`${reconcileLine} 3)`);
    // Read and replace, again when the leader renewed in between (409), as `kubectl edit` would.
    await poll(
      'the Lease taken over',
      async () => {
        const current = (await lease())!;
        const now = new V1MicroTime();
        try {
          await leases.replaceNamespacedLease({
            namespace,
            name: LEASE_NAME,
            body: {
              ...current,
              spec: {
                ...current.spec,
                holderIdentity: 'intruder',
                acquireTime: now,
                renewTime: now,
                leaseDurationSeconds: LEASE_MS / 1000,
              },
            },
          });
          return true;
        } catch (error) {
          if (error instanceof ApiException && error.code === 409) return false;
          throw error;
        }
      },
      5_000,
      0,
    );
    const takenAt = Date.now();

    const lostAt =
      leader.log.index(LOST) >= 0 ? takenAt : await leader.log.waitFor(LOST, 10_000).then(() => Date.now());
    // At its next renewal (one retry period), well within the renew deadline that client-go would wait out.
    expect(lostAt - takenAt).toBeLessThan(RENEW_DEADLINE_MS);
    expect(await exitOf(leader.child, 10_000)).toBe(1);
    const lost = leader.log.index(LOST);
    expect(leader.log.lines[lost]).toContain('it is held by intruder');
    // At most the reconcile in flight (WORKERS=1) finishes after the loss; none starts.
    expect(reconciles(leader, lost).length).toBeLessThanOrEqual(1);
    // Its controller stopped (logged just before or after the loss: the two run concurrently).
    expect(leader.log.index(STOPPED_LINE)).toBeGreaterThanOrEqual(0);
    expect(leader.log.text()).toContain('leader election lost (it is held by intruder): exiting');
    // Not its Lease any more: left as the intruder wrote it.
    expect((await lease())?.spec?.holderIdentity).toBe('intruder');

    // Over the whole test, one unbroken failure is one Event: each new leader continued the series of the last.
    const failures = await failureEvents();
    expect(failures).toHaveLength(1);
    expect(failures[0].series?.count).toBeGreaterThan(3);
  });

  test("the Role in deploy/rbac.yaml lets the operator's ServiceAccount acquire, renew and release its Lease", async () => {
    // The shipped Role, as it is, but in this test's namespace and bound to a ServiceAccount of it.
    const role = (loadAllYaml(readFileSync(join(DEPLOY, 'rbac.yaml'), 'utf8')) as V1Role[]).find(
      (object) => object.kind === 'Role' && object.rules?.some((rule) => rule.resources?.includes('leases')),
    )!;
    expect(role.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ]);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const roleName = role.metadata!.name!;
    await rbac.createNamespacedRole({ namespace, body: { ...role, metadata: { name: roleName, namespace } } });
    const serviceAccount = await serviceAccountKubeConfig(cp, { namespace, name: 'configmirror-controller' });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: roleName, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
        subjects: [{ kind: 'ServiceAccount', name: 'configmirror-controller', namespace }],
      },
    });

    const problems: string[] = [];
    const log = {
      log: () => {},
      debug: () => {},
      warn: (m: string) => problems.push(m),
      error: (m: string) => problems.push(m),
    };
    let started = 0;
    const elector = new LeaderElector({
      lock: new LeaseLock(serviceAccount.kubeConfig.makeApiClient(CoordinationV1Api), namespace, 'rbac-check'),
      identity: 'sa-replica',
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_DEADLINE_MS,
      retryPeriodMs: RETRY_MS,
      logger: log,
      callbacks: { onStartedLeading: () => started++, onLostLeadership: (reason) => problems.push(reason) },
    });
    // RBAC changes reach the authorizer quickly, but not instantly: the elector retries until they do.
    elector.start();
    await poll('the ServiceAccount to create the Lease', async () => started === 1, 10_000);
    const created = await leases.readNamespacedLease({ namespace, name: 'rbac-check' });
    await poll('a renewal', async () => {
      const renewed = await leases.readNamespacedLease({ namespace, name: 'rbac-check' });
      return (
        renewed.metadata?.resourceVersion !== created.metadata?.resourceVersion &&
        renewed.spec?.holderIdentity === 'sa-replica'
      );
    });
    await elector.stop();
    expect((await leases.readNamespacedLease({ namespace, name: 'rbac-check' })).spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
    });
    // Only 403s while the binding was on its way, if any; nothing after the Lease was created.
    expect(problems.filter((problem) => !/forbidden/i.test(problem))).toEqual([]);
  });
});
