// `npm run soak`: the recorder as a production cluster meets it, for a few minutes against the real control plane.
// Three replicas of one controller (separate processes, `resumeSeries` on, the shipped Role) publish failures about
// 300 ConfigMaps, every replica about every object, so each series is shared; through a TCP proxy that stalls and
// resets their connections, while API Priority and Fairness throttles them (a priority level of one share that
// rejects), the kube-apiserver is killed and started again twice, and replicas are killed and started again. New
// series start, and a replica starts again, in the seconds after the restarted server serves and before it is ready,
// while its authorizer still answers 403. A tenant of the namespace creates Events of its own under the names of some
// series' first Events before the replicas write them (before the start, and as new series start): about its own
// object, from another controller with its own note, and perfect copies counting 2147483647 (soak-tenant.ts); none of
// them may change, and the replicas count on Events of their own. At the end, against the Events the server holds:
// one Event per series,
// nothing resolved lost, nothing queued lost unless given up with a cause, nothing invented, every publish settled
// within timeout + 1 s, every rejection a PublishError, no unhandled rejection, the heap within a bound.
// SOAK_SECONDS sets the length (default 180); the result goes to test/soak/last-result.md. SOAK_SHOW_CREATES=1 prints
// each create about an object that is not its first, with the outcomes that led to it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, EventsV1Api, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  startControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { httpsStatus } from '../../tools/control-plane/kube-apiserver.js';
import { publisherRbac } from '../e2e/support/publisher-rbac.js';
import { tightPriorityLevel } from '../e2e/support/tight-priority-level.js';
import { FaultProxy } from './fault-proxy.js';
import { ReplicaProcess, type ReplicaSettings } from './replica-process.js';
import { type ServerSeries, type Verdict, judge } from './soak-ledger.js';
import { SoakTenant } from './soak-tenant.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const REPLICAS = 3;
const FIRST_OBJECTS = 240;
/** Series that start inside each of the two start-up windows. */
const WINDOW_OBJECTS = 30;
const TIMEOUT_MS = 3_000;
const PUBLISH_EVERY_MS = 20;
const PEAK_HEAP_BYTES = 200 * 2 ** 20;
const NAMESPACE = 'soak';
const SERVICE_ACCOUNT = 'widget-controller';
const LEVEL = 'kube-events-soak-throttle';
const RESULT = fileURLToPath(new URL('./last-result.md', import.meta.url));

