import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, PublishError, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer } from '../test/support/fake-api-server/index.js';
import { median, printTable, ratio, settledHeap } from './measure.js';
import { PlainRecorder } from './plain-recorder.js';

/**
 * Recovery from an outage, and what an outage costs in memory.
 *
 * (a) 20 objects publish a failure every 25 ms each while the API server
 * refuses connections for a while, then listens again: the time from the
 * server answering again to the first publish that resolves, and to the
 * moment the server counts every occurrence that resolved or was reported
 * queued (the queue is empty), beside the outage's length. The baseline is
 * the plain recorder of `bench/plain-recorder.ts`, which tries every publish
 * itself and so resolves the first one as soon as it can.
 *
 * (b) Heap held through 400,000 identical publishes of one object while
 * the server refuses connections (each is rejected at once, queued), read
 * at 100,000, 200,000 and 400,000 (flat: a settled publish holds nothing), and by
 * 2,000 series whose Events carry 200 KB of annotations each once they are
 * written, against the same with no annotations.
 */

const CONTROLLER = 'bench.example.com/widget-controller';
const OBJECTS = 20;
const PUBLISH_EVERY_MS = 25;
const OUTAGES_MS = [500, 2_000, 5_000];
const ROUNDS = 3;
const failed: KubeEvent = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source missing' };

const objectAt = (prefix: string, i: number): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `${prefix}-${i}`, namespace: 'default', uid: `uid-${prefix}-${i}` },
});

interface Publisher {
  publish(resource: KubernetesObject, event: KubeEvent): Promise<void>;
}

interface Recovery {
  firstResolvedMs: number;
  drainedMs: number;
}

/** One outage of `outageMs` under a steady publish load: how long after the server is back things recover. */
async function recoveryOnce(
  server: FakeApiServer,
  publisher: Publisher,
  prefix: string,
  outageMs: number,
): Promise<Recovery> {
  server.reset();
  let counted = 0;
  let backAt = Number.POSITIVE_INFINITY;
  let firstResolvedAt = Number.POSITIVE_INFINITY;
  let stop = false;
  const loops = Array.from({ length: OBJECTS }, async (_, i) => {
    while (!stop) {
      const started = performance.now();
      await publisher.publish(objectAt(prefix, i), failed).then(
        () => {
          counted++;
          const now = performance.now();
          if (now >= backAt && firstResolvedAt === Number.POSITIVE_INFINITY) firstResolvedAt = now;
        },
        (error: unknown) => {
          if (error instanceof PublishError && error.queued) counted++;
        },
      );
      await sleep(Math.max(0, PUBLISH_EVERY_MS - (performance.now() - started)));
    }
  });
  await sleep(500);
  await server.stopListening();
  await sleep(outageMs);
  await server.listenAgain();
  backAt = performance.now();
  while (firstResolvedAt === Number.POSITIVE_INFINITY && performance.now() - backAt < 30_000) await sleep(5);
  stop = true;
  await Promise.all(loops);
  const onServer = () =>
    server
      .events()
      .filter((event) => event.regarding.name?.startsWith(`${prefix}-`))
      .reduce((sum, event) => sum + (event.series?.count ?? 1), 0);
  while (onServer() < counted && performance.now() - backAt < 60_000) await sleep(5);
  const drainedAt = performance.now();
  return { firstResolvedMs: firstResolvedAt - backAt, drainedMs: drainedAt - backAt };
}

