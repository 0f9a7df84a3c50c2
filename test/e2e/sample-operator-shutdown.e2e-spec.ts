// The built sample operator (apps/sample-operator/dist/main.js, as `npm start`
// runs it) as a child process against the shared control plane: once it logs
// that it is ready and is busy retrying a failing ConfigMirror, SIGTERM makes
// it stop its watches, drain the reconciles in flight and exit 0 within its
// shutdown timeout. This is the path a Deployment's pod takes on every
// rollout; the in-process e2e (sample-operator.e2e-spec.ts) never goes
// through main.ts and its signal handling.
import { exitOf, ProcessLog } from './support/child-process.js';
import { createFailingConfigMirror, operatorProcessSuite } from './support/operator-fixtures.js';

/** The operator's SHUTDOWN_TIMEOUT_MS. */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Room beyond the drain for closing the Nest application and the process exiting. */
const EXIT_MARGIN_MS = 5_000;

const READY_LINE = 'ConfigMirror controller ready';
const STOPPING_LINE = 'stopping: closing watches, draining reconciles in flight';
const STOPPED_LINE = /stopped \(\d+ reconcile\(s\) were in flight\)/;
const GAVE_UP_LINE = 'gave up waiting for';

describe('sample operator process: SIGTERM while reconciles are failing', () => {
  const name = 'failing';
  const suite = operatorProcessSuite('mirror-shutdown', name);

  test('stops the watches, drains the reconciles in flight and exits 0 within the shutdown timeout', async () => {
    const { namespace } = suite;
    const child = suite.start({
      POD_NAME: 'e2e-shutdown',
      WORKERS: '2',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    const log = new ProcessLog(child);

    await log.waitFor(READY_LINE);

    await createFailingConfigMirror(suite.customObjects, namespace, name);
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
