// What a real kube-apiserver makes of the headers of the recorder's requests, on an extra API server (same etcd, its
// own prefix) with an audit log and tracing to an OTLP receiver of the test's own: the audit events name the
// recorder's User-Agent, and the API server's span of an Event write is a child of the write's span (for an identity
// in system:masters) or a new trace linked to it (for a ServiceAccount, which the API server treats as public).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { KubeEvent } from 'nestjs-kube-events';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { CONTROLLER, Scratch, retrying } from './support/library-fixtures.js';
import { publisherRbac } from './support/publisher-rbac.js';
import { startOtlpTraceReceiver, type OtlpTraceReceiver, type ReceivedSpan } from './support/otlp-trace-receiver.js';
import { inMemoryTracing, traceGloballyWith } from '../support/in-memory-tracing.js';
import { eventually } from '../support/eventually.js';
import { makeTempDir } from '../../tools/control-plane/processes.js';

const { version } = JSON.parse(
  readFileSync(new URL('../../libs/kube-events/package.json', import.meta.url), 'utf8'),
) as { version: string };
const USER_AGENT = `nestjs-kube-events/${version} (${CONTROLLER})`;

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

/** Every request at Metadata level: the audit event names the user, the verb, the object and the User-Agent. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

/** What a test reads of an audit event. */
interface AuditEvent {
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly apiGroup?: string; readonly namespace?: string };
}

/** The span kube-apiserver names for a create of an events.k8s.io Event. */
const CREATE_EVENT_SPAN = 'POST /apis/events.k8s.io/v1/namespaces/{:namespace}/events';

const tracing = inMemoryTracing();
const { spans, provider } = tracing;
const tracer = provider.getTracer('operator');

describe('the headers of the recorder’s requests, as kube-apiserver reads them', () => {
  let extra: ControlPlane;
  let receiver: OtlpTraceReceiver;
  let auditLog: string;
  let scratch: Scratch;

  const auditEvents = async (): Promise<AuditEvent[]> =>
    (await readFile(auditLog, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditEvent);
  const eventWritesIn = (events: AuditEvent[], namespace: string) =>
    events.filter(
      ({ objectRef }) =>
        objectRef?.resource === 'events' && objectRef.apiGroup === 'events.k8s.io' && objectRef.namespace === namespace,
    );
  /** The latest write span of the recorder, and the API server's spans of the create it sent. */
  const writeSpan = () =>
    spans
      .getFinishedSpans()
      .filter((span) => span.instrumentationScope.name === 'nestjs-kube-events')
      .at(-1)!;
  const serverSpansOfTrace = (traceId: string, linked = false): ReceivedSpan[] =>
    receiver.spans.filter(
      (span) =>
        span.name === CREATE_EVENT_SPAN &&
        (linked ? span.links.some((link) => link.traceId === traceId) : span.traceId === traceId),
    );

  traceGloballyWith(tracing);
  beforeAll(async () => {
    receiver = await startOtlpTraceReceiver();
    const dir = await makeTempDir('kube-events-headers-');
    auditLog = join(dir, 'audit.log');
    await writeFile(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
    // Every request sampled, so that a ServiceAccount's (a new trace, linked) is exported as well.
    await writeFile(
      join(dir, 'tracing.yaml'),
      `apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: 1000000\n`,
    );
    extra = await sharedControlPlane().startExtraApiServer({
      apiServerArgs: [
        `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
        `--audit-log-path=${auditLog}`,
        `--tracing-config-file=${join(dir, 'tracing.yaml')}`,
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await extra?.stop();
    await receiver?.close();
  });
  beforeEach(async () => {
    scratch = await Scratch.create(extra.kubeConfig(), 'headers-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
  });

  it('names the package, its version and the reporting controller in the audit log of each Event write, apart from the controller’s own requests', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    await recorder.publish(cm, failed);
    await recorder.publish(cm, failed);

    const writes = await eventually('the audit events of both writes', async () => {
      const found = eventWritesIn(await auditEvents(), scratch.namespace);
      return found.length >= 2 && found;
    });
    expect(writes.map(({ verb, userAgent }) => [verb, userAgent])).toEqual([
      ['create', USER_AGENT],
      ['patch', USER_AGENT],
    ]);
    // The ConfigMap the test created as the same user went with client-node's own.
    const configMaps = (await auditEvents()).filter(
      ({ verb, objectRef }) =>
        verb === 'create' && objectRef?.resource === 'configmaps' && objectRef.namespace === scratch.namespace,
    );
    expect(configMaps).toHaveLength(1);
    expect(configMaps[0].userAgent).not.toContain('nestjs-kube-events');
  });

  it('puts the API server’s span of an Event write inside the reconcile’s trace: a child of the write’s span for system:masters', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    await tracer.startActiveSpan('reconcile', async (span) => {
      await recorder.publish(cm, failed);
      span.end();
    });

    const write = writeSpan().spanContext();
    const [server] = await eventually(
      'the API server’s span of the create, exported',
      () => serverSpansOfTrace(write.traceId).length > 0 && serverSpansOfTrace(write.traceId),
      { timeoutMs: 30_000 },
    );
    expect(server).toMatchObject({ traceId: write.traceId, parentSpanId: write.spanId });
  });

  it('links a ServiceAccount’s write, which the API server traces as a new trace, to the write’s span', async () => {
    const sa = await serviceAccountKubeConfig(extra.kubeConfig(), { namespace: scratch.namespace, name: 'operator' });
    const applied = await extra.kubectl(['apply', '-n', scratch.namespace, '-f', '-'], {
      input: publisherRbac(scratch.namespace, 'operator'),
    });
    expect(applied.code).toBe(0);
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig });
    // The authorizer learns of the new binding through an informer: the write is retried until it is in effect.
    await retrying(
      () => tracer.startActiveSpan('reconcile', (span) => recorder.publish(cm, failed).finally(() => span.end())),
      () => true,
    );

    const write = writeSpan().spanContext();
    const [server] = await eventually(
      'the API server’s span of the create, exported',
      () => serverSpansOfTrace(write.traceId, true).length > 0 && serverSpansOfTrace(write.traceId, true),
      { timeoutMs: 30_000 },
    );
    expect(server.traceId).not.toBe(write.traceId);
    expect(server.parentSpanId).toBe('');
    expect(server.links).toEqual([{ traceId: write.traceId, spanId: write.spanId }]);
  });
});
