// A local Kubernetes control plane for the end-to-end tests: etcd and
// kube-apiserver built from the Go module proxy (see build.ts),
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
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ensureControlPlaneBinaries } from './build.js';
import {
  ControlPlane,
  DEFAULT_EVENT_TTL,
  DEFAULT_START_TIMEOUT_MS,
  E2E_ENV,
  StartControlPlaneOptions,
} from './definitions.js';
import { Owned, makeTempDir, processScratchDir, stopOwned } from './processes.js';
import { startEtcd } from './etcd.js';
import { extraApiServer, ownedHandle, startApiServer } from './kube-apiserver.js';
import { findOnPath, loadKubeConfig, runKubectl } from './kubectl.js';
import { binariesIn, chosenKubernetes } from './build.js';

// The public surface: what handles offer and how they are made.
export { E2E_ENV } from './definitions.js';
export type {
  ControlPlane,
  ExtraApiServerOptions,
  KubectlOptions,
  KubectlResult,
  StartControlPlaneOptions,
} from './definitions.js';

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
    stop: async () => undefined,
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

export function existingCluster(kubeconfigPath: string): ControlPlane {
  const kubeConfig = loadKubeConfig(kubeconfigPath);
  const built = binariesIn(chosenKubernetes().binDir).kubectl;
  const kubectl = existsSync(built) ? built : findOnPath('kubectl');
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
    stop: async () => undefined,
    killApiServer: notOwned,
    startApiServerAgain: notOwned,
  };
}

export async function notOwned(): Promise<never> {
  throw new Error(
    'only a control plane started by this process can kill or restart its API server: use startExtraApiServer()',
  );
}
