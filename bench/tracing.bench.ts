import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  EventRecorder,
  type EventsWriter,
  type KubeEvent,
  type KubeEventsModuleOptions,
  type SeriesPatch,
  type StoredEventState,
} from 'nestjs-kube-events';
import { cpuMicrosPerOp, median, printTable, ratio } from './measure.js';

const reporter = { controller: 'bench.example.com/widget-controller', instance: 'bench-0' };
const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
};
const OBJECTS = 250;
const REPEATS = 4; // one create and three patches per object: every publish is one write
const ROUNDS = 15;

const objectAt = (round: number, i: number): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${round}-${i}`, namespace: 'default', uid: `uid-${round}-${i}`, resourceVersion: '1' },
});

/** Answers at once, and serialises each body as the HTTP writer would, counting its bytes. */
class SerialisingWriter implements EventsWriter {
  bytes = 0;
  writes = 0;

  async create(namespace: string, body: { metadata?: { name?: string } }): Promise<StoredEventState> {
    this.count(body);
    return { name: body.metadata?.name ?? 'event', namespace, resourceVersion: String(this.writes), count: 1 };
  }

  async read(namespace: string, name: string): Promise<StoredEventState> {
    return { name, namespace, count: 1 };
  }

  async patchSeries(namespace: string, name: string, patch: SeriesPatch): Promise<StoredEventState> {
    const { resourceVersion, annotations, ...series } = patch;
    this.count({ metadata: { resourceVersion, annotations }, series });
    return { name, namespace, resourceVersion: String(this.writes), count: patch.count };
  }

  private count(body: unknown): void {
    this.writes++;
    this.bytes += JSON.stringify(body).length;
  }
}

/** Takes every span and keeps none: what recording costs the process, without an exporter's own work. */
export class DiscardingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

interface Mode {
  label: string;
  options: Partial<KubeEventsModuleOptions>;
  /** Registers what the mode needs and returns how to run the publishes (inside a span or not) and undo it. */
  setUp(): { run: (work: () => Promise<void>) => Promise<void>; tearDown: () => void };
}

const MODES: Mode[] = [
  {
    // With traceContext and writeSpans off, the recorder holds no tracing at all: the same code path as
    // without @opentelemetry/api installed (the test of that is test/library/opentelemetry-absent.spec.ts).
    label: 'OpenTelemetry absent (baseline)',
    options: { traceContext: false, writeSpans: false },
    setUp: () => ({ run: (work) => work(), tearDown: () => undefined }),
  },
  {
    label: 'installed, no SDK registered',
    options: {},
    setUp: () => ({ run: (work) => work(), tearDown: () => undefined }),
  },
  {
    label: 'recording: SDK, active span, annotations and write spans',
    options: {},
    setUp: () => {
      const provider = new TracerProvider({
        spanProcessors: [new SimpleSpanProcessor({ exporter: new DiscardingExporter() })],
      });
      trace.setGlobalTracerProvider(provider);
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      const reconcile = provider.getTracer('bench').startSpan('reconcile');
      return {
        // One span around all publishes: its own cost is the application's, not the recorder's.
        run: (work) => context.with(trace.setSpan(context.active(), reconcile), work),
        tearDown: () => {
          reconcile.end();
          trace.disable();
          context.disable();
        },
      };
    },
  },
];

async function publishes(recorder: EventRecorder, round: number): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    const object = objectAt(round, i);
    for (let n = 0; n < REPEATS; n++) await recorder.publish(object, failed);
  }
}

/** One round of one mode: CPU µs per publish, and bytes per write. */
async function measure(mode: Mode, round: number): Promise<{ micros: number; bytes: number }> {
  const { run, tearDown } = mode.setUp();
  const writer = new SerialisingWriter();
  // Budgets that never fold a write, so that every publish is one write (and one span).
  const recorder = new EventRecorder(
    { reporter, writeControl: { objectBurst: 1e9, qps: 1e9, burst: 1e9 }, ...mode.options },
    writer,
  );
  try {
    const publishCount = OBJECTS * REPEATS;
    const micros = await cpuMicrosPerOp(publishCount, () => run(() => publishes(recorder, round)));
    if (writer.writes !== publishCount) throw new Error(`${writer.writes} writes for ${publishCount} publishes`);
    return { micros, bytes: writer.bytes / writer.writes };
  } finally {
    await recorder.onApplicationShutdown();
    tearDown();
  }
}

/** What trace context on Events and write spans cost per publish, against a recorder without OpenTelemetry. */
export async function tracingCost(): Promise<void> {
  for (const mode of MODES) await measure(mode, -1); // warm up every path
  const results = MODES.map(() => ({ micros: [] as number[], bytes: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, mode] of MODES.entries()) {
      const { micros, bytes } = await measure(mode, round);
      results[index].micros.push(micros);
      results[index].bytes = bytes;
    }
  }
  const baseline = median(results[0].micros);
  const baselineBytes = results[0].bytes;
  printTable(
    `Trace context and write spans per publish (in-memory writer that serialises each body; ${OBJECTS} objects × ${REPEATS} publishes, every one a write; CPU time, median of ${ROUNDS} interleaved rounds)`,
    ['OpenTelemetry', 'CPU µs per publish', 'ratio', 'bytes per write', 'ratio'],
    MODES.map((mode, index) => {
      const micros = median(results[index].micros);
      const bytes = results[index].bytes;
      return [mode.label, micros.toFixed(1), ratio(micros, baseline), bytes.toFixed(0), ratio(bytes, baselineBytes)];
    }),
  );
}
