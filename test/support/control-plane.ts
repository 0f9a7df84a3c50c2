// A local Kubernetes control plane for the end-to-end tests: etcd and
// kube-apiserver built from the Go module proxy (see build-control-plane.ts),
// started on free loopback ports, reached with an admin bearer token.
//
//   const cp = await startControlPlane({ eventTtl: '1h' });
//   const events = cp.kubeConfig().makeApiClient(EventsV1Api);
//   const { stdout } = await cp.kubectl(['describe', 'configmap', 'x', '-n', 'default']);
//   await cp.stop();
//
// Test files under Jest use sharedControlPlane(), the one started by
// test/e2e/global-setup.ts. With KUBE_EVENTS_E2E_KUBECONFIG set, nothing is
// started and the handles point at that existing cluster instead.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { CONTROL_PLANE_BIN_DIR, binariesIn, ensureControlPlaneBinaries } from './build-control-plane.js';
import { freePort } from './free-port.js';

// ---------------------------------------------------------------------------
// Public surface

export interface KubectlResult {
  stdout: string;
  stderr: string;
  /** Exit code; 128+n when killed by signal n (or by the timeout). */
  code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `apply -f -`). */
  input?: string;
  /** Another kubeconfig, e.g. a ServiceAccount's from serviceAccountKubeConfig(). */
  kubeconfigPath?: string;
  /** Default 30 s. */
  timeoutMs?: number;
}

export interface ExtraApiServerOptions {
  /** kube-apiserver --event-ttl, e.g. '5s'. Default '1h'. */
  eventTtl?: string;
}

export interface ControlPlane {
  /** A kubeconfig file for the admin user (group system:masters). */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The admin bearer token. */
  readonly token: string;
  /** Directory holding kubectl (and etcd and kube-apiserver when built here). */
  readonly binDir: string;
  /** etcd client URL, or undefined against an existing cluster. */
  readonly etcdUrl?: string;
  /** kube-apiserver --etcd-prefix. */
  readonly etcdPrefix?: string;
  /** Temp directory with etcd.log / kube-apiserver.log, when this process started them. */
  readonly dir?: string;
  /** True when this handle points at a cluster it did not start (KUBE_EVENTS_E2E_KUBECONFIG). */
  readonly external: boolean;
  /** A fresh KubeConfig for the admin user. */
  kubeConfig(): KubeConfig;
  /** Runs kubectl against this control plane; never rejects for a non-zero exit. */
  kubectl(args: string[], options?: KubectlOptions): Promise<KubectlResult>;
  /**
   * Starts a second kube-apiserver against the same etcd, under its own
   * --etcd-prefix (so it is an empty cluster of its own), e.g. with a short
   * --event-ttl for expiry tests. Stop it with its own stop().
   */
  startExtraApiServer(options?: ExtraApiServerOptions): Promise<ControlPlane>;
  /** Kills what this handle started and removes its temp directory; a no-op on shared/external handles. */
  stop(): Promise<void>;
  /**
   * Kills this handle's kube-apiserver (SIGKILL, as a crash), leaving etcd
   * running; {@link startApiServerAgain} brings it back. Only on handles that
   * started their API server (startControlPlane, startExtraApiServer).
   */
  killApiServer(): Promise<void>;
  /** Starts the killed kube-apiserver again, same flags, port and certificates, and waits until it is ready. */
  startApiServerAgain(): Promise<void>;
}

export interface StartControlPlaneOptions {
  /** kube-apiserver --event-ttl, e.g. '5s'. Default '1h' (the API server's default). */
  eventTtl?: string;
  /** Where kube-apiserver, etcd and kubectl are; default: build them if needed into .cache/control-plane/bin. */
  binDir?: string;
  /** Readiness limit per attempt; default 60 s. */
  startTimeoutMs?: number;
  /** More kube-apiserver flags. */
  apiServerArgs?: string[];
}

/** Environment variables through which global-setup hands the shared control plane to test files. */
export const E2E_ENV = {
  /** Input: use this existing cluster instead of starting one. */
  existingKubeconfig: 'KUBE_EVENTS_E2E_KUBECONFIG',
  /** Output: admin kubeconfig of the shared control plane. */
  kubeconfig: 'KUBECONFIG_E2E',
  server: 'KUBE_EVENTS_E2E_SERVER',
  token: 'KUBE_EVENTS_E2E_TOKEN',
  bin: 'KUBE_EVENTS_E2E_BIN',
  etcd: 'KUBE_EVENTS_E2E_ETCD',
  etcdPrefix: 'KUBE_EVENTS_E2E_ETCD_PREFIX',
  external: 'KUBE_EVENTS_E2E_EXTERNAL',
  /** Keep temp directories (logs, etcd data) after stop, for debugging. */
  keep: 'KUBE_EVENTS_E2E_KEEP',
} as const;

