// The built sample operator as a child process with OpenTelemetry configured
// through the standard OTEL_* environment (sdk-node, console exporter): its
// failing reconciles run in spans, and the ReconcileFailed Event they raise
// names one of those spans' traces, which the operator exported.
import { setTimeout as sleep } from 'node:timers/promises';
import { EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { exitOf, ProcessLog } from './support/child-process.js';
import { createFailingConfigMirror, operatorProcessSuite } from './support/operator-fixtures.js';

const READY_LINE = 'ConfigMirror controller ready';
const TRACEPARENT = 'tracing.k8s.io/traceparent';

describe('sample operator process with OpenTelemetry configured', () => {
  const name = 'failing';
  const suite = operatorProcessSuite('mirror-tracing', name);

  test('runs each reconcile in a span, and the ReconcileFailed Event names the trace of one it exported', async () => {
    const { namespace } = suite;
    const events = suite.cp.kubeConfig().makeApiClient(EventsV1Api);
    const child = suite.start({
      POD_NAME: 'e2e-tracing',
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'sample-operator',
    });
    const log = new ProcessLog(child);
    await log.waitFor(READY_LINE);

    await createFailingConfigMirror(suite.customObjects, namespace, name);
    let failure: EventsV1Event | undefined;
    for (const deadline = Date.now() + 30_000; !failure && Date.now() < deadline;) {
      const { items } = await events.listNamespacedEvent({ namespace, fieldSelector: 'reason=ReconcileFailed' });
      failure = items.find((event) => event.metadata?.annotations?.[TRACEPARENT]);
      await sleep(100);
    }
    expect(failure?.metadata?.annotations?.[TRACEPARENT]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = failure!.metadata!.annotations![TRACEPARENT].split('-');

    // The console exporter prints each span as an object literal: the span the Event names is a reconcile.
    await log.waitFor(`id: '${spanId}'`);
    const spanLine = log.index(`id: '${spanId}'`);
    const printed = log.lines.slice(Math.max(0, spanLine - 15), spanLine + 15).join('\n');
    expect(printed).toContain(`traceId: '${traceId}'`);
    expect(printed).toContain(`name: 'ConfigMirrorReconciler.reconcile'`);

    expect(child.kill('SIGTERM')).toBe(true);
    expect(await exitOf(child, 20_000)).toBe(0);
  });
});
