// npm run demo
//
// Shows nestjs-kube-events at work in the ConfigMirror operator, in about a
// minute: a local Kubernetes control plane (etcd + kube-apiserver, built from
// source on first use), the ConfigMirror CRD, the operator (in this process),
// then a ConfigMirror that fails, recovers (its Ready condition going True, an
// Event of its own) and fails again, each step shown as `kubectl describe` shows it. Everything it started is stopped on exit, also
// on Ctrl-C.
//
// KUBE_EVENTS_DEMO_USE_KUBECONFIG=1 (or `npm run demo -- --use-kubeconfig`)
// runs it against the cluster $KUBECONFIG (else ~/.kube/config) points at
// instead: nothing is started there; the demo's namespaces are deleted at the
// end, and the CRD too if the demo installed it.
//
// KUBE_EVENTS_KUBERNETES=1.35 (or `npm run demo -- --kubernetes=1.35`) starts
// another Kubernetes minor than the newest this repository builds.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { LoggerService } from '@nestjs/common';
import {
  CoordinationV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  type EventsV1Event,
} from '@kubernetes/client-node';
import {
  ControlPlaneBuildError,
  binariesIn,
  chosenKubernetes,
  ensureControlPlaneBinaries,
  kubernetesVersion,
} from '../../../tools/control-plane/build.js';
import { applyKubernetesArgument } from '../../../tools/control-plane/kubernetes-versions.js';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  startControlPlane,
} from '../../../tools/control-plane/control-plane.js';
// The built operator (`npm run demo` builds first).
import type { INestApplication } from '@nestjs/common';
import { ConfigMirrorController } from '../dist/config-mirror/config-mirror.controller.js';
import { createOperator, listenForProbes } from '../dist/operator.js';
import type { ConfigMirror } from '../dist/config-mirror/config-mirror.types.js';
import { LEASE_NAME } from '../dist/operator.options.js';
import {
  CONFIG_MIRROR_CRD_NAME as CRD_NAME,
  CONFIG_MIRROR_GROUP as GROUP,
  CONFIG_MIRROR_PLURAL as PLURAL,
  CONFIG_MIRROR_VERSION as VERSION,
  COPIES_CLUSTER_ROLE,
  MIRROR_NAME_LABEL as MIRROR_LABEL,
  MIRRORS_CLUSTER_ROLE,
  acceptMirrorsFromLabel,
} from '../dist/config-mirror/config-mirror.constants.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DEPLOY_DIR = join(REPO_ROOT, 'apps/sample-operator/deploy');
/** The failover step's Lease duration: short, so that the demo is quick. */
const FAILOVER_LEASE_MS = 4_000;
/** Retries back off from client-go's 5 ms, but only up to 2 s, so that the demo is quick. */
const RETRY_MAX_DELAY_MS = 2_000;
const LOG_PATH = join(REPO_ROOT, '.cache/demo/operator.log');

const useKubeconfig =
  ['1', 'true', 'yes'].includes((process.env.KUBE_EVENTS_DEMO_USE_KUBECONFIG ?? '').toLowerCase()) ||
  process.argv.includes('--use-kubeconfig');

// Fixed names on the demo's own control plane; a suffix on someone's cluster.
const suffix = useKubeconfig ? `-${randomBytes(2).toString('hex')}` : '';
const NS = `mirror-demo${suffix}`;
const TARGETS = [`team-a${suffix}`, `team-b${suffix}`];
const NAME = 'app-config';
/** A namespace that accepts the demo's mirrors by its label, but never lets the operator in (no RoleBinding). */
const UNBOUND = `team-c${suffix}`;
/** The operator's identity in deploy/: on the demo's own control plane, the operator runs as it, confined by its RBAC. */
const SERVICE_ACCOUNT = { namespace: 'configmirror-system', name: 'configmirror-controller' };
const AS_OPERATOR = `--as=system:serviceaccount:${SERVICE_ACCOUNT.namespace}:${SERVICE_ACCOUNT.name}`;
/** Against someone's cluster the demo installs no RBAC, and runs the operator with their credentials. */
const confined = !useKubeconfig;

// ---------------------------------------------------------------------------
// Output

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (text: string) => (tty ? `\x1b[1m${text}\x1b[0m` : text);
const dim = (text: string) => (tty ? `\x1b[2m${text}\x1b[0m` : text);
const out = (text = '') => process.stdout.write(`${text}\n`);
const say = (text: string) => out(`  ${text}`);
const indent = (text: string, prefix = '    ') =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');