const DEFAULT_EVENT_TTL = '1h';
const POLL_MS = 100;
const DEFAULT_START_TIMEOUT_MS = 60_000;
const BIND_ATTEMPTS = 5;

/**
 * Starts etcd and kube-apiserver (building them first if needed), or, with
 * KUBE_EVENTS_E2E_KUBECONFIG set, returns a handle on that cluster.
 */
export async function startControlPlane(options: StartControlPlaneOptions = {}): Promise<ControlPlane> {
  const existing = process.env[E2E_ENV.existingKubeconfig];
  if (existing) return existingCluster(existing);

  const binDir = options.binDir ?? (await ensureControlPlaneBinaries()).binDir;
  const dir = await makeTempDir('kube-events-cp-');
  const owned: Owned = { dir, processes: [] };
  try {
    const etcd = await startEtcd(binDir, dir, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    owned.processes.push(etcd.process);
    const apiServer = await startApiServer({
      binDir,
      dir,
      etcdUrl: etcd.url,
      etcdPrefix: '/registry',
      eventTtl: options.eventTtl ?? DEFAULT_EVENT_TTL,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      extraArgs: options.apiServerArgs ?? [],
    });
    // The API server first, so that it does not log etcd errors on the way down.
    owned.processes.unshift(apiServer.process);
    return ownedHandle(owned, apiServer, binDir, etcd.url);
  } catch (error) {
    await stopOwned(owned);
    throw error;
  }
}

/**
 * The control plane that test/e2e/global-setup.ts started for the whole Jest
 * run, from the KUBECONFIG_E2E/KUBE_EVENTS_E2E_* variables. Its stop() does
 * nothing; startExtraApiServer() works (against the shared etcd) unless the
 * cluster is an external one.
 */
export function sharedControlPlane(): ControlPlane {
  const env = process.env;
  const kubeconfigPath = env[E2E_ENV.kubeconfig];
  if (!kubeconfigPath) {
    throw new Error(
      `${E2E_ENV.kubeconfig} is not set: the e2e tests need test/e2e/global-setup.ts (run them with \`npm run test:e2e\`), ` +
        `or call startControlPlane() yourself.`,
    );
  }
  const etcdUrl = env[E2E_ENV.etcd] || undefined;
  const external = env[E2E_ENV.external] === '1';
  const binDir = env[E2E_ENV.bin] ?? '';
  const base = {
    kubeconfigPath,
    server: env[E2E_ENV.server] ?? '',
    token: env[E2E_ENV.token] ?? '',
    binDir,
    etcdUrl,
    etcdPrefix: env[E2E_ENV.etcdPrefix] || undefined,
    external,
  };
  return {
    ...base,
    kubeConfig: () => loadKubeConfig(kubeconfigPath),
    kubectl: (args, options) => runKubectl(binDir, kubeconfigPath, args, options),
    startExtraApiServer: (options) => extraApiServer(binDir, etcdUrl, options),
    stop: async () => {},
    killApiServer: notOwned,
    startApiServerAgain: notOwned,
  };
}

/** The variables sharedControlPlane() reads, for a handle (global-setup sets them). */
export function controlPlaneEnv(cp: ControlPlane): Record<string, string> {
  return {
    [E2E_ENV.kubeconfig]: cp.kubeconfigPath,
    [E2E_ENV.server]: cp.server,
    [E2E_ENV.token]: cp.token,
    [E2E_ENV.bin]: cp.binDir,
    [E2E_ENV.etcd]: cp.etcdUrl ?? '',
    [E2E_ENV.etcdPrefix]: cp.etcdPrefix ?? '',
    [E2E_ENV.external]: cp.external ? '1' : '',
  };
}

export interface ServiceAccountCredentials {
  /** A bound token from the TokenRequest API. */
  token: string;
  /** Kubeconfig acting as system:serviceaccount:<namespace>:<name>. */
  kubeConfig: KubeConfig;
  /** The same, written to a file (for kubectl --kubeconfig / KubectlOptions.kubeconfigPath). */
  kubeconfigPath: string;
  /** 'system:serviceaccount:<namespace>:<name>', for RoleBinding subjects and kubectl --as. */
  username: string;
}

/**
 * Creates (unless it exists) a ServiceAccount and returns a token and a
 * kubeconfig acting as it, so that RBAC can be tested. The namespace must
 * exist. The ServiceAccount has no permissions until a (Cluster)RoleBinding
 * grants them.
 */
export async function serviceAccountKubeConfig(
  admin: ControlPlane | KubeConfig,
  serviceAccount: { namespace: string; name: string; expirationSeconds?: number },
): Promise<ServiceAccountCredentials> {
  const adminConfig = admin instanceof KubeConfig ? admin : admin.kubeConfig();
  const core = adminConfig.makeApiClient(CoreV1Api);
  const { namespace, name } = serviceAccount;
  try {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } });
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
  const tokenRequest = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], expirationSeconds: serviceAccount.expirationSeconds ?? 3600 },
    },
  });
  const token = tokenRequest.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);

  const cluster = adminConfig.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const username = `system:serviceaccount:${namespace}:${name}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ ...cluster, name: 'kube-events-e2e' }],
    users: [{ name: username, token }],
    contexts: [{ name: username, cluster: 'kube-events-e2e', user: username, namespace }],
    currentContext: username,
  });
  const dir = await mkdtemp(join(await processScratchDir(), 'sa-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
  return { token, kubeConfig, kubeconfigPath, username };
}

// ---------------------------------------------------------------------------
// Processes and clean-up

interface Owned {
  dir: string;
  processes: ChildProcess[];
  stopped?: Promise<void>;
}

const running = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let handlersInstalled = false;

function keepTempDirs(): boolean {
  return !!process.env[E2E_ENV.keep];
}

/** Synchronous last resort: kill everything still running and remove temp dirs. */
function killEverythingNow(): void {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
  if (!keepTempDirs()) for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killEverythingNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Someone else (the CLI, Jest) handles this signal and will stop us
      // cleanly or exit, which runs the 'exit' handler.
      if (process.listenerCount(signal) > 1) return;
      killEverythingNow();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A shell that outlives this process if it is killed with SIGKILL (or, under
 * Jest, if process.on('exit') never fires because test code sees a copy of
 * `process`), and then stops the child and removes the directory. Without a
 * child it only removes the directory once this process is gone.
 */
function spawnWatchdog(child: ChildProcess | undefined, dir: string): void {
  const script = [
    'parent=$1; child=$2; dir=$3',
    'alive() { [ "$child" = 0 ] || kill -0 "$child" 2>/dev/null; }',
    'while kill -0 "$parent" 2>/dev/null && alive; do sleep 1; done',
    'kill -0 "$parent" 2>/dev/null && exit 0',
    'if [ "$child" != 0 ]; then',
    '  kill -TERM "$child" 2>/dev/null',
    '  for i in 1 2 3 4 5 6; do kill -0 "$child" 2>/dev/null || break; sleep 0.5; done',
    '  kill -KILL "$child" 2>/dev/null',
    'fi',
    '[ -n "$dir" ] && rm -rf "$dir"',
  ].join('\n');
  const args = [String(process.pid), String(child?.pid ?? 0), keepTempDirs() ? '' : dir];
  const watchdog = spawn('sh', ['-c', script, 'watchdog', ...args], { stdio: 'ignore', detached: true });
  watchdog.on('error', () => {});
  watchdog.unref();
}

let scratchDir: Promise<string> | undefined;

/** A temp directory for this process's small files (ServiceAccount kubeconfigs), removed when it exits. */
function processScratchDir(): Promise<string> {
  scratchDir ??= (async () => {
    const dir = await makeTempDir(`kube-events-e2e-${process.pid}-`);
    spawnWatchdog(undefined, dir);
    return dir;
  })();
  return scratchDir;
}

function spawnLogged(command: string, args: string[], logPath: string, dir: string): ChildProcess {
  installExitHandlers();
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => {}); // reported through 'exit'/the log
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.unref();
  spawnWatchdog(child, dir);
  return child;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
  running.delete(child);
}

function stopOwned(owned: Owned): Promise<void> {
  owned.stopped ??= (async () => {
    for (const child of owned.processes) await stopProcess(child);
    if (!keepTempDirs()) await rm(owned.dir, { recursive: true, force: true });
    tempDirs.delete(owned.dir);
  })();
  return owned.stopped;
}

async function makeTempDir(prefix: string): Promise<string> {
  installExitHandlers();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function startupError(what: string, reason: string, logPath: string): Error {
  return new Error(`${what} did not start: ${reason}\n--- last lines of ${logPath} ---\n${tail(logPath)}\n---`);
}

const BIND_FAILURE = /address already in use|bind: |failed to listen/i;

// ---------------------------------------------------------------------------
// etcd

async function startEtcd(binDir: string, dir: string, timeoutMs: number): Promise<{ url: string; process: ChildProcess }> {
  const logPath = join(dir, 'etcd.log');
  for (let attempt = 1; ; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(dir, 'etcd-data');
    await rm(dataDir, { recursive: true, force: true });
    const child = spawnLogged(
      join(binDir, 'etcd'),
      [
        '--name=default',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=default=${peer}`,
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      logPath,
      dir,
    );
    const deadline = Date.now() + timeoutMs;
    while (!exited(child) && Date.now() < deadline) {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
      if (response?.ok && ((await response.json().catch(() => ({}))) as { health?: string }).health === 'true') {
        return { url, process: child };
      }
      await sleep(POLL_MS);
    }
    await stopProcess(child);
    const log = tail(logPath);
    if (attempt < BIND_ATTEMPTS && BIND_FAILURE.test(log)) continue;
    throw startupError('etcd', exited(child) ? `it exited with ${child.exitCode ?? child.signalCode}` : `not healthy within ${timeoutMs} ms`, logPath);
  }
}

