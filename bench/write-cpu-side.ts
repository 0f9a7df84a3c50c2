/**
 * One side of `npm run bench -- writes --server real`, in a process of its
 * own, so that nothing another side did (its heap, its JIT, its
 * connections) is counted: forked with a {@link SideTask} as its one
 * argument, it makes {@link SideTask.warmUp} writes, then
 * {@link SideTask.writes} measured ones, and sends a {@link SideResult}.
 * By default ({@link SideMethod}) the library is loaded as a user installs
 * it, the built package alone: nothing here imports `src/`. With
 * `WRITE_CPU_PROFILE=<dir>`, it writes a CPU profile of the measured
 * writes alone there (`<side>.<writes>x<concurrency>.cpuprofile`), for
 * Chrome DevTools or `speedscope`.
 */
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { NestFactory } from '@nestjs/core';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, type KubeEvent } from 'nestjs-kube-events';
import { EventsApi } from '../libs/kube-events/dist/api/events-api.js';
import { POOL_CONNECTIONS } from '../libs/kube-events/dist/api/pooled-authentication.js';
import { BareClient, failed, failedAbout, reporter } from './bare-client.js';
import { settledHeap } from './measure.js';
import { newObjectEvent } from './new-object-event.js';

/**
 * Who writes: a bare undici Pool (`bare h2`: at undici's defaults, which
 * offer HTTP/2; `bare h1`: HTTP/1.1 over as many connections as the
 * recorder's pool), the recorder, or the recorder's Events API called by
 * hand (`events-api`: its HTTP layer without the recorder, one create per
 * write). The recorder and its Events API speak HTTP/1.1.
 */
export type SideName = 'bare h1' | 'bare h2' | 'events-api h1' | 'library h1';

/**
 * How the sides are built and measured. The defaults are the bench's
 * method; each other value puts back one thing of the method before it
 * (`WRITE_CPU_SIDE_BUILD=source`, `WRITE_CPU_SETTLE=1`,
 * `WRITE_CPU_NOTE=fixed`), so that what each one does to the figures can
 * be shown as rows of their own.
 */
export interface SideMethod {
  /**
   * `module`: the recorder a user gets, from `KubeEventsModule.forRoot` in
   * a Nest application context (its permission watch, metrics and sinks
   * included), and the Events API, both from the built package. `source`:
   * a recorder built by hand with `new EventRecorder()` over an Events API
   * compiled from `src/` as the process loads it (two copies of the
   * library's lower floors in one process).
   */
  readonly build: 'module' | 'source';
  /** Two full collections right before the measured writes, so that little garbage is left to collect in them. */
  readonly settle: boolean;
  /** `object`: every note names its object, as an operator's do; `fixed`: the same note on every write. */
  readonly note: 'object' | 'fixed';
}

/** What one process measures. */
export interface SideTask {
  readonly side: SideName;
  readonly kubeconfigPath: string;
  /** An existing namespace, this side's alone. */
  readonly namespace: string;
  /** Writes before the measured ones, left out. */
  readonly warmUp: number;
  /** Measured writes: creates of Events about objects not seen before. */
  readonly writes: number;
  /** Writes awaited at once: 1 sends them one at a time. */
  readonly concurrency: number;
  readonly method: SideMethod;
  /**
   * Instead of `side` alone: these sides in this one process, each with its
   * own pool, taking turns at blocks of `writes` for `rounds` rounds (which
   * goes first rotates), so that what the server's state does to one block
   * it does to its neighbours too. `side` is then ignored.
   */
  readonly rotation?: { readonly sides: readonly SideName[]; readonly rounds: number };
}

/**
 * What it measured: CPU of the whole process (every thread) per measured
 * write, in user mode and in the kernel, and the protocols its connections
 * spoke.
 */
export interface SideResult {
  /** µs in user mode (JavaScript, TLS, parsing) and in the kernel (system calls, the loopback's TCP). */
  readonly userMicros: number;
  readonly systemMicros: number;
  /** ALPN protocols of the TLS connections made, `http/1.1` when none was negotiated. */
  readonly protocols: string[];
  /** Connections made, warm-up included. */
  readonly connections: number;
  /** HTTP requests sent during the measured writes: one per write, unless a write was retried or read back. */
  readonly requests: number;
}

/** What a rotation measured: each side's µs of CPU (user and system) per write, block by block, in round order. */
export interface RotationResult {
  readonly blocks: Readonly<Record<string, number[]>>;
  /** ALPN protocols of the TLS connections made, every side's. */
  readonly protocols: string[];
}

const task = JSON.parse(process.argv[2]) as SideTask;
const { method } = task;
const protocols = new Set<string>();
let connections = 0;
subscribe('undici:client:connected', (message) => {
  const { socket } = message as { socket: TLSSocket };
  protocols.add(socket.alpnProtocol || 'http/1.1');
  connections++;
});
let requests = 0;
subscribe('undici:request:create', () => requests++);

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(task.kubeconfigPath);
/** The Event each write reports about `object`. */
const eventAbout = (object: KubernetesObject): KubeEvent => (method.note === 'object' ? failedAbout(object) : failed);
/** Budgets that never fold or delay a write: each publish is its own request, as by hand. */
const writeControl = { objectBurst: 1e9, qps: 1e9, burst: 1e9 };

