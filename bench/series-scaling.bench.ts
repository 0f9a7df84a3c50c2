import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, type KubeEvent } from 'nestjs-kube-events';
import { InMemoryWriter } from './in-memory-writer.js';
import { cpuMicrosPerOp, median, printTable, ratio, settledHeap } from './measure.js';

const reporter = { controller: 'bench.example.com/widget-controller' };
/**
 * Budgets too large to bind: these benchmarks measure what tracking series
 * costs, not the write control, which would otherwise fold the in-memory
 * writer's unbounded rate (the storm benchmark measures it).
 */
const writeControl = { objectBurst: 1e9, qps: 1e9, burst: 1e9 };
const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
};

const objects = (count: number, offset = 0): KubernetesObject[] =>
  Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${offset + i}`, namespace: 'default', uid: `uid-${offset + i}`, resourceVersion: '1' },
  }));

/** Publishes one Event about each of `count` new objects, made in chunks so that the objects themselves do not stay on the heap. */
async function publishDistinct(
  recorder: EventRecorder,
  count: number,
  offset = 0,
  eventAbout: (index: number) => KubeEvent = () => failed,
): Promise<void> {
  const chunk = 10_000;
  for (let done = 0; done < count; done += chunk) {
    const items = objects(Math.min(chunk, count - done), offset + done);
    for (const [i, item] of items.entries()) await recorder.publish(item, eventAbout(offset + done + i));
  }
}

/** CPU µs per publish. */
type Cost = number;

/** A recorder tracking `tracked` series, all still within their window. */
async function recorderTracking(tracked: number, maxSeries = tracked): Promise<EventRecorder> {
  const recorder = new EventRecorder({ reporter, maxSeries, writeControl }, new InMemoryWriter());
  await publishDistinct(recorder, tracked);
  return recorder;
}

/**
 * Cost of a repeat publish (the PATCH path) into the series of `hot` objects
 * while `tracked` series are tracked: the objects a controller keeps retrying,
 * the same set whatever the number tracked, so that the cost measured is what
 * tracking more series adds.
 */
async function repeatCost(tracked: number, publishes: number, hot = 1_000): Promise<Cost> {
  const recorder = await recorderTracking(tracked);
  const items = objects(hot, tracked - hot);
  const picks = Array.from({ length: publishes }, () => items[Math.floor(Math.random() * items.length)]);
  return cpuMicrosPerOp(publishes, async () => {
    for (const item of picks) await recorder.publish(item, failed);
  });
}

/**
 * Cost of a first publish (the create path) while `tracked` series are
 * tracked. With room in the store (`full` unset), the store grows by the
 * publishes timed; full, each new series takes the place of the least
 * recently used one, as in a controller at its `maxSeries` whose objects
 * come and go.
 */
async function newSeriesCost(tracked: number, publishes: number, full: boolean): Promise<Cost> {
  const recorder = await recorderTracking(tracked, full ? tracked : tracked + publishes);
  const fresh = objects(publishes, tracked);
  return cpuMicrosPerOp(publishes, async () => {
    for (const item of fresh) await recorder.publish(item, failed);
  });
}

/** One way to publish, timed at each size: the number of publishes, and how. */
interface Case {
  readonly title: string;
  readonly publishes: number;
  readonly cost: (tracked: number, publishes: number) => Promise<Cost>;
}

const CASES: Case[] = [
  {
    title: 'repeat (1,000 hot objects)',
    publishes: 100_000,
    cost: (tracked, publishes) => repeatCost(tracked, publishes),
  },
  {
    title: 'new series, room in the store',
    publishes: 20_000,
    cost: (tracked, publishes) => newSeriesCost(tracked, publishes, false),
  },
  {
    title: 'new series, store full',
    publishes: 50_000,
    cost: (tracked, publishes) => newSeriesCost(tracked, publishes, true),
  },
];

export async function seriesScaling(): Promise<void> {
  const rounds = 7;
  const sizes = [1_000, 10_000, 100_000];
  const costs = CASES.map(() => new Map(sizes.map((size) => [size, [] as Cost[]])));
  // Sizes interleaved round by round, each round starting at the next size, so that drift of the machine weighs on all alike.
  for (let round = 0; round < rounds; round++) {
    for (const tracked of [...sizes.slice(round % sizes.length), ...sizes.slice(0, round % sizes.length)]) {
      for (const [i, { publishes, cost }] of CASES.entries()) {
        costs[i].get(tracked)!.push(await cost(tracked, publishes));
      }
    }
  }
  // The fastest run measures the work, since interference on a shared machine only ever adds time; the median is beside it.
  const fastest = (samples: Cost[]) => Math.min(...samples);
  const middle = (samples: Cost[]) => median(samples);
  const rows = sizes.map((tracked) => [
    tracked.toLocaleString('en'),
    ...costs.flatMap((bySize) => {
      const [here, baseline] = [bySize.get(tracked)!, bySize.get(1_000)!];
      return [fastest(here).toFixed(2), ratio(fastest(here), fastest(baseline)), ratio(middle(here), middle(baseline))];
    }),
  ]);
  printTable(
    `publish() cost as tracked series grow: CPU µs of the main thread per publish, fastest of ${rounds} interleaved runs ` +
      '(in-memory writer; ' +
      CASES.map(({ title, publishes }) => `${title}: ${publishes.toLocaleString('en')} publishes`).join(', ') +
      ')',
    ['tracked series', ...CASES.flatMap(({ title }) => [title, 'vs 1,000', 'medians'])],
    rows,
  );
}

/** What the objects' Events say: one note for all, or a note of each object's own, as a controller's notes name their object. */
const NOTES: { readonly title: string; readonly eventAbout: (index: number) => KubeEvent }[] = [
  { title: 'one note for every object', eventAbout: () => failed },
  {
    title: 'a note naming its object (~40 characters)',
    eventAbout: (i) => ({ ...failed, note: `source ConfigMap default/cm-${i} not found` }),
  },
  {
    title: 'a note of its own, 1,000 characters',
    eventAbout: (i) => ({ ...failed, note: `source ConfigMap default/cm-${i} not found: `.padEnd(1_000, '.') }),
  },
];

/** Heap per series with `tracked` series of the Events `eventAbout` makes, all within their window. */
async function heapOf(
  tracked: number,
  eventAbout: (index: number) => KubeEvent,
  combineSimilarEvents?: false,
): Promise<number> {
  const before = settledHeap();
  const recorder = new EventRecorder(
    { reporter, maxSeries: tracked, writeControl, combineSimilarEvents },
    new InMemoryWriter(),
  );
  await publishDistinct(recorder, tracked, 0, eventAbout);
  return (settledHeap() - before) / recorder.trackedSeries;
}

export async function heapPerSeries(): Promise<void> {
  const tracked = 100_000;
  const rows: string[][] = [];
  for (const { title, eventAbout } of NOTES) {
    // The baseline beside each: the same series without combining similar events, which keeps a note's worth per object.
    const combining = await heapOf(tracked, eventAbout);
    const baseline = await heapOf(tracked, eventAbout, false);
    rows.push([title, `${Math.round(combining)} B`, `${Math.round(baseline)} B`, ratio(combining, baseline)]);
  }

  const capped = new EventRecorder({ reporter, writeControl }, new InMemoryWriter());
  const samples: (string | number)[][] = [];
  const baseline = settledHeap();
  const total = 1_000_000;
  const step = 200_000;
  for (let published = 0; published < total; published += step) {
    await publishDistinct(capped, step, published);
    samples.push([
      (published + step).toLocaleString('en'),
      capped.trackedSeries.toLocaleString('en'),
      `${((settledHeap() - baseline) / 1e6).toFixed(1)} MB`,
    ]);
  }
  printTable(
    `Heap per tracked series, ${tracked.toLocaleString('en')} tracked (one publish about each object; in-memory writer)`,
    ['notes', 'per series', 'combineSimilarEvents: false', 'vs false'],
    rows,
  );
  printTable(
    'The cap bounds the heap: 1,000,000 distinct objects through one recorder (default maxSeries 10,000)',
    ['published', 'tracked series', 'heap growth'],
    samples,
  );
}