// ---------------------------------------------------------------------------
// kube-apiserver

interface ApiServer {
  process: ChildProcess;
  server: string;
  token: string;
  kubeconfigPath: string;
  etcdPrefix: string;
  /** Starts the same kube-apiserver again (same flags and port); resolves once it is ready. */
  relaunch(): Promise<ChildProcess>;
}

async function startApiServer(options: {
  binDir: string;
  dir: string;
  etcdUrl: string;
  etcdPrefix: string;
  eventTtl: string;
  startTimeoutMs: number;
  extraArgs: string[];
}): Promise<ApiServer> {
  const { binDir, dir, etcdUrl, etcdPrefix, eventTtl, startTimeoutMs, extraArgs } = options;
  const certDir = join(dir, 'certs');
  await mkdir(certDir, { recursive: true });

  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${token},kube-events-admin,kube-events-admin,"system:masters"\n`, { mode: 0o600 });

  // One RSA key both signs ServiceAccount tokens and verifies them.
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const serviceAccountKey = join(dir, 'sa.key');
  await writeFile(serviceAccountKey, privateKey, { mode: 0o600 });

  const logPath = join(dir, 'kube-apiserver.log');
  const launch = (port: number) =>
    spawnLogged(
      join(binDir, 'kube-apiserver'),
      [
        `--etcd-servers=${etcdUrl}`,
        `--etcd-prefix=${etcdPrefix}`,
        `--cert-dir=${certDir}`,
        `--secure-port=${port}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        // The `kubernetes` Endpoints may not hold a loopback address; nothing here needs them.
        '--endpoint-reconciler-type=none',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--authorization-mode=RBAC',
        `--token-auth-file=${tokenFile}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${serviceAccountKey}`,
        `--service-account-signing-key-file=${serviceAccountKey}`,
        '--disable-admission-plugins=ServiceAccount',
        `--event-ttl=${eventTtl}`,
        ...extraArgs,
      ],
      logPath,
      dir,
    );
  // Ready when /readyz answers 200 and namespace default exists (the
  // bootstrap controller creates it just after the API server starts).
  const untilReady = async (child: ChildProcess, server: string): Promise<boolean> => {
    const deadline = Date.now() + startTimeoutMs;
    while (!exited(child) && Date.now() < deadline) {
      if (
        (await httpsStatus(`${server}/readyz`, token)) === 200 &&
        (await httpsStatus(`${server}/api/v1/namespaces/default`, token)) === 200
      ) {
        return true;
      }
      await sleep(POLL_MS);
    }
    return false;
  };
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    const child = launch(port);
    if (await untilReady(child, server)) {
      const kubeconfigPath = join(dir, 'kubeconfig');
      const caFile = join(certDir, 'apiserver.crt');
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromOptions({
        clusters: [{ name: 'kube-events-e2e', server, caData: (await readFile(caFile)).toString('base64') }],
        users: [{ name: 'kube-events-admin', token }],
        contexts: [{ name: 'kube-events-e2e', cluster: 'kube-events-e2e', user: 'kube-events-admin', namespace: 'default' }],
        currentContext: 'kube-events-e2e',
      });
      await writeFile(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
      const relaunch = async () => {
        const again = launch(port);
        if (await untilReady(again, server)) return again;
        await stopProcess(again);
        throw startupError('kube-apiserver (started again)', exited(again) ? `it exited with ${again.exitCode ?? again.signalCode}` : 'not ready', logPath);
      };
      return { process: child, server, token, kubeconfigPath, etcdPrefix, relaunch };
    }
    await stopProcess(child);
    const log = tail(logPath);
    if (attempt < BIND_ATTEMPTS && /address already in use/i.test(log)) continue;
    throw startupError(
      'kube-apiserver',
      exited(child) ? `it exited with ${child.exitCode ?? child.signalCode}` : `not ready within ${startTimeoutMs} ms`,
      logPath,
    );
  }
}

