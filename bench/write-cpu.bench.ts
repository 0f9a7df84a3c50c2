import { fork, type ChildProcess } from 'node:child_process';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';
import { POOL_CONNECTIONS } from '../libs/kube-events/src/api/pooled-authentication.js';
import { BareClient, failed, reporter } from './bare-client.js';
import type { ServerAnswer, ServerQuestion } from './fake-api-server-process.js';
import { median, printTable, ratio, settledHeap } from './measure.js';
import { DiscardingExporter } from './tracing.bench.js';

/**
 * CPU per write of `EventRecorder.publish()` beside a bare undici client
 * sending the same requests over as many keep-alive connections: (a)
 * creates of distinct Events, (b) series patches of Events that exist.
 * The fake API server runs in a child process, so that only the client's
 * CPU is counted: `process.cpuUsage()` of this process (every thread:
 * garbage collection included). Rounds alternate which side goes first;
 * a warm-up round of each is left out. Every round checks on the server
 * that each write landed.
 *
 * For a profile, `WRITE_CPU_ONLY=library` (or `bare`) runs one side only,
 * and `WRITE_CPU_WRITES=creates` (or `patches`) one kind of write:
 * `node --cpu-prof --import @swc-node/register/esm-register bench/run.ts writes`.
 * `WRITE_CPU_TRACED=1` registers a tracing SDK (every span recorded, then
 * discarded) first, so that each of the recorder's writes runs in a span
 * and sends its context as `traceparent`.
 */

const WRITES = 2_000;
const CONCURRENCY = 50;
const ROUNDS = 7;
const BARE = 'bare';
const LIBRARY = 'library';

const only = process.env.WRITE_CPU_ONLY;
if (only !== undefined && only !== BARE && only !== LIBRARY)
  throw new Error(`WRITE_CPU_ONLY must be ${BARE} or ${LIBRARY}, got ${only}`);
const traced = process.env.WRITE_CPU_TRACED === '1';
const onlyWrites = process.env.WRITE_CPU_WRITES;
if (onlyWrites !== undefined && onlyWrites !== 'creates' && onlyWrites !== 'patches')
  throw new Error(`WRITE_CPU_WRITES must be creates or patches, got ${onlyWrites}`);

/** The fake API server in its child process, and the questions asked of it. */
export class ServerProcess {
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: ServerAnswer) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.on('message', (answer: ServerAnswer) => {
      this.waiting.get(answer.id)?.(answer);
      this.waiting.delete(answer.id);
    });
  }

  static start(): Promise<ServerProcess> {
    const child = fork(new URL('./fake-api-server-process.ts', import.meta.url), {
      execArgv: ['--import', '@swc-node/register/esm-register'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the fake API server's process exited with ${code}`)));
      child.once('message', ({ url }: { url: string }) => resolve(new ServerProcess(child, url)));
    });
  }

  ask(ask: ServerQuestion['ask'], namespace?: string): Promise<ServerAnswer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ id, ask, namespace } satisfies ServerQuestion);
    });
  }

  close(): void {
    this.child.removeAllListeners('exit');
    this.child.disconnect();
  }
}

