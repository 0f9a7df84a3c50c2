/**
 * `npm run bench -- allocations`: bytes allocated per write of an Event
 * about a new object, by the recorder and, as the baseline, by the same
 * writes made by hand (the name and body the recorder would send, a fresh
 * abort signal, the same writer). What the recorder allocates beyond the
 * baseline is what it keeps its series, queue, deadlines and outcomes
 * with: the objects a publish passes through, which the garbage collector
 * and the CPU's caches pay for on every write.
 *
 * Measured with V8's sampling heap profiler (one sample every 256 bytes,
 * objects the collector has freed counted too), after a warm-up, so that
 * the optimising compiler has done what it does; a sample, not a count,
 * exact to about a percent over this many writes.
 */
import type { HeapProfiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, type EventsWriter } from 'nestjs-kube-events';
import { failed, reporter } from './bare-client.js';
import { InMemoryWriter } from './in-memory-writer.js';
import { printTable, ratio } from './measure.js';
import { newObjectEvent } from './new-object-event.js';

const WARM_UP = 5_000;
const WRITES = 20_000;
const CONCURRENCY = 50;

const sampledBytes = (node: HeapProfiler.SamplingHeapProfileNode): number =>
  node.children.reduce((bytes, child) => bytes + sampledBytes(child), node.selfSize);

/** Writes an Event about each of `count` new objects, {@link CONCURRENCY} awaited at a time. */
async function writeNew(write: (object: KubernetesObject) => Promise<void>, prefix: string, count: number) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await write({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${prefix}-${i}`, namespace: 'default', uid: `uid-${prefix}-${i}`, resourceVersion: '1' },
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Bytes allocated per write by `write`, after {@link WARM_UP} writes. */
async function bytesPerWrite(side: string, write: (object: KubernetesObject) => Promise<void>): Promise<number> {
  await writeNew(write, `${side}-warm`, WARM_UP);
  const profiler = new Session();
  profiler.connect();
  await profiler.post('HeapProfiler.enable');
  await profiler.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await writeNew(write, side, WRITES);
  const { profile } = await profiler.post('HeapProfiler.stopSampling');
  profiler.disconnect();
  return sampledBytes(profile.head) / WRITES;
}

export async function allocationsPerWrite(): Promise<void> {
  const byHandWriter: EventsWriter = new InMemoryWriter();
  const byHand = await bytesPerWrite('by-hand', async (object) => {
    await byHandWriter.create(object.metadata!.namespace!, newObjectEvent(object), new AbortController().signal);
  });
  // Budgets that never fold or delay a write: each publish is its own write, as by hand.
  const recorder = new EventRecorder(
    { reporter, writeControl: { objectBurst: 1e9, qps: 1e9, burst: 1e9 } },
    new InMemoryWriter(),
  );
  const recorded = await bytesPerWrite('recorder', (object) => recorder.publish(object, failed));
  await recorder.onApplicationShutdown();
  printTable(
    `Bytes allocated per write of an Event about a new object (${WRITES} writes, ${CONCURRENCY} at a time, after ${WARM_UP} of warm-up; V8's sampling heap profiler, freed objects included), the in-memory writer answering at once`,
    ['by hand', 'EventRecorder.publish()', 'what the recorder adds', 'recorder / by hand'],
    [[Math.round(byHand), Math.round(recorded), Math.round(recorded - byHand), ratio(recorded, byHand)]],
  );
}