async function recovery(): Promise<void> {
  const server = await FakeApiServer.start({ refusable: true });
  const recorder = new EventRecorder({ reporter: { controller: CONTROLLER }, kubeConfig: server.kubeConfig() });
  const plain = new PlainRecorder(server.kubeConfig(), CONTROLLER);
  const rows: (string | number)[][] = [];
  try {
    for (const outageMs of OUTAGES_MS) {
      const ours: Recovery[] = [];
      const theirs: Recovery[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(await recoveryOnce(server, recorder, `ours-${outageMs}-${round}`, outageMs));
        theirs.push(await recoveryOnce(server, plain, `plain-${outageMs}-${round}`, outageMs));
      }
      const first = median(ours.map((r) => r.firstResolvedMs));
      const firstPlain = median(theirs.map((r) => r.firstResolvedMs));
      const drained = median(ours.map((r) => r.drainedMs));
      rows.push([
        outageMs,
        first.toFixed(0),
        Math.max(...ours.map((r) => r.firstResolvedMs)).toFixed(0),
        firstPlain.toFixed(0),
        ratio(Math.max(first, 1), Math.max(firstPlain, 1)),
        drained.toFixed(0),
        Math.max(...ours.map((r) => r.drainedMs)).toFixed(0),
      ]);
    }
  } finally {
    await recorder.onApplicationShutdown();
    await server.close();
  }
  printTable(
    `Recovery after the API server refused connections (${OBJECTS} objects publishing every ${PUBLISH_EVERY_MS} ms, median and worst of ${ROUNDS}; goal: first publish within 300 ms)`,
    ['outage ms', 'first resolved ms', 'worst', 'plain recorder ms', 'vs plain', 'queue empty ms', 'worst'],
    rows,
  );
}

/**
 * Heap held (after a full collection) at each of `checkpoints` identical
 * publishes of one object while the server refuses connections, from a
 * recorder that had written one Event before.
 */
async function heapThroughOutage(checkpoints: readonly number[]): Promise<number[]> {
  const server = await FakeApiServer.start({ refusable: true });
  const recorder = new EventRecorder({ reporter: { controller: CONTROLLER }, kubeConfig: server.kubeConfig() });
  const held: number[] = [];
  try {
    await recorder.publish(objectAt('outage', 0), failed);
    await server.stopListening();
    const before = settledHeap();
    let done = 0;
    for (const checkpoint of checkpoints) {
      for (; done < checkpoint; done += 10_000) {
        for (let i = 0; i < 10_000; i++) recorder.publish(objectAt('outage', 0), failed).catch(() => undefined);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await sleep(50);
      held.push(settledHeap() - before);
    }
    return held;
  } finally {
    await server.listenAgain();
    await recorder.onApplicationShutdown();
    await server.close();
  }
}

/** Heap held by `series` written series whose Events carry `annotationBytes` of annotations each. */
async function heapOfSeries(series: number, annotationBytes: number): Promise<number> {
  const server = await FakeApiServer.start();
  const recorder = new EventRecorder({
    reporter: { controller: CONTROLLER },
    kubeConfig: server.kubeConfig(),
    writeControl: { qps: 100_000, burst: 100_000 },
  });
  try {
    const before = settledHeap();
    for (let i = 0; i < series; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, series - i) }, (_, j) => {
          const annotations = annotationBytes
            ? { 'bench.example.com/blob': `${i + j}`.padEnd(annotationBytes, 'x') }
            : undefined;
          return recorder.publish(objectAt('annotated', i + j), { ...failed, annotations });
        }),
      );
      server.reset(); // the fake's own copies are not the recorder's
    }
    const held = settledHeap() - before;
    if (recorder.trackedSeries !== series) throw new Error(`expected ${series} series, got ${recorder.trackedSeries}`);
    return held;
  } finally {
    await recorder.onApplicationShutdown();
    await server.close();
  }
}

async function memory(): Promise<void> {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const [first, second, last] = await heapThroughOutage([100_000, 200_000, 400_000]);
  const plainSeries = await heapOfSeries(2_000, 0);
  const annotatedSeries = await heapOfSeries(2_000, 200 * 1024);
  printTable(
    'Heap held through an outage and by series with large annotations (after a full collection)',
    ['case', 'baseline', 'MB', 'case', 'MB', 'ratio'],
    [
      ['outage', '100,000 publishes', mb(first), '200,000 publishes', mb(second), ratio(second, first)],
      ['outage', '100,000 publishes', mb(first), '400,000 publishes', mb(last), ratio(last, first)],
      [
        'series',
        '2,000, no annotations',
        mb(plainSeries),
        '2,000 × 200 KB annotations',
        mb(annotatedSeries),
        ratio(Math.max(annotatedSeries, 1), Math.max(plainSeries, 1)),
      ],
    ],
  );
}

/** `npm run bench -- recovery`. */
export async function recoveryBench(): Promise<void> {
  await recovery();
  await memory();
}
