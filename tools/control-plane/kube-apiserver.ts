// kube-apiserver against an etcd: RBAC, an admin token, ServiceAccount keys; and the handles that own one.

import { type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { freePort } from './free-port.js';
import {
  BIND_ATTEMPTS,
  ControlPlane,
  DEFAULT_EVENT_TTL,
  DEFAULT_START_TIMEOUT_MS,
  ExtraApiServerOptions,
  POLL_MS,
} from './definitions.js';
import { Owned, exited, makeTempDir, spawnLogged, startupError, stopOwned, stopProcess, tail } from './processes.js';
import { loadKubeConfig, runKubectl } from './kubectl.js';

export interface ApiServer {
  process: ChildProcess;
  server: string;
  token: string;
  kubeconfigPath: string;
  etcdPrefix: string;
  /** Starts the same kube-apiserver again (same flags and port); resolves once it is ready. */
  relaunch(): Promise<ChildProcess>;
}

export async function startApiServer(options: {
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
        contexts: [
          { name: 'kube-events-e2e', cluster: 'kube-events-e2e', user: 'kube-events-admin', namespace: 'default' },
        ],
        currentContext: 'kube-events-e2e',
      });
      await writeFile(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
      const relaunch = async () => {
        const again = launch(port);
        if (await untilReady(again, server)) return again;
        await stopProcess(again);
        throw startupError(
          'kube-apiserver (started again)',
          exited(again) ? `it exited with ${again.exitCode ?? again.signalCode}` : 'not ready',
          logPath,
        );
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
export function httpsStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 2_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

export function ownedHandle(owned: Owned, apiServer: ApiServer, binDir: string, etcdUrl: string): ControlPlane {
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

export let extraCount = 0;

export async function extraApiServer(
  binDir: string,
  etcdUrl: string | undefined,
  options: ExtraApiServerOptions = {},
): Promise<ControlPlane> {
  if (!etcdUrl) {
    throw new Error(
      'startExtraApiServer() needs the etcd of a control plane started here; it is not available against an existing cluster',
    );
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
      extraArgs: options.apiServerArgs ?? [],
    });
    owned.processes.push(apiServer.process);
    return ownedHandle(owned, apiServer, binDir, etcdUrl);
  } catch (error) {
    await stopOwned(owned);
    throw error;
  }
}
