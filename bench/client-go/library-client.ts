// The library's side of `npm run bench:clientgo`: the same flags and line
// protocol as main.go, so that CPU and peak RSS are this process's own. Run
// by plain Node (its type stripping), not @swc-node/register, which alone
// adds ~150 MB and ~2 s of CPU to the start-up. With --decorator, failures
// go through a `@PublishesFailures` reconcile method of a Nest application
// context, and the time each failed reconcile spent in it is reported.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishesFailures, type KubeEvent } from 'nestjs-kube-events';

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    objects: { type: 'string' },
    controller: { type: 'string', default: 'bench.example.com/library' },
    qps: { type: 'string', default: '100' },
    burst: { type: 'string', default: '500' },
    repeats: { type: 'string', default: '1' },
    backoff: { type: 'boolean', default: false },
    'backoff-cap': { type: 'string', default: '1s' },
    failure: { type: 'boolean', default: false },
    decorator: { type: 'boolean', default: false },
  },
});

const say = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(fields)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(flags.kubeconfig!);
const options = {
  reporter: { controller: flags.controller },
  kubeConfig,
  writeControl: { qps: Number(flags.qps), burst: Number(flags.burst) },
};

/** A reconciler whose every reconcile fails, decorated by hand: Node's type stripping has no decorator syntax. */
class Reconciler {
  async reconcile(_object: KubernetesObject): Promise<void> {
    throw new Error('source ConfigMap default/app not found');
  }
}

/** A Nest application context whose `Reconciler.reconcile` is a `@PublishesFailures` method. */
async function decoratedApplication() {
  const descriptor = Object.getOwnPropertyDescriptor(Reconciler.prototype, 'reconcile')!;
  PublishesFailures()(Reconciler.prototype, 'reconcile', descriptor);
  Object.defineProperty(Reconciler.prototype, 'reconcile', descriptor);
  Injectable()(Reconciler);
  // eslint-disable-next-line @typescript-eslint/no-extraneous-class -- a Nest module: its decorator, applied below, describes it
  class BenchModule {}
  Module({ imports: [KubeEventsModule.forRoot(options)], providers: [Reconciler] })(BenchModule);
  return NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
}

const app = flags.decorator ? await decoratedApplication() : undefined;
const recorder = app ? app.get(EventRecorder) : new EventRecorder(options);
const reconciler = app?.get(Reconciler);
const listed = flags.objects ? (JSON.parse(await readFile(flags.objects, 'utf8')) as Record<string, string>[]) : [];
const objects: KubernetesObject[] = listed.map(({ name, namespace, uid, resourceVersion }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid, resourceVersion },
}));
const repeats = Number(flags.repeats);
const backoffCapMs = Number.parseFloat(flags['backoff-cap']) * (flags['backoff-cap'].endsWith('ms') ? 1 : 1000);
const failed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
};
const synced: KubeEvent = { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'configuration synced' };

const rejected: Record<string, number> = {};
// Through the decorator, publishes never reject: what became of them is on the outcomes.
recorder.outcomes$.subscribe(({ kind }) => {
  if (reconciler && (kind === 'failed' || kind === 'dropped'))
    rejected[`${kind} outcome`] = (rejected[`${kind} outcome`] ?? 0) + 1;
});
/** Milliseconds each failed reconcile spent in the decorator, its first failure per object apart: that one waits for its own create. */
const holds: number[] = [];
const firstHolds: number[] = [];
/** Occurrences published so far: sampled every 50 ms until the workload returns, the truth the server's counts are charted against. */
let published = 0;
// A failure goes through publishFailure, or through a @PublishesFailures method with --decorator.
const publish = (object: KubernetesObject, attempt = 0) => {
  published++;
  if (reconciler) {
    const started = performance.now();
    return reconciler.reconcile(object).catch(() => {
      (attempt === 0 ? firstHolds : holds).push(performance.now() - started);
    });
  }
  return (flags.failure ? recorder.publishFailure(object, failed) : recorder.publish(object, synced)).catch(
    (error: unknown) => {
      const { name } = error as Error;
      rejected[name] = (rejected[name] ?? 0) + 1;
    },
  );
};

/**
 * This process's own peak RSS. getrusage's maxRSS is not: Linux carries it
 * over from before exec, so a child forked by a large Node process reports
 * that process's RSS. VmHWM belongs to the address space exec made.
 */
function peakRssKb(): number {
  const hwm = /^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS;
}

/**
 * The V8 young generation's peak committed size (KB), sampled: sized by V8
 * at start-up, before any publish, from the memory it may use (2 MB under a
 * 256 MiB limit, 64 MB on a large machine without one, where it is the
 * largest part of the marginal peak RSS).
 */
let youngKb = 0;
const sampleYoung = () => {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  youngKb = Math.max(youngKb, (young?.physical_space_size ?? 0) / 1024);
};
setInterval(sampleYoung, 250).unref();

say({ event: 'ready' });
await lines.next(); // "go"
const atGo = process.cpuUsage();

const started = performance.now();
const issued: [number, number][] = [[0, 0]];
const sampling = setInterval(() => issued.push([performance.now() - started, published]), 50);
await Promise.all(
  objects.map(async (object) => {
    if (!flags.backoff) return Promise.all(Array.from({ length: repeats }, () => publish(object)));
    // client-go's per-item workqueue backoff: 5 ms, doubling; each retry after the last publish settled.
    for (let attempt = 0; attempt < repeats; attempt++) {
      await publish(object, attempt);
      await sleep(Math.min(5 * 2 ** attempt, backoffCapMs));
    }
  }),
);
const wallMs = performance.now() - started;
clearInterval(sampling);
issued.push([wallMs, published]);
say({
  event: 'returned',
  wallMs,
  rejected,
  issued,
  ...(reconciler && { holds: percentiles(holds), firstHolds: percentiles(firstHolds) }),
});

await lines.next(); // "exit"
await (app ? app.close() : recorder.onApplicationShutdown());
const cpu = process.cpuUsage();
const work = process.cpuUsage(atGo);
sampleYoung();
say({
  event: 'exit',
  userUs: cpu.user,
  sysUs: cpu.system,
  workUs: work.user + work.system,
  maxRssKb: peakRssKb(),
  youngKb: Math.round(youngKb),
});
process.exit(0);

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}
