// What the end-to-end tests of the sample operator's process need: the built operator, and its CRD on the cluster.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import {
  CONFIG_MIRROR_API_VERSION,
  CONFIG_MIRROR_CRD_NAME,
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_KIND,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
} from '../../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import { type ControlPlane, sharedControlPlane } from '../../../tools/control-plane/control-plane.js';
import { exitOf } from './child-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The operator's entry point, as `npm start` runs it. */
export const OPERATOR_MAIN = join(REPO_ROOT, 'apps/sample-operator/dist/main.js');

/**
 * Starts the built operator against `cp` as a child process, with fast
 * retries and no resync; `env` adds to or overrides its settings.
 */
export function spawnOperator(cp: ControlPlane, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [OPERATOR_MAIN], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KUBECONFIG: cp.kubeconfigPath,
      NO_COLOR: '1',
      RESYNC_PERIOD_MS: '0',
      RETRY_BASE_DELAY_MS: '5',
      RETRY_MAX_DELAY_MS: '200',
      ...env,
    },
  });
  runningOperators.add(child);
  child.once('exit', () => runningOperators.delete(child));
  return child;
}

/** Operators started by this test file that have not exited yet. */
const runningOperators = new Set<ChildProcess>();

/**
 * Kills every operator this test file started that still runs. A test that fails half-way leaves its replicas
 * running: they would keep Jest from exiting, and keep reconciling (and writing the status of) the ConfigMirrors
 * of the tests after it.
 */
export async function killRunningOperators(): Promise<void> {
  await Promise.all(
    [...runningOperators].map(async (child) => {
      child.kill('SIGKILL');
      await exitOf(child, 10_000);
    }),
  );
}

/** Builds the library and the operator unless both are built. */
export async function ensureOperatorBuilt(): Promise<void> {
  if (existsSync(OPERATOR_MAIN) && existsSync(join(REPO_ROOT, 'libs/kube-events/dist/index.js'))) return;
  await promisify(execFile)('npm', ['run', 'build'], { cwd: REPO_ROOT });
}

/** Applies the ConfigMirror CRD and waits until it is established; resolves whether this call installed it. */
export async function installConfigMirrorCrd(cp: ControlPlane): Promise<boolean> {
  const installed = (await cp.kubectl(['get', 'crd', CONFIG_MIRROR_CRD_NAME])).code !== 0;
  for (const args of [
    ['apply', '-f', join(REPO_ROOT, 'apps/sample-operator/deploy/crd.yaml')],
    ['wait', '--for=condition=Established', `crd/${CONFIG_MIRROR_CRD_NAME}`, '--timeout=30s'],
  ]) {
    const result = await cp.kubectl(args);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
  }
  return installed;
}

/** Removes the ConfigMirror CRD if {@link installConfigMirrorCrd} installed it. */
export async function removeConfigMirrorCrd(cp: ControlPlane, installed: boolean): Promise<void> {
  if (installed) await cp.kubectl(['delete', 'crd', CONFIG_MIRROR_CRD_NAME, '--ignore-not-found', '--wait=false']);
}

const MIRRORS = { group: CONFIG_MIRROR_GROUP, version: CONFIG_MIRROR_VERSION, plural: CONFIG_MIRROR_PLURAL };

/** A ConfigMirror whose source ConfigMap does not exist: every reconcile fails and is retried. */
export async function createFailingConfigMirror(
  customObjects: CustomObjectsApi,
  namespace: string,
  name: string,
): Promise<void> {
  await customObjects.createNamespacedCustomObject({
    ...MIRRORS,
    namespace,
    body: {
      apiVersion: CONFIG_MIRROR_API_VERSION,
      kind: CONFIG_MIRROR_KIND,
      metadata: { name, namespace },
      spec: { sourceName: 'missing-source', targetNamespaces: [namespace] },
    },
  });
}

/**
 * Deletes a ConfigMirror and waits (20 s at most) until it is gone: the
 * control plane has no namespace controller, so a mirror left in a
 * Terminating namespace would be picked up by the next operator that starts.
 */
export async function deleteConfigMirror(
  customObjects: CustomObjectsApi,
  namespace: string,
  name: string,
): Promise<void> {
  await customObjects.deleteNamespacedCustomObject({ ...MIRRORS, namespace, name }).catch(() => {});
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      await customObjects.getNamespacedCustomObject({ ...MIRRORS, namespace, name });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return;
    }
    await sleep(100);
  }
}

/** What {@link operatorProcessSuite} sets up for the tests of one describe block. */
export interface OperatorProcessSuite {
  readonly cp: ControlPlane;
  readonly core: CoreV1Api;
  readonly customObjects: CustomObjectsApi;
  /** A fresh namespace of this suite's own. */
  readonly namespace: string;
  /** Starts the built operator (see {@link spawnOperator}); the suite kills it afterwards if it is still running. */
  start(env: Record<string, string>): ChildProcess;
}

/**
 * Registers the `beforeAll`/`afterAll` that tests of the operator's process share: the operator built, its CRD and
 * a fresh namespace on the shared control plane, and afterwards the process killed and the mirror, the namespace
 * and the CRD removed.
 */
export function operatorProcessSuite(namespacePrefix: string, mirrorName: string): OperatorProcessSuite {
  const namespace = `${namespacePrefix}-${randomBytes(3).toString('hex')}`;
  let cp: ControlPlane | undefined;
  let core: CoreV1Api | undefined;
  let customObjects: CustomObjectsApi | undefined;
  let installedCrd = false;

  beforeAll(async () => {
    await ensureOperatorBuilt();
    cp = sharedControlPlane();
    const admin = cp.kubeConfig();
    core = admin.makeApiClient(CoreV1Api);
    customObjects = admin.makeApiClient(CustomObjectsApi);
    installedCrd = await installConfigMirrorCrd(cp);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  }, 180_000);

  afterAll(async () => {
    await killRunningOperators();
    if (customObjects) await deleteConfigMirror(customObjects, namespace, mirrorName);
    await core?.deleteNamespace({ name: namespace }).catch(() => {});
    if (cp) await removeConfigMirrorCrd(cp, installedCrd);
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('operatorProcessSuite: used before its beforeAll ran');
    return value;
  };
  return {
    get cp() {
      return ready(cp);
    },
    get core() {
      return ready(core);
    },
    get customObjects() {
      return ready(customObjects);
    },
    namespace,
    start(env) {
      return spawnOperator(ready(cp), env);
    },
  };
}
