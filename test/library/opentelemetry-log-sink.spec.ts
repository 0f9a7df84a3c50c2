import 'reflect-metadata';
import { context, trace, type Span } from '@opentelemetry/api';
import { logs, SeverityNumber } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Test, type TestingModule } from '@nestjs/testing';
import { EventRecorder, KubeEventsModule, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { OpenTelemetryLogSink } from '../../libs/kube-events/src/sinks/opentelemetry-log.sink.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';

const records = new InMemoryLogRecordExporter();
const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: records })] });
const tracerProvider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
});
const tracer = tracerProvider.getTracer('reconciler');

const inSpan = (work: () => Promise<unknown>): Promise<Span> =>
  tracer.startActiveSpan('reconcile', async (span) => {
    await work().catch(() => undefined);
    span.end();
    return span;
  });

describe('OpenTelemetry log records of publish outcomes', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;
  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          logRecords: true,
          ...options,
        }),
      ],
    }).compile();
    await app.init();
    return app.get(EventRecorder);
  };
  const emitted = () =>
    records.getFinishedLogRecords().filter((r) => r.instrumentationScope.name === 'nestjs-kube-events');

  beforeAll(() => {
    logs.setGlobalLoggerProvider(loggerProvider);
    trace.setGlobalTracerProvider(tracerProvider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    logs.disable();
    trace.disable();
    context.disable();
    await loggerProvider.shutdown();
  });
  beforeEach(async () => {
    records.reset();
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
  });

  it('emits one record per write with the Event’s identity, the true series count, and the trace it counts', async () => {
    const recorder = await start();
    const reconciles: Span[] = [];
    for (let i = 0; i < 3; i++) reconciles.push(await inSpan(() => recorder.publish(configMap('app'), syncFailed)));

    const [event] = server.events('default');
    const written = emitted();
    expect(written.map((record) => record.attributes['kube_events.outcome'])).toEqual([
      'created',
      'patched',
      'patched',
    ]);
    expect(written.map((record) => record.attributes['k8s.event.count'])).toEqual([1, 2, 3]);
    expect(written[2].attributes).toEqual({
      'k8s.event.reason': 'SyncFailed',
      'k8s.event.action': 'Sync',
      'k8s.event.name': event.metadata.name,
      'k8s.event.uid': event.metadata.uid,
      'k8s.event.count': 3,
      'k8s.namespace.name': 'default',
      'k8s.object.kind': 'ConfigMap',
      'k8s.object.name': 'app',
      'k8s.object.uid': 'uid-app',
      'kube_events.outcome': 'patched',
    });
    expect(written[2]).toMatchObject({
      severityNumber: SeverityNumber.WARN,
      severityText: 'Warning',
      body: 'source is missing',
    });
    expect(written.map((record) => record.spanContext?.spanId)).toEqual(
      reconciles.map((span) => span.spanContext().spanId),
    );
  });

  it('emits a refused write as a record with the occurrences it carried and the error', async () => {
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');
    const recorder = await start();
    await recorder.publish(configMap('app'), { ...syncFailed, type: 'Normal' }).catch(() => undefined);

    const [failed] = emitted();
    expect(failed.severityNumber).toBe(SeverityNumber.INFO);
    expect(failed.attributes).toMatchObject({
      'kube_events.outcome': 'failed',
      'kube_events.occurrences': 1,
      'error.type': '403',
      'exception.message': expect.stringContaining('forbidden'),
    });
    expect(failed.attributes).not.toHaveProperty('k8s.event.count');
    expect(failed.spanContext).toBeUndefined();
  });

  it('emits nothing unless logRecords is on', async () => {
    const recorder = await start({ logRecords: false });
    await recorder.publish(configMap('app'), syncFailed);

    expect(emitted()).toEqual([]);
  });

  it('fails start-up naming logRecords when @opentelemetry/api-logs is not installed', () => {
    const notInstalled = (name: string) => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => OpenTelemetryLogSink.create(notInstalled)).toThrow(
      /invalid option logRecords: .*@opentelemetry\/api-logs, which is not installed/,
    );
  });
});