let stepNumber = 0;
const STEPS = 9;
function step(title: string): void {
  out();
  out(bold(`[${++stepNumber}/${STEPS}] ${title}`));
}

// ---------------------------------------------------------------------------
// What the demo started, and how it stops it

const interrupted = new AbortController();
let cp: ControlPlane | undefined;
let operator: INestApplication | undefined;
/** The operator replicas of the failover step, each a process of its own. */
const replicas = new Map<string, ChildProcess>();
let operatorLog: WriteStream | undefined;
let createdCrd = false;
const createdNamespaces: string[] = [];
let scratchDir: string | undefined;
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    const wasInterrupted = interrupted.signal.aborted;
    if (operator) {
      say('stopping the operator…');
      await operator.close().catch((error: unknown) => say(`(the operator did not stop cleanly: ${message(error)})`));
      operator = undefined;
    }
    for (const [name, child] of replicas) {
      if (child.exitCode === null && child.signalCode === null) {
        say(`stopping replica ${name}…`);
        child.kill('SIGTERM');
        await new Promise((done) => child.once('exit', done));
      }
    }
    replicas.clear();
    // On the demo's own control plane, everything goes away with it.
    if (cp?.external) {
      if (createdNamespaces.length > 0) {
        say(`deleting namespaces ${createdNamespaces.join(', ')}…`);
        await cp
          .kubectl(['delete', 'namespace', ...createdNamespaces, '--ignore-not-found', '--wait=false'])
          .catch(() => undefined);
      }
      if (createdCrd) {
        say(`deleting the CRD ${CRD_NAME} (the demo installed it)…`);
        await cp.kubectl(['delete', 'crd', CRD_NAME, '--ignore-not-found', '--wait=false']).catch(() => undefined);
      }
    } else if (cp) {
      say(wasInterrupted ? 'stopping the control plane…' : 'stopping the control plane (etcd, kube-apiserver)…');
      await cp.stop().catch(() => undefined);
    }
    cp = undefined;
    if (scratchDir) await rm(scratchDir, { recursive: true, force: true }).catch(() => undefined);
    await new Promise<void>((done) => (operatorLog ? operatorLog.end(done) : done()));
  })();
  return cleaning;
}

// Ctrl-C reaches every process of the terminal's foreground group, and npm
// forwards it too: a second signal within a second is the same Ctrl-C.
let firstSignalAt: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < 1_000) return;
      out('\nStopping now.');
      process.exit(0); // control-plane.ts kills etcd and kube-apiserver on exit
    }
    firstSignalAt = Date.now();
    out(`\n${bold('Interrupted')}: cleaning up (Ctrl-C again to stop at once)…`);
    interrupted.abort();
    void cleanUp().finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------
// Helpers

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const pause = (ms: number) => sleep(ms, undefined, { signal: interrupted.signal });