/** Runs `work(0)` … `work(count - 1)`, `concurrency` at a time, each worker awaiting its own. */
async function concurrently(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** CPU of this process, every thread, in µs per write. */
async function cpuMicrosPerWrite(run: () => Promise<void>): Promise<number> {
  settledHeap();
  const before = process.cpuUsage();
  await run();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / WRITES;
}

const objectsOf = (namespace: string, prefix: string): KubernetesObject[] =>
  Array.from({ length: WRITES }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${prefix}-${i}`, namespace, uid: `uid-${namespace}-${prefix}-${i}`, resourceVersion: '1' },
  }));

interface Side {
  readonly name: string;
  readonly namespace: string;
  /** One measured round; returns µs of CPU per write. */
  round(round: number): Promise<number>;
}

/** The sides to measure in round `round`, the first one alternating. */
const inTurn = (sides: Side[], round: number) => (round % 2 ? [...sides].reverse() : sides);

/** Runs a warm-up round and {@link ROUNDS} measured ones of each side, interleaved; medians per side. */
async function measure(sides: Side[]): Promise<Map<string, number>> {
  const measured = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  for (let round = -1; round < ROUNDS; round++) {
    for (const side of inTurn(sides, round)) {
      const micros = await side.round(round);
      if (round >= 0) measured.get(side.name)!.push(micros);
    }
  }
  return new Map([...measured].map(([name, values]) => [name, median(values)]));
}

function expectTally(what: string, answer: ServerAnswer, events: number, occurrences: number): void {
  if (answer.events !== events || answer.occurrences !== occurrences)
    throw new Error(
      `${what}: the server holds ${answer.events} Events counting ${answer.occurrences} occurrences, not ${events} counting ${occurrences}`,
    );
}

function newRecorder(kubeConfig: KubeConfig): EventRecorder {
  // Budgets that never fold or delay a write: each publish is its own request, as by hand.
  return new EventRecorder({
    reporter,
    kubeConfig,
    writeControl: { objectBurst: 1e9, qps: 1e9, burst: 1e9 },
  });
}

/** (a) creates: in each round, a new Event for each of {@link WRITES} objects not seen before. */
async function creates(server: ServerProcess, kubeConfig: KubeConfig): Promise<Map<string, number>> {
  const bare = new BareClient({ origin: server.url, token: 'fake-token', connections: POOL_CONNECTIONS });
  const recorder = newRecorder(kubeConfig);
  const createdBy = (name: string, namespace: string, create: (object: KubernetesObject) => Promise<void>) => ({
    name,
    namespace,
    async round(round: number) {
      const objects = objectsOf(namespace, `create-${round}`);
      await server.ask('reset');
      const micros = await cpuMicrosPerWrite(() => concurrently(WRITES, (i) => create(objects[i])));
      expectTally(`${name} creates`, await server.ask('tally', namespace), WRITES, WRITES);
      // Its series are not needed again: the recorder tracks as many series in every round.
      if (name === LIBRARY) for (const object of objects) recorder.forget(object);
      return micros;
    },
  });
  try {
    return await measure(
      [
        createdBy(BARE, BARE, (object) => bare.create(object)),
        createdBy(LIBRARY, LIBRARY, (object) => recorder.publish(object, failed)),
      ].filter((side) => only === undefined || side.name === only),
    );
  } finally {
    await Promise.all([bare.close(), recorder.onApplicationShutdown()]);
  }
}

/** (b) series patches: in each round, one more occurrence of each of {@link WRITES} Events that exist. */
async function patches(server: ServerProcess, kubeConfig: KubeConfig): Promise<Map<string, number>> {
  const bare = new BareClient({ origin: server.url, token: 'fake-token', connections: POOL_CONNECTIONS });
  const recorder = newRecorder(kubeConfig);
  await server.ask('reset');
  const patchedBy = (name: string, namespace: string, write: (object: KubernetesObject) => Promise<void>) => {
    const objects = objectsOf(namespace, 'patch');
    let occurrences = WRITES;
    return {
      name,
      namespace,
      objects,
      write,
      async round() {
        const micros = await cpuMicrosPerWrite(() => concurrently(WRITES, (i) => write(objects[i])));
        occurrences += WRITES;
        expectTally(`${name} patches`, await server.ask('tally', namespace), WRITES, occurrences);
        return micros;
      },
    };
  };
  const sides = [
    patchedBy(BARE, BARE, (object) => bare.patch(object)),
    patchedBy(LIBRARY, LIBRARY, (object) => recorder.publish(object, failed)),
  ].filter((side) => only === undefined || side.name === only);
  try {
    // The Events the rounds patch, created first.
    for (const side of sides) {
      const create = side.name === BARE ? (object: KubernetesObject) => bare.create(object) : side.write;
      await concurrently(WRITES, (i) => create(side.objects[i]));
      expectTally(`${side.name} creates before patches`, await server.ask('tally', side.namespace), WRITES, WRITES);
    }
    return await measure(sides);
  } finally {
    await Promise.all([bare.close(), recorder.onApplicationShutdown()]);
  }
}

export async function writeCpu(): Promise<void> {
  const server = await ServerProcess.start();
  const tracing = traced ? traceEveryWrite() : undefined;
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(
      { name: 'fake-api-server', server: server.url, skipTLSVerify: true },
      { name: 'fake-user', token: 'fake-token' },
    );
    const rows: (string | number)[][] = [];
    for (const [writes, run] of [
      ['creates', creates],
      ['patches', patches],
    ] as const) {
      if (onlyWrites !== undefined && onlyWrites !== writes) continue;
      const medians = await run(server, kubeConfig);
      const bare = medians.get(BARE);
      const library = medians.get(LIBRARY);
      rows.push([
        writes === 'patches' ? 'series patches' : writes,
        bare?.toFixed(0) ?? '-',
        library?.toFixed(0) ?? '-',
        bare && library ? ratio(library, bare) : '-',
      ]);
    }
    printTable(
      `CPU per write, EventRecorder.publish() vs a bare undici Pool (${POOL_CONNECTIONS} keep-alive connections) sending the same requests; ` +
        `${WRITES} writes, ${CONCURRENCY} at a time; fake API server in a child process; median of ${ROUNDS} interleaved rounds` +
        (traced ? '; each write of the recorder in a recorded span' : ''),
      ['writes', 'bare undici µs CPU/write', 'EventRecorder µs CPU/write', 'ratio'],
      rows,
    );
  } finally {
    server.close();
    await tracing?.();
  }
}

/** Registers a tracing SDK that records every span and keeps none; returns how to undo it. */
function traceEveryWrite(): () => Promise<void> {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new DiscardingExporter() })],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return async () => {
    trace.disable();
    context.disable();
    await provider.shutdown();
  };
}