const started = Date.now();
const log = (line: string) => console.log(`[soak ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);
/** When the replicas began publishing: the schedule's zero. */
let publishingSince = Date.now();
const at = async (fraction: number) => {
  const wait = publishingSince + fraction * SECONDS * 1000 - Date.now();
  if (wait > 0) await sleep(wait);
};

/** A priority level of one share that rejects what it cannot seat, which only the replicas' ServiceAccount meets. */
const THROTTLE = tightPriorityLevel(LEVEL, { namespace: NAMESPACE, serviceAccount: SERVICE_ACCOUNT });
/** Of the first objects, every this many has its series' name taken by the tenant first; of each later batch, every third. */
const SQUATTED_EVERY = 8;
/** What the tenant did, for the report. */
let tenantSummary = '';

async function main(): Promise<Verdict> {
  log('starting the control plane');
  const cp = await startControlPlane();
  const proxy = await FaultProxy.start(Number(new URL(cp.server).port));
  const replicas: ReplicaProcess[] = [];
  const retired: ReplicaProcess[] = [];
  try {
    const admin = cp.kubeConfig();
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    await kubectl(cp, ['apply', '-n', NAMESPACE, '-f', '-'], publisherRbac(NAMESPACE, SERVICE_ACCOUNT));
    const settings: ReplicaSettings = {
      kubeconfigPath: await proxiedKubeconfig(cp, admin, proxy.port),
      timeoutMs: TIMEOUT_MS,
      publishEveryMs: PUBLISH_EVERY_MS,
    };
    const objects = await configMaps(core, 0, FIRST_OBJECTS);
    const all = [...objects];
    const decoy = await core.createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: { metadata: { name: 'tenant-decoy' } },
    });
    const tenant = new SoakTenant(cp, admin, NAMESPACE, { ...decoy, apiVersion: 'v1', kind: 'ConfigMap' });
    const squatted = (made: [number, KubernetesObject][], every: number) =>
      made.filter((_, i) => i % every === 0).map(([, object]) => object);
    log(`a tenant takes the names of ${Math.ceil(FIRST_OBJECTS / SQUATTED_EVERY)} series first`);
    await tenant.squat(squatted(objects, SQUATTED_EVERY));

    log(`${REPLICAS} replicas publishing about ${FIRST_OBJECTS} ConfigMaps`);
    let standby = ReplicaProcess.load(settings);
    replicas.push(...(await Promise.all(Array.from({ length: REPLICAS }, () => ReplicaProcess.load(settings)))));
    await Promise.all(replicas.map((replica, i) => replica.start(`widgets-${i} #1`, `widgets-${i}`, all)));
    publishingSince = Date.now();
    const generations = replicas.map(() => 1);
    /** Kills replica `i` and, `downMs` later, starts the standby (loaded ahead) in its place, under its instance. */
    const restart = async (i: number, downMs = 0) => {
      const next = await standby;
      standby = ReplicaProcess.load(settings);
      retired.push(replicas[i]);
      await replicas[i].kill();
      await sleep(downMs);
      generations[i]++;
      replicas[i] = next;
      await next.start(`widgets-${i} #${generations[i]}`, `widgets-${i}`, all);
    };
    /** Kills the API server, starts it again, and, as soon as it serves and before it is ready, starts new series and restarts a replica. */
    const apiServerRestart = async (downMs: number, replica: number, from: number) => {
      log('kube-apiserver killed');
      await cp.killApiServer();
      await sleep(downMs);
      log('kube-apiserver starting again');
      const ready = cp.startApiServerAgain().then(() => log('kube-apiserver ready'));
      while ((await httpsStatus(`${cp.server}/livez`, cp.token)) === 0) await sleep(50);
      log(
        `kube-apiserver serving (readyz ${await httpsStatus(`${cp.server}/readyz`, cp.token)}): new series, replica ${replica} restarts`,
      );
      const fresh = await configMaps(core, from, WINDOW_OBJECTS);
      await tenant.squat(squatted(fresh, 3));
      all.push(...fresh);
      for (const running of replicas) running.add(fresh);
      await Promise.all([restart(replica), ready]);
    };

    await at(0.08);
    log('throttled by API Priority and Fairness');
    await kubectl(cp, ['apply', '-f', '-'], THROTTLE);
    await at(0.2);
    log('not throttled');
    await kubectl(cp, ['delete', 'flowschema,prioritylevelconfiguration', LEVEL]);
    await at(0.25);
    log('connections stalled');
    proxy.stall();
    await sleep(6_000);
    proxy.pass();
    log('connections pass again');
    await at(0.35);
    log('connections reset');
    proxy.reset();
    await sleep(3_000);
    proxy.pass();
    log('connections pass again');
    await at(0.42);
    await apiServerRestart(5_000, 0, FIRST_OBJECTS);
    await at(0.6);
    log('replica 1 killed');
    await restart(1, 3_000);
    log('replica 1 started again');
    await at(0.7);
    log('throttled, and connections stalled, while kube-apiserver is killed');
    await kubectl(cp, ['apply', '-f', '-'], THROTTLE);
    proxy.stall();
    await sleep(2_000);
    proxy.pass();
    await apiServerRestart(4_000, 2, FIRST_OBJECTS + WINDOW_OBJECTS);
    await at(0.85);
    log('not throttled; connections reset');
    await kubectl(cp, ['delete', 'flowschema,prioritylevelconfiguration', LEVEL]);
    proxy.reset();
    await sleep(2_000);
    proxy.pass();
    await at(0.95);
    log('replicas stop');
    await Promise.all(replicas.map((replica) => replica.stop()));
    await (await standby).kill();

    const server = await eventsBySeries(admin, all, tenant.uids());
    const ledgers = [...retired, ...replicas].map((replica) => replica.ledger);
    const verdict = judge(ledgers, server, all.length, { timeoutMs: TIMEOUT_MS, peakHeapBytes: PEAK_HEAP_BYTES });
    const changed = await tenant.changed();
    verdict.failures.push(...changed);
    tenantSummary =
      `A tenant took the names of ${tenant.squatted} series first (Events about its own object, from another ` +
      `controller, and copies counting 2147483647): ${changed.length} of them changed.`;
    return verdict;
  } finally {
    for (const replica of replicas) await replica.kill().catch(() => undefined);
    await proxy.close();
    await cp.stop();
  }
}