/** A side's writes and how to close it. */
interface SideWriter {
  readonly write: (object: KubernetesObject) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** The Events API of {@link SideMethod.build}: the built package's, or one compiled from `src/` now. */
async function eventsApiClass(): Promise<typeof EventsApi> {
  if (method.build === 'module') return EventsApi;
  const source = await import('../libs/kube-events/src/api/events-api.js');
  return source.EventsApi as unknown as typeof EventsApi;
}

/** The writer of `side`, with a pool of its own. */
async function writerFor(side: SideName): Promise<SideWriter> {
  if (side.startsWith('bare')) {
    const cluster = kubeConfig.getCurrentCluster()!;
    const token = kubeConfig.getCurrentUser()?.token;
    if (!token) throw new Error('the bare client authenticates with a bearer token: the kubeconfig has none');
    const bare = new BareClient({
      origin: new URL(cluster.server).origin,
      token,
      // `bare h2` leaves the Pool at undici's defaults; `bare h1` is the recorder's pool by hand.
      ...(side === 'bare h1' && { connections: POOL_CONNECTIONS, allowH2: false }),
      ca: cluster.caData ? Buffer.from(cluster.caData, 'base64') : cluster.caFile && readFileSync(cluster.caFile),
    });
    return { write: (object) => bare.create(object, eventAbout(object)), close: () => bare.close() };
  }
  if (side.startsWith('events-api')) {
    // What the recorder sends for a new object, without the recorder: the body it builds, a signal per request.
    const api = new (await eventsApiClass())(kubeConfig);
    return {
      write: async (object) => {
        const body = newObjectEvent(object, eventAbout(object));
        await api.create(object.metadata!.namespace!, body, new AbortController().signal);
      },
      close: () => api.close(),
    };
  }
  if (method.build === 'source') {
    const recorder = new EventRecorder(
      { reporter, kubeConfig, writeControl },
      new (await eventsApiClass())(kubeConfig),
    );
    return {
      write: (object) => recorder.publish(object, eventAbout(object)),
      close: () => recorder.onApplicationShutdown(),
    };
  }
  // As a user builds it: the module's recorder, every other option at its default.
  const app = await NestFactory.createApplicationContext(
    KubeEventsModule.forRoot({ reporter, kubeConfig, writeControl }),
    { logger: ['error', 'warn'] },
  );
  const recorder = app.get(EventRecorder);
  return { write: (object) => recorder.publish(object, eventAbout(object)), close: () => app.close() };
}

const objectsOf = (prefix: string, count: number): KubernetesObject[] =>
  Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${prefix}-${i}`, namespace: task.namespace, uid: `uid-${prefix}-${i}`, resourceVersion: '1' },
  }));

/** Writes each object with `write`, {@link SideTask.concurrency} at a time, each worker awaiting its own. */
async function writeAll(write: SideWriter['write'], objects: KubernetesObject[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length) await write(objects[next++]);
  };
  await Promise.all(Array.from({ length: task.concurrency }, worker));
}

if (task.rotation) {
  const { sides, rounds } = task.rotation;
  const writers: (readonly [SideName, SideWriter])[] = [];
  for (const side of sides) writers.push([side, await writerFor(side)]);
  for (const [side, { write }] of writers)
    await writeAll(write, objectsOf(`warm-${side.replace(' ', '-')}`, task.warmUp));
  const blocks: Record<string, number[]> = Object.fromEntries(sides.map((side) => [side, []]));
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < writers.length; turn++) {
      const [side, { write }] = writers[(turn + round) % writers.length];
      const objects = objectsOf(`r${round}-${side.replace(' ', '-')}`, task.writes);
      if (method.settle) settledHeap();
      const before = process.cpuUsage();
      await writeAll(write, objects);
      const { user, system } = process.cpuUsage(before);
      blocks[side].push((user + system) / task.writes);
    }
  }
  for (const [, { close }] of writers) await close();
  process.send!({ blocks, protocols: [...protocols] } satisfies RotationResult, () => process.exit(0));
} else {
  const { write, close } = await writerFor(task.side);
  await writeAll(write, objectsOf('warm', task.warmUp));
  const measured = objectsOf('measured', task.writes);
  const profileDir = process.env.WRITE_CPU_PROFILE;
  const profiler = profileDir ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  if (method.settle) settledHeap();
  const requestsBefore = requests;
  const before = process.cpuUsage();
  await writeAll(write, measured);
  const { user, system } = process.cpuUsage(before);
  const measuredRequests = requests - requestsBefore;
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    const name = `${task.side.replace(' ', '-')}.${task.writes}x${task.concurrency}.cpuprofile`;
    await writeFile(join(profileDir!, name), JSON.stringify(profile));
  }
  await close();
  process.send!(
    {
      userMicros: user / task.writes,
      systemMicros: system / task.writes,
      protocols: [...protocols],
      connections,
      requests: measuredRequests,
    } satisfies SideResult,
    () => process.exit(0),
  );
}