/** Status of a GET with the bearer token, 0 when the server does not answer. TLS is not verified: the cert is being generated. */
function httpsStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

function ownedHandle(owned: Owned, apiServer: ApiServer, binDir: string, etcdUrl: string): ControlPlane {
  return {
    kubeconfigPath: apiServer.kubeconfigPath,
    server: apiServer.server,
    token: apiServer.token,
    binDir,
    etcdUrl,
    etcdPrefix: apiServer.etcdPrefix,
    dir: owned.dir,
    external: false,
    kubeConfig: () => loadKubeConfig(apiServer.kubeconfigPath),
    kubectl: (args, options) => runKubectl(binDir, apiServer.kubeconfigPath, args, options),
    startExtraApiServer: (options) => extraApiServer(binDir, etcdUrl, options),
    stop: () => stopOwned(owned),
    killApiServer: async () => {
      const child = apiServer.process;
      if (exited(child)) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    },
    startApiServerAgain: async () => {
      const killed = apiServer.process;
      apiServer.process = await apiServer.relaunch();
      owned.processes[owned.processes.indexOf(killed)] = apiServer.process;
    },
  };
}

let extraCount = 0;

async function extraApiServer(binDir: string, etcdUrl: string | undefined, options: ExtraApiServerOptions = {}): Promise<ControlPlane> {
  if (!etcdUrl) {
    throw new Error('startExtraApiServer() needs the etcd of a control plane started here; it is not available against an existing cluster');
  }
  const dir = await makeTempDir('kube-events-cp-extra-');
  const owned: Owned = { dir, processes: [] };
  try {
    const etcdPrefix = `/kube-events-extra-${process.pid}-${++extraCount}-${randomBytes(3).toString('hex')}`;
    const apiServer = await startApiServer({
      binDir,
      dir,
      etcdUrl,
      etcdPrefix,
      eventTtl: options.eventTtl ?? DEFAULT_EVENT_TTL,
      startTimeoutMs: DEFAULT_START_TIMEOUT_MS,
      extraArgs: [],
    });
    owned.processes.push(apiServer.process);
    return ownedHandle(owned, apiServer, binDir, etcdUrl);
  } catch (error) {
    await stopOwned(owned);
    throw error;
  }
}

