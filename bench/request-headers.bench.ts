import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { KubernetesObject } from '@kubernetes/client-node';
import { w3cTraceparent, w3cTracestate } from '../libs/kube-events/src/tracing/w3c-trace-context.js';
import { POOL_CONNECTIONS } from '../libs/kube-events/src/api/pooled-authentication.js';
import { eventsUserAgent } from '../libs/kube-events/src/api/user-agent.js';
import { BareClient } from './bare-client.js';
import { median, printTable, ratio } from './measure.js';
import { DiscardingExporter } from './tracing.bench.js';
import { ServerProcess } from './write-cpu.bench.js';

/**
 * What a write's request headers cost beside the rest of it: (a) building
 * the `traceparent` and `tracestate` of a recorded span, as a write does
 * (the span recorded, its ids and trace state in W3C form), in CPU per
 * write; (b) a bare undici client sending a create with the library's
 * User-Agent and a `traceparent` and `tracestate`, beside the same client
 * sending the User-Agent alone (as every request of the library does, and
 * did before, under another name of about the same length), against the
 * fake API server in a child process: CPU of this process per write,
 * medians of {@link ROUNDS} interleaved rounds.
 */

const WRITES = 2_000;
const CONCURRENCY = 50;
const ROUNDS = 40;
const SPANS = 200_000;

/** µs of CPU per span to build its headers as `RecorderTracing` does, median of 7 rounds. */
function headerBuildMicros(): number {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new DiscardingExporter() })],
  });
  const tracer = provider.getTracer('bench');
  const spans = Array.from({ length: SPANS }, () => tracer.startSpan('write', {}, ROOT_CONTEXT));
  const rounds: number[] = [];
  let sent = 0;
  for (let round = 0; round < 7; round++) {
    const before = process.cpuUsage();
    for (const span of spans) {
      if (!span.isRecording()) continue;
      const spanContext = span.spanContext();
      const traceparent = w3cTraceparent(spanContext);
      if (!traceparent) continue;
      const tracestate = w3cTracestate(spanContext.traceState?.serialize());
      const headers: Record<string, string> = { traceparent };
      if (tracestate) headers.tracestate = tracestate;
      sent += Object.keys(headers).length;
    }
    const { user, system } = process.cpuUsage(before);
    rounds.push((user + system) / SPANS);
  }
  if (sent === 0) throw new Error('no span gave headers');
  return median(rounds);
}

const objectsOf = (prefix: string): KubernetesObject[] =>
  Array.from({ length: WRITES }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${prefix}-${i}`, namespace: 'headers', uid: `uid-${prefix}-${i}`, resourceVersion: '1' },
  }));

/** µs of CPU per create, {@link CONCURRENCY} at a time. */
async function createMicros(client: BareClient, objects: KubernetesObject[]): Promise<number> {
  let next = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < objects.length) await client.create(objects[next++]);
    }),
  );
  const { user, system } = process.cpuUsage(before);
  return (user + system) / objects.length;
}

export async function requestHeadersCost(): Promise<void> {
  const build = headerBuildMicros();
  const server = await ServerProcess.start();
  const origin = new URL(server.url).origin;
  const userAgent = { 'user-agent': eventsUserAgent('bench.example.com/widget-controller') };
  const plain = new BareClient({ origin, token: 'fake-token', connections: POOL_CONNECTIONS, headers: userAgent });
  const headed = new BareClient({
    origin,
    token: 'fake-token',
    connections: POOL_CONNECTIONS,
    headers: {
      ...userAgent,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=opaque',
    },
  });
  const measured: Record<'plain' | 'headed', number[]> = { plain: [], headed: [] };
  try {
    for (let round = -1; round < ROUNDS; round++) {
      const sides = [['plain', plain] as const, ['headed', headed] as const];
      for (const [name, client] of round % 2 ? sides.reverse() : sides) {
        const micros = await createMicros(client, objectsOf(`${name}-${round + 1}`));
        if (round >= 0) measured[name].push(micros);
      }
      await server.ask('reset');
    }
  } finally {
    await Promise.all([plain.close(), headed.close()]);
    server.close();
  }
  const [without, withHeaders] = [median(measured.plain), median(measured.headed)];
  printTable(
    `CPU per write of a write's request headers: building a recorded span's traceparent (median of 7 rounds of ${SPANS} spans); ` +
      `a bare undici client sending User-Agent, traceparent and tracestate beside one sending the User-Agent alone (${WRITES} creates, ` +
      `${CONCURRENCY} at a time, fake API server in a child process, median of ${ROUNDS} interleaved rounds)`,
    ['what', 'µs CPU/write', 'ratio'],
    [
      ['building traceparent and tracestate', build.toFixed(2), '-'],
      ['a create with the User-Agent', without.toFixed(1), '1.00×'],
      ['a create with it, traceparent and tracestate', withHeaders.toFixed(1), ratio(withHeaders, without)],
    ],
  );
}
