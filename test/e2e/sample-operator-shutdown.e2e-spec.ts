// The built sample operator (apps/sample-operator/dist/main.js, as `npm start`
// runs it) as a child process against the shared control plane: once it logs
// that it is ready and is busy retrying a failing ConfigMirror, SIGTERM makes
// it stop its watches, drain the reconciles in flight and exit 0 within its
// shutdown timeout. This is the path a Deployment's pod takes on every
// rollout; the in-process e2e (sample-operator.e2e-spec.ts) never goes
// through main.ts and its signal handling.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { exitOf, ProcessLog } from './support/child-process.js';
import {
  createFailingConfigMirror,
  deleteConfigMirror,
  ensureOperatorBuilt,
  installConfigMirrorCrd,
  removeConfigMirrorCrd,
  spawnOperator,
} from './support/operator-fixtures.js';

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
    if (child?.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child, 10_000);
    }
    if (customObjects) await deleteConfigMirror(customObjects, namespace, name);
    await core?.deleteNamespace({ name: namespace }).catch(() => {});
    await removeConfigMirrorCrd(cp, installedCrd);
  });

  test('stops the watches, drains the reconciles in flight and exits 0 within the shutdown timeout', async () => {
    child = spawnOperator(cp, {
      POD_NAME: 'e2e-shutdown',
      WORKERS: '2',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    log = new ProcessLog(child);

    await log.waitFor(READY_LINE);

    await createFailingConfigMirror(customObjects, namespace, name);
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