async function kubectl(cp: ControlPlane, args: string[], input?: string): Promise<void> {
  const { code, stderr } = await cp.kubectl(args, { input });
  if (code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${stderr}`);
}

/** The ServiceAccount's kubeconfig, its server the proxy (TLS still verified against the API server's CA). */
async function proxiedKubeconfig(cp: ControlPlane, admin: KubeConfig, port: number): Promise<string> {
  const { kubeConfig } = await serviceAccountKubeConfig(admin, {
    namespace: NAMESPACE,
    name: SERVICE_ACCOUNT,
    expirationSeconds: 24 * 3600,
  });
  const cluster = kubeConfig.getCurrentCluster()!;
  const proxied = new KubeConfig();
  proxied.loadFromOptions({
    clusters: [{ ...cluster, server: `https://127.0.0.1:${port}` }],
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: kubeConfig.currentContext,
  });
  const path = join(cp.dir!, 'soak-kubeconfig');
  await writeFile(path, proxied.exportConfig(), { mode: 0o600 });
  return path;
}

async function configMaps(core: CoreV1Api, from: number, count: number): Promise<[number, KubernetesObject][]> {
  const made: [number, KubernetesObject][] = [];
  for (let i = from; i < from + count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, from + count - i) }, async (_, j) => {
        const created = await core.createNamespacedConfigMap({
          namespace: NAMESPACE,
          body: { metadata: { name: `widget-${i + j}` }, data: { replicas: '' } },
        });
        return [i + j, { ...created, apiVersion: 'v1', kind: 'ConfigMap' }] as [number, KubernetesObject];
      }),
    );
    made.push(...batch);
  }
  return made;
}

/** Each object's Events (of this controller, not the tenant's) and their counts, as the server holds them. */
async function eventsBySeries(
  admin: KubeConfig,
  objects: readonly [number, KubernetesObject][],
  tenants: ReadonlySet<string>,
): Promise<Map<number, ServerSeries>> {
  const events = admin.makeApiClient(EventsV1Api);
  const indexOf = new Map(objects.map(([index, object]) => [object.metadata!.uid!, index]));
  const series = new Map<number, number[]>();
  const described = new Map<number, string[]>();
  let _continue: string | undefined;
  do {
    const page = await events.listNamespacedEvent({ namespace: NAMESPACE, limit: 500, _continue });
    for (const event of page.items) {
      const index = indexOf.get(event.regarding?.uid ?? '');
      if (index === undefined || event.reason !== 'ReconcileFailed' || tenants.has(event.metadata?.uid ?? '')) continue;
      series.set(index, [...(series.get(index) ?? []), event.series?.count ?? 1]);
      described.set(index, [
        ...(described.get(index) ?? []),
        `${event.metadata?.name} by ${event.reportingInstance} at ${String(event.eventTime)}, count ${event.series?.count ?? 1}`,
      ]);
    }
    _continue = page.metadata?._continue;
  } while (_continue);
  return new Map([...series].map(([index, counts]) => [index, { counts, described: described.get(index)! }]));
}

async function report(verdict: Verdict): Promise<void> {
  const passed = verdict.failures.length === 0;
  const lines = [
    `# Last soak: ${passed ? 'passed' : 'FAILED'}`,
    '',
    `\`SOAK_SECONDS=${SECONDS} npm run soak\`, ${new Date().toISOString().slice(0, 10)}, ${REPLICAS} replicas, ` +
      `${verdict.series} shared series (see [soak.ts](soak.ts) for the schedule).`,
    '',
    '| publishes | resolved | rejected queued | rejected, not queued | counted on the server | duplicate Events | owed and not counted | counted and never published | dropped (cause) | slowest settle | peak heap |',
    '| --: | --: | --: | --: | --: | --: | --: | --: | --- | --: | --: |',
    `| ${verdict.made} | ${verdict.resolved} | ${verdict.queued} | ${verdict.failed} | ${verdict.counted} | ${verdict.duplicates} | ${verdict.lost} | ${verdict.invented} | ${
      Object.entries(verdict.dropCauses)
        .map(([cause, count]) => `${count} (${cause})`)
        .join(', ') || '0'
    } | ${verdict.slowestSettleMs} ms | ${verdict.peakHeapMiB} MiB |`,
    '',
    `Failed writes, by what they met (retried unless said otherwise): ${
      Object.entries(verdict.failedWrites)
        .sort(([, a], [, b]) => b - a)
        .map(([what, count]) => `${what} ×${count}`)
        .join(', ') || 'none'
    }.`,
    '',
    tenantSummary,
    '',
    ...(passed ? [] : ['Failures:', '', ...verdict.failures.map((failure) => `- ${failure}`), '']),
  ];
  await writeFile(RESULT, lines.join('\n'));
  console.log(lines.join('\n'));
}

const verdict = await main();
await report(verdict);
process.exit(verdict.failures.length === 0 ? 0 : 1);