// ---------------------------------------------------------------------------
// Existing cluster, kubectl

function loadKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  return kubeConfig;
}

function findOnPath(command: string): string | undefined {
  for (const entry of (process.env.PATH ?? '').split(delimiter)) {
    if (!entry) continue;
    const candidate = join(entry, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function existingCluster(kubeconfigPath: string): ControlPlane {
  const kubeConfig = loadKubeConfig(kubeconfigPath);
  const kubectl = existsSync(binariesIn(CONTROL_PLANE_BIN_DIR).kubectl)
    ? binariesIn(CONTROL_PLANE_BIN_DIR).kubectl
    : findOnPath('kubectl');
  const binDir = kubectl ? dirname(kubectl) : '';
  return {
    kubeconfigPath,
    server: kubeConfig.getCurrentCluster()?.server ?? '',
    token: kubeConfig.getCurrentUser()?.token ?? '',
    binDir,
    external: true,
    kubeConfig: () => loadKubeConfig(kubeconfigPath),
    kubectl: (args, options) => runKubectl(binDir, kubeconfigPath, args, options),
    startExtraApiServer: (options) => extraApiServer(binDir, undefined, options),
    stop: async () => {},
    killApiServer: notOwned,
    startApiServerAgain: notOwned,
  };
}

async function notOwned(): Promise<never> {
  throw new Error('only a control plane started by this process can kill or restart its API server: use startExtraApiServer()');
}

function runKubectl(binDir: string, kubeconfigPath: string, args: string[], options: KubectlOptions = {}): Promise<KubectlResult> {
  const kubectl = binDir ? join(binDir, 'kubectl') : findOnPath('kubectl');
  if (!kubectl || !existsSync(kubectl)) {
    return Promise.reject(new Error(`kubectl not found (looked in ${binDir || 'PATH'}); run \`npm run control-plane:build\``));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl, args, {
      env: { ...process.env, KUBECONFIG: options.kubeconfigPath ?? kubeconfigPath },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const signals: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };
      resolve({ stdout, stderr, code: code ?? 128 + (signal ? (signals[signal] ?? 0) : 0) });
    });
    child.stdin.end(options.input ?? '');
  });
}