/** Runs kubectl, echoing the command; fails on a non-zero exit. */
async function kubectl(
  args: string[],
  options: { input?: string; echo?: string; quiet?: boolean } = {},
): Promise<string> {
  if (!cp) throw new Error('no cluster');
  if (!options.quiet) say(dim(`$ ${options.echo ?? `kubectl ${args.join(' ')}`}`));
  const result = await cp.kubectl(args, { input: options.input });
  interrupted.signal.throwIfAborted();
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

/** `kubectl auth can-i …` as the operator's ServiceAccount: `yes` or `no`. */
async function canI(args: string[]): Promise<string> {
  if (!cp) throw new Error('no cluster');
  return (await cp.kubectl(['auth', 'can-i', ...args, AS_OPERATOR])).stdout.trim();
}

/** Polls `check` until it returns a value, or fails after `timeoutMs` saying what it waited for. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await pause(200);
  }
}

/** The section of `kubectl describe` output that starts with `heading` (up to the next top-level heading). */
function section(describe: string, heading: string): string {
  const lines = describe.trimEnd().split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${heading}:`));
  if (start < 0) return '';
  let end = start + 1;
  while (end < lines.length && (lines[end] === '' || /^\s/.test(lines[end]))) end++;
  return lines.slice(start, end).join('\n');
}

async function describeMirror(sections: string[]): Promise<void> {
  const text = await kubectl(['describe', 'configmirror', NAME, '-n', NS]);
  const shown = sections.map((heading) => section(text, heading)).filter(Boolean);
  out(indent(shown.join('\n')));
}

function readyCondition(mirror: ConfigMirror | undefined) {
  return mirror?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

/** A kubeconfig file kubectl can use for the cluster $KUBECONFIG points at (several files are merged). */
async function userKubeconfigPath(): Promise<string> {
  const paths = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (paths.length === 1) return resolve(paths[0]);
  if (paths.length === 0) {
    const path = join(homedir(), '.kube', 'config');
    if (!existsSync(path)) throw new Error('KUBECONFIG is not set and ~/.kube/config does not exist: which cluster?');
    return path;
  }
  const merged = new KubeConfig();
  merged.loadFromDefault();
  scratchDir = await mkdtemp(join(tmpdir(), 'kube-events-demo-'));
  const path = join(scratchDir, 'kubeconfig');
  await writeFile(path, merged.exportConfig(), { mode: 0o600 });
  return path;
}

function operatorLogger(stream: WriteStream): LoggerService {
  const write =
    (level: string) =>
    (text: unknown, ...rest: unknown[]) => {
      const context = typeof rest.at(-1) === 'string' ? ` [${String(rest.at(-1))}]` : '';
      stream.write(`${new Date().toISOString()} ${level}${context} ${String(text)}\n`);
      if (level === 'ERROR' && !cleaning) say(`operator error${context}: ${String(text)}`);
    };
  return {
    log: write('LOG'),
    warn: write('WARN'),
    error: write('ERROR'),
    debug: write('DEBUG'),
    verbose: write('VERBOSE'),
  };
}

// ---------------------------------------------------------------------------
// The demo

async function main(): Promise<void> {
  const started = Date.now();
  out(bold('nestjs-kube-events demo: a ConfigMirror operator whose failures show up in `kubectl describe`'));
  say('A ConfigMirror copies a source ConfigMap into target namespaces. The operator reports');
  say('what it does as Kubernetes Events, published with nestjs-kube-events.');

  // 1. The cluster
  if (useKubeconfig) {
    step('Using the cluster from KUBECONFIG');
    process.env.KUBE_EVENTS_E2E_KUBECONFIG = await userKubeconfigPath();
    cp = await startControlPlane(); // a handle on the existing cluster; starts nothing
    if (!cp.binDir) throw new Error('kubectl not found on PATH (or run `npm run control-plane:build` for one)');
    const context = cp.kubeConfig().getCurrentContext();
    say(`context ${context}, server ${cp.server}; demo namespaces get the suffix ${suffix}`);
  } else {
    step('Starting a local Kubernetes control plane (etcd + kube-apiserver)');
    applyKubernetesArgument();
    const { kubeApiserver, etcd, kubectl: kubectlBin } = binariesIn(chosenKubernetes().binDir);
    if (![kubeApiserver, etcd, kubectlBin].every((file) => existsSync(file))) {
      say('First run: building kube-apiserver, etcd and kubectl from source with Go.');
      say('This takes a few minutes, once; later runs start in seconds.');
    }
    const { binDir } = await ensureControlPlaneBinaries({ log: (line) => say(dim(line)) });
    interrupted.signal.throwIfAborted();
    const t0 = Date.now();
    cp = await startControlPlane({ binDir });
    interrupted.signal.throwIfAborted();
    say(`Kubernetes ${await kubernetesVersion()}, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${cp.server}`);
  }
  const kubeConfig = cp.kubeConfig();
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const eventsApi = kubeConfig.makeApiClient(EventsV1Api);
  const getMirror = async () =>
    (await customObjects.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: NS,
      name: NAME,
    })) as ConfigMirror;

  // 2. The CRD
  step('Installing the ConfigMirror CRD');
  createdCrd = (await cp.kubectl(['get', 'crd', CRD_NAME])).code !== 0;
  out(
    indent(
      await kubectl(['apply', '-f', join(DEPLOY_DIR, 'crd.yaml')], {
        echo: `kubectl apply -f ${relative(REPO_ROOT, join(DEPLOY_DIR, 'crd.yaml'))}`,
      }),
    ),
  );
  await kubectl(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=30s'], { quiet: true });

  // 3. The operator
  step('Starting the operator');
  await mkdir(dirname(LOG_PATH), { recursive: true });
  operatorLog = createWriteStream(LOG_PATH, { flags: 'w' });
  let operatorKubeConfig = kubeConfig;
  if (confined) {
    say('It runs as the ServiceAccount of deploy/, with the RBAC it ships: the API server confines it.');
    await kubectl(['apply', '-f', join(DEPLOY_DIR, 'service-account.yaml'), '-f', join(DEPLOY_DIR, 'rbac.yaml')], {
      echo: 'kubectl apply -f apps/sample-operator/deploy/service-account.yaml -f apps/sample-operator/deploy/rbac.yaml',
    });
    operatorKubeConfig = (await serviceAccountKubeConfig(cp, SERVICE_ACCOUNT)).kubeConfig;
    await waitFor('the RBAC to take effect', async () =>
      (await canI(['watch', 'configmirrors.mirror.kube-events.dev', '-A'])) === 'yes' ? true : undefined,
    );
    say(`Nothing of any namespace's content until the namespace lets it in:`);
    for (const args of [
      ['get', 'configmaps', '-n', 'kube-system'],
      ['create', 'events.events.k8s.io', '-n', 'kube-system'],
    ]) {
      say(dim(`$ kubectl auth can-i ${args.join(' ')} ${AS_OPERATOR}`));
      say(`  ${await canI(args)}`);
    }
    const { kubeconfigPath: operatorKubeconfigPath } = await serviceAccountKubeConfig(cp, SERVICE_ACCOUNT);
    say('Not even Events in its own namespace yet. Started like that, the operator says so, once, at start-up:');
    say(indent(await permissionLine(operatorKubeconfigPath), '  '));
    const eventsRbac = join(DEPLOY_DIR, 'events-rbac.yaml');
    out(
      indent(
        await kubectl(['apply', '-f', eventsRbac], { echo: `kubectl apply -f ${relative(REPO_ROOT, eventsRbac)}` }),
      ),
    );
    await waitFor('the Events Role to take effect', async () =>
      (await canI(['list', 'events.events.k8s.io', '-n', SERVICE_ACCOUNT.namespace])) === 'yes' ? true : undefined,
    );
    say('Its Event writes get an API Priority and Fairness level of their own, so that they never queue its reads:');
    const flowControl = join(DEPLOY_DIR, 'flow-control.yaml');
    out(
      indent(
        await kubectl(['apply', '-f', flowControl], { echo: `kubectl apply -f ${relative(REPO_ROOT, flowControl)}` }),
      ),
    );
  }
  operator = await createOperator(
    { kubeConfig: operatorKubeConfig, instance: 'demo', retryMaxDelayMs: RETRY_MAX_DELAY_MS, shutdownTimeoutMs: 5_000 },
    operatorLogger(operatorLog),
  );
  await listenForProbes(operator);
  await Promise.race([
    operator.get(ConfigMirrorController).whenReady(),
    sleep(30_000, undefined, { signal: interrupted.signal }).then(() => {
      throw new Error(`the operator's informers did not sync within 30 s; see ${relative(REPO_ROOT, LOG_PATH)}`);
    }),
  ]);
  say(`ConfigMirror controller ready, in this process (its log: ${relative(REPO_ROOT, LOG_PATH)}).`);
  say(
    `Failed reconciles are retried with exponential backoff: 5 ms, doubling, capped at ${RETRY_MAX_DELAY_MS / 1000} s for the demo`,
  );
  say('(1000 s in production, as in client-go).');

  // 4. A ConfigMirror that cannot work yet
  step('A ConfigMirror whose source ConfigMap does not exist yet');
  for (const namespace of [NS, ...TARGETS]) {
    await kubectl(['create', 'namespace', namespace]);
    createdNamespaces.push(namespace);
  }
  say("A mirror writes only into namespaces that accept its namespace's mirrors, so the targets opt in:");
  await kubectl(['label', 'namespace', ...TARGETS, `${acceptMirrorsFromLabel(NS)}=true`]);
  if (confined) {
    say(`and let the operator in: ${NS} for its ConfigMirrors, the targets for their copies:`);
    const serviceAccount = `--serviceaccount=${SERVICE_ACCOUNT.namespace}:${SERVICE_ACCOUNT.name}`;
    await kubectl([
      'create',
      'rolebinding',
      MIRRORS_CLUSTER_ROLE,
      `--clusterrole=${MIRRORS_CLUSTER_ROLE}`,
      serviceAccount,
      '-n',
      NS,
    ]);
    for (const target of TARGETS) {
      await kubectl([
        'create',
        'rolebinding',
        COPIES_CLUSTER_ROLE,
        `--clusterrole=${COPIES_CLUSTER_ROLE}`,
        serviceAccount,
        '-n',
        target,
      ]);
    }
    for (const namespace of [NS, ...TARGETS]) {
      await waitFor(`the RoleBinding in ${namespace} to take effect`, async () =>
        (await canI(['list', 'configmaps', '-n', namespace])) === 'yes' ? true : undefined,
      );
    }
  }
  const manifest = [
    `apiVersion: ${GROUP}/${VERSION}`,
    'kind: ConfigMirror',
    'metadata:',
    `  name: ${NAME}`,
    `  namespace: ${NS}`,
    'spec:',
    `  sourceName: ${NAME}          # ConfigMap ${NS}/${NAME}: not created yet`,
    `  targetNamespaces: [${TARGETS.join(', ')}]`,
  ].join('\n');
  await kubectl(['apply', '-f', '-'], { input: manifest, echo: 'kubectl apply -f - <<EOF' });
  out(indent(`${manifest}\nEOF`));
  say('Every reconcile fails and is retried. The failures are published as Warning Events,');
  say('but repeats are folded into ONE Event whose count grows (like client-go). The Ready condition');
  say('that the first status write set is an Event of its own (Ready → False), published once:');
  await waitFor('the first ReconcileFailed Event', async () =>
    (await mirrorEvents(eventsApi, getMirror)).find(isFailure),
  );
  await pause(3_000);
  out();
  await describeMirror(['Status', 'Events']);
  await pause(6_000);
  out();
  say('6 seconds later, the same Event, its count higher:');
  await describeMirror(['Events']);

  // 5. Recovery
  step('Creating the source ConfigMap: the ConfigMirror recovers');
  await kubectl(['create', 'configmap', NAME, '-n', NS, '--from-literal=greeting=hello', '--from-literal=color=blue']);
  await waitFor('Ready=True', async () => (readyCondition(await getMirror())?.status === 'True' ? true : undefined));
  await waitFor('the Synced Event', async () =>
    (await mirrorEvents(eventsApi, getMirror)).find((event) => event.reason === 'Synced' && event.action === 'Sync'),
  );
  const transition = await waitFor('the Event of Ready turning True', async () =>
    (await mirrorEvents(eventsApi, getMirror)).find(readyTurnedTrue),
  );
  say('Ready is now True, and a Normal Synced Event says what the operator wrote. Each change of the Ready');
  say('condition is an Event too, published only once the status write succeeded (@PublishesConditionChanges):');
  say(`  ${transition.type} ${transition.reason}: ${transition.note}`);
  out();
  await describeMirror(['Status', 'Events']);
  out();
  out(indent(await kubectl(['get', 'configmaps', '-A', '-l', `${MIRROR_LABEL}=${NAME}`])));

  // 6. The namespace rules
  step('A ConfigMirror that reaches outside its namespace is refused');
  const PEEK = 'peek';
  const peek = [
    `apiVersion: ${GROUP}/${VERSION}`,
    'kind: ConfigMirror',
    'metadata:',
    `  name: ${PEEK}`,
    `  namespace: ${NS}`,
    'spec:',
    '  sourceName: extension-apiserver-authentication',
    '  sourceNamespace: kube-system   # not its own namespace',
    `  targetNamespaces: [${TARGETS[0]}]`,
  ].join('\n');
  await kubectl(['apply', '-f', '-'], { input: peek, echo: 'kubectl apply -f - <<EOF' });
  out(indent(`${peek}\nEOF`));
  await waitFor('the refusal', async () => {
    const text = await kubectl(['describe', 'configmirror', PEEK, '-n', NS], { quiet: true });
    return text.includes('SourceNotAllowed') && text.includes('Warning') ? text : undefined;
  });
  say('A mirror reads only its own namespace, and writes only into namespaces labelled to accept it.');
  say('The refusal reads nothing in kube-system, so it is the same whether the ConfigMap exists or not:');
  out();
  const refused = await kubectl(['describe', 'configmirror', PEEK, '-n', NS]);
  out(
    indent(
      ['Status', 'Events']
        .map((heading) => section(refused, heading))
        .filter(Boolean)
        .join('\n'),
    ),
  );
  await kubectl(['delete', 'configmirror', PEEK, '-n', NS]);

  if (confined) {
    out();
    say(`${UNBOUND} carries the label that accepts mirrors from ${NS}, but no RoleBinding: the operator's code`);
    say('would write there, and the API server refuses it (403), which the mirror reports:');
    await kubectl(['create', 'namespace', UNBOUND]);
    createdNamespaces.push(UNBOUND);
    await kubectl(['label', 'namespace', UNBOUND, `${acceptMirrorsFromLabel(NS)}=true`]);
    const INTO = 'into-team-c';
    const into = [
      `apiVersion: ${GROUP}/${VERSION}`,
      'kind: ConfigMirror',
      'metadata:',
      `  name: ${INTO}`,
      `  namespace: ${NS}`,
      'spec:',
      `  sourceName: ${NAME}`,
      `  targetNamespaces: [${UNBOUND}]`,
    ].join('\n');
    await kubectl(['apply', '-f', '-'], { input: into, echo: 'kubectl apply -f - <<EOF' });
    out(indent(`${into}\nEOF`));
    const text = await waitFor('the refusal by the API server', async () => {
      const described = await kubectl(['describe', 'configmirror', INTO, '-n', NS], { quiet: true });
      return described.includes('Forbidden') && described.includes('Warning') ? described : undefined;
    });
    say(dim(`$ kubectl describe configmirror ${INTO} -n ${NS}`));
    out(
      indent(
        ['Status', 'Events']
          .map((heading) => section(text, heading))
          .filter(Boolean)
          .join('\n'),
      ),
    );
    await kubectl(['delete', 'configmirror', INTO, '-n', NS]);
  }

  // 7. A new failure
  step('Deleting the source: a failure after a recovery starts a NEW Event');
  const before = (await mirrorEvents(eventsApi, getMirror)).filter(isFailure).map((event) => event.metadata?.name);
  await kubectl(['delete', 'configmap', NAME, '-n', NS]);
  await waitFor('a new ReconcileFailed Event', async () =>
    (await mirrorEvents(eventsApi, getMirror)).find(
      (event) => isFailure(event) && !before.includes(event.metadata?.name),
    ),
  );
  await pause(3_000);
  say('The old Warning Event stays as it was; the new failure has an Event of its own, counting from 1.');
  say('(The copies stay in place: the operator never deletes them.)');
  out();
  await describeMirror(['Status', 'Events']);
  out();
  say('What the API server holds: one events.k8s.io/v1 Event per series, not one per failure:');
  out();
  const events = (await mirrorEvents(eventsApi, getMirror)).sort(
    (a, b) => Date.parse(String(a.eventTime)) - Date.parse(String(b.eventTime)),
  );
  const rows = [
    ['NAME', 'TYPE', 'REASON', 'SERIES.COUNT', 'NOTE'],
    ...events.map((event) => [
      event.metadata?.name ?? '',
      event.type ?? '',
      event.reason ?? '',
      String(event.series?.count ?? '-'),
      event.note ?? '',
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  out(
    indent(
      rows
        .map((row) =>
          row
            .map((cell, column) => cell.padEnd(widths[column]))
            .join('   ')
            .trimEnd(),
        )
        .join('\n'),
    ),
  );

  // 8. Two replicas, and the leader dies
  step('Two replicas with leader election: the leader is killed, the same Event keeps counting');
  await operator.close();
  operator = undefined;
  const kubeconfigPath = cp?.kubeconfigPath ?? (await userKubeconfigPath());
  const leases = kubeConfig.makeApiClient(CoordinationV1Api);
  const holder = async () =>
    (await leases.readNamespacedLease({ namespace: NS, name: LEASE_NAME }).catch(() => undefined))?.spec
      ?.holderIdentity || undefined;
  for (const name of ['configmirror-0', 'configmirror-1']) {
    replicas.set(name, startReplica(name, kubeconfigPath));
  }
  say('Two operator processes, LEADER_ELECT=true, POD_NAME configmirror-0 and -1, competing for the Lease');
  say(`${NS}/${LEASE_NAME} (lease ${FAILOVER_LEASE_MS / 1000} s here; client-go's 15 s in the shipped Deployment).`);
  const leader = await waitFor('a leader', holder);
  const failing = await waitFor('the failure Event counting under the new leader', async () => {
    const [event] = (await mirrorEvents(eventsApi, getMirror)).filter(
      (event) => isFailure(event) && !before.includes(event.metadata?.name),
    );
    return event;
  });
  await pause(3_000);
  say(
    `${leader} leads; only it reconciles. resumeSeries: it continued the failure's Event (${failing.metadata?.name}).`,
  );
  out();
  await describeMirror(['Events']);
  const killedAt = Date.now();
  say(`$ kill -KILL <${leader}>   (a crash: no release of the Lease)`);
  replicas.get(leader)!.kill('SIGKILL');
  const next = await waitFor('the other replica to take the Lease', async () => {
    const now = await holder();
    return now && now !== leader ? now : undefined;
  });
  say(`${next} took the Lease ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (once it expired).`);
  await pause(4_000);
  say('The same Warning Event, its count still growing: not a new x1 under the old one.');
  out();
  await describeMirror(['Events']);
  say(`$ kill -TERM <${next}>   (a clean stop releases the Lease at once)`);
  const stopping = replicas.get(next)!;
  stopping.kill('SIGTERM');
  await new Promise((done) => stopping.once('exit', done));
  say(`${next} exited; the Lease holder is now ${(await holder()) ?? 'nobody (released)'}.`);

  // 9. Done
  step('Cleaning up');
  await cleanUp();
  out();
  out(bold(`Done in ${Math.round((Date.now() - started) / 1000)} s.`));
  if (!useKubeconfig) say('Against your own cluster: KUBE_EVENTS_DEMO_USE_KUBECONFIG=1 npm run demo');
  say('To run the operator for real, see apps/sample-operator/README.md.');
}

/** One operator replica as a process of its own, with leader election and the demo's short timings. */
function startReplica(name: string, kubeconfigPath: string): ChildProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/sample-operator/dist/main.js')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KUBECONFIG: kubeconfigPath,
      NO_COLOR: '1',
      POD_NAME: name,
      POD_NAMESPACE: NS,
      LEADER_ELECT: 'true',
      LEADER_ELECT_LEASE_DURATION_MS: String(FAILOVER_LEASE_MS),
      LEADER_ELECT_RENEW_DEADLINE_MS: String(FAILOVER_LEASE_MS - 1_000),
      LEADER_ELECT_RETRY_PERIOD_MS: '500',
      RETRY_MAX_DELAY_MS: String(RETRY_MAX_DELAY_MS),
      SHUTDOWN_TIMEOUT_MS: '5000',
    },
  });
  child.stdout.pipe(operatorLog!, { end: false });
  child.stderr.pipe(operatorLog!, { end: false });
  return child;
}

