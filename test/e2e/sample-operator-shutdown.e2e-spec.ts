// The built sample operator (apps/sample-operator/dist/main.js, as `npm start`
// runs it) as a child process against the shared control plane: once it logs
// that it is ready and is busy retrying a failing ConfigMirror, SIGTERM makes
// it stop its watches, drain the reconciles in flight and exit 0 within its
// shutdown timeout. This is the path a Deployment's pod takes on every
// rollout; the in-process e2e (sample-operator.e2e-spec.ts) never goes
// through main.ts and its signal handling.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import {
  CONFIG_MIRROR_GROUP as GROUP,
  CONFIG_MIRROR_PLURAL as PLURAL,
  CONFIG_MIRROR_VERSION as VERSION,
} from '../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import { exitOf, ProcessLog } from './support/child-process.js';
import { ensureOperatorBuilt, installConfigMirrorCrd, OPERATOR_MAIN as MAIN, removeConfigMirrorCrd } from './support/operator-fixtures.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The operator's SHUTDOWN_TIMEOUT_MS. */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Room beyond the drain for closing the Nest application and the process exiting. */
const EXIT_MARGIN_MS = 5_000;

const READY_LINE = 'ConfigMirror controller ready';
const STOPPING_LINE = 'stopping: closing watches, draining reconciles in flight';
const STOPPED_LINE = /stopped \(\d+ reconcile\(s\) were in flight\)/;
const GAVE_UP_LINE = 'gave up waiting for';

describe('sample operator process: SIGTERM while reconciles are failing', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let customObjects: CustomObjectsApi;
  let installedCrd = false;
  const namespace = `mirror-shutdown-${randomBytes(3).toString('hex')}`;
  const name = 'failing';
  let child: ChildProcess | undefined;
  let log: ProcessLog;

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
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child, 10_000);
    }
    await customObjects
      ?.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })
      .catch(() => {});
    // Wait for the ConfigMirror to be gone: the control plane has no namespace
    // controller, so a mirror left in a Terminating namespace would be picked
    // up by the next operator that starts.
    const deadline = Date.now() + 20_000;
    while (customObjects && Date.now() < deadline) {
      try {
        await customObjects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name });
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) break;
      }
      await sleep(100);
    }
    await core?.deleteNamespace({ name: namespace }).catch(() => {});
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  test('stops the watches, drains the reconciles in flight and exits 0 within the shutdown timeout', async () => {
    child = spawn(process.execPath, [MAIN], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        KUBECONFIG: cp.kubeconfigPath,
        NO_COLOR: '1',
        POD_NAME: 'e2e-shutdown',
        WORKERS: '2',
        RESYNC_PERIOD_MS: '0',
        RETRY_BASE_DELAY_MS: '5',
        RETRY_MAX_DELAY_MS: '200',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      },
    });
    log = new ProcessLog(child);

    await log.waitFor(READY_LINE);

    // Its source ConfigMap does not exist: every reconcile fails and is retried.
    await customObjects.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ConfigMirror',
        metadata: { name, namespace },
        spec: { sourceName: 'missing-source', targetNamespaces: [namespace] },
      },
    });
    await log.waitFor(`${namespace}/${name} failed (attempt 3)`);

    expect(child.kill('SIGTERM')).toBe(true);
    const code = await exitOf(child, SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);

    const text = log.text();
    expect({ code, log: text }).toEqual({ code: 0, log: expect.any(String) });
    const stopping = log.lines.findIndex((line) => line.includes(STOPPING_LINE));
    const stopped = log.lines.findIndex((line) => STOPPED_LINE.test(line));
    expect(stopping).toBeGreaterThanOrEqual(0);
    expect(stopped).toBeGreaterThan(stopping);
    expect(text).not.toContain(GAVE_UP_LINE);
    // Nothing is retried once the queue is shut down.
    expect(log.lines.slice(stopped + 1).filter((line) => line.includes(`${namespace}/${name} failed`))).toEqual([]);
  });
});
