import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer } from '../test/support/fake-api-server/index.js';
import { printTable, ratio } from './measure.js';
import { PlainRecorder } from './plain-recorder.js';

const CONTROLLER = 'bench.example.com/widget-controller';
const OBJECTS = 200;
const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
};

interface Publisher {
  publish(resource: KubernetesObject, event: KubeEvent): Promise<void>;
}

const objectAt = (i: number): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `storm-${i}`, namespace: 'default', uid: `uid-storm-${i}` },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** (a) every object fails 50 times at once. */
async function concurrentStorm(publisher: Publisher): Promise<number[]> {
  const expected: number[] = [];
  await Promise.all(
    Array.from({ length: OBJECTS }, (_, i) => {
      expected[i] = 50;
      return Promise.all(Array.from({ length: 50 }, () => publisher.publish(objectAt(i), failed)));
    }),
  );
  return expected;
}

/**
 * (b) every object fails 20 times on client-go's per-item backoff: 5 ms,
 * doubling, here capped at 1 s so that the storm lasts 12 s instead of the
 * 87 minutes the uncapped doubling would take.
 */
async function backoffStorm(publisher: Publisher): Promise<number[]> {
  const attempts = 20;
  await Promise.all(
    Array.from({ length: OBJECTS }, async (_, i) => {
      for (let attempt = 0; attempt < attempts; attempt++) {
        await publisher.publish(objectAt(i), failed).catch(() => undefined);
        await sleep(Math.min(5 * 2 ** attempt, 1_000));
      }
    }),
  );
  return Array.from({ length: OBJECTS }, () => attempts);
}

async function run(storm: (publisher: Publisher) => Promise<number[]>, design: 'plain' | 'write control') {
  const server = await FakeApiServer.start();
  try {
    const kubeConfig = server.kubeConfig();
    const publisher: Publisher =
      design === 'plain'
        ? new PlainRecorder(kubeConfig, CONTROLLER)
        : new EventRecorder({ reporter: { controller: CONTROLLER }, kubeConfig });
    const started = Date.now();
    const expected = await storm(publisher);
    const ended = Date.now();
    const exact = () => {
      const counts = new Map(server.events().map((event) => [event.regarding?.name, event.series?.count ?? 1]));
      return expected.every((count, i) => counts.get(`storm-${i}`) === count);
    };
    while (!exact() && Date.now() - ended < 10_000) await sleep(10);
    const exactAfter = Date.now() - ended;
    return {
      writes: server.requests.filter((request) => request.method === 'POST' || request.method === 'PATCH').length,
      exact: exact(),
      exactAfterMs: exactAfter,
      stormMs: ended - started,
    };
  } finally {
    await server.close();
  }
}

export async function storms(): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const [label, storm] of [
    ['(a) 200 objects × 50 concurrent failures', concurrentStorm],
    ['(b) 200 objects × 20 failures on backoff', backoffStorm],
  ] as const) {
    const plain = await run(storm, 'plain');
    const controlled = await run(storm, 'write control');
    for (const [design, result] of [
      ['publish-by-publish (baseline)', plain],
      ['write control (defaults)', controlled],
    ] as const) {
      rows.push([
        label,
        design,
        result.writes,
        ratio(result.writes, plain.writes),
        result.exact ? 'yes' : 'NO',
        `${result.exactAfterMs} ms`,
        `${(result.stormMs / 1000).toFixed(1)} s`,
      ]);
    }
  }
  printTable(
    'Storms on the local fake API server: writes sent, and when the server’s counts are exact',
    ['storm', 'design', 'writes', 'vs baseline', 'counts exact', 'exact after storm end', 'storm took'],
    rows,
  );
}