/** The recorder's start-up line about the Events it may not write: the operator's first seconds, in a process of its own. */
async function permissionLine(kubeconfigPath: string): Promise<string> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/sample-operator/dist/main.js')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: kubeconfigPath, NO_COLOR: '1', POD_NAME: 'demo-first-start' },
  });
  child.stdout.pipe(operatorLog!, { end: false });
  child.stderr.pipe(operatorLog!, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seen = '';
  child.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  try {
    const line = await waitFor('the start-up line about Events', async () =>
      seen.split('\n').find((text) => text.includes('events.k8s.io') && text.includes('cannot all be written')),
    );
    // Nest's prefix (pid, time, level) off: the message itself.
    return line.slice(line.indexOf('Events of '));
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Whether an Event says the ConfigMirror's `Ready` condition turned True. */
function readyTurnedTrue(event: EventsV1Event): boolean {
  return event.action === 'UpdateStatus' && /^Ready (\S+ )?→ True\b/.test(event.note ?? '');
}

function isFailure(event: EventsV1Event): boolean {
  return event.type === 'Warning' && event.reason === 'ReconcileFailed';
}

/** The events.k8s.io/v1 Events about the demo's ConfigMirror. */
async function mirrorEvents(eventsApi: EventsV1Api, getMirror: () => Promise<ConfigMirror>): Promise<EventsV1Event[]> {
  const uid = (await getMirror()).metadata.uid;
  const list = await eventsApi.listNamespacedEvent({ namespace: NS });
  return list.items.filter((event) => event.regarding?.uid === uid);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  if (interrupted.signal.aborted) {
    await cleaning;
    process.exit(0);
  }
  out();
  if (error instanceof ControlPlaneBuildError) {
    out(error.message);
  } else {
    out(`The demo failed: ${message(error)}`);
  }
  out(`(operator log: ${relative(REPO_ROOT, LOG_PATH)})`);
  await cleanUp();
  process.exit(1);
}
