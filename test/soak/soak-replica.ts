// One replica of the soak's controller, in a process of its own, as a real operator runs the library: a Nest
// application context with KubeEventsModule (so the permission check runs), `resumeSeries` on, every replica of
// the soak sharing one series per object. Loads, then waits for commands on stdin, one JSON object a line:
//   {"start":"<instance>"}         starts the application (the recorder) as that instance, then prints `ready`
//   {"objects":[[index, object]]}  adds objects to publish about, each under the soak's index
//   {"stop":true}                  stops publishing, waits for every publish, closes the application, prints `done`
// and says what happens on stdout, a line each, which the soak's ledger reads (stdout to a pipe is synchronous on
// Linux, so a line printed is a line read, even when the process is then killed):
//   m <index>                      a publish made
//   s <index> <r|q|f|x> <ms>       settled: resolved, rejected queued, rejected not queued, rejected by a non-PublishError
//   d <index> <count> <cause>      occurrences given up (a `dropped` outcome)
//   w <what>                       a write that failed (a `failed` outcome): its status code, or its error's name
//   mem <heapUsed> <rss>           every 2 s
//   unhandled <text>               an unhandled rejection or exception
import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishApiError, PublishError } from 'nestjs-kube-events';
import { SOAK_CONTROLLER, SOAK_FAILURE } from './soak-event.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const PUBLISH_EVERY_MS = Number(env('SOAK_PUBLISH_EVERY_MS'));

const say = (line: string): void => void process.stdout.write(`${line}\n`);
process.on('unhandledRejection', (reason) => say(`unhandled ${String(reason).replace(/\n/g, ' ')}`));
process.on('uncaughtException', (error) => say(`unhandled ${String(error).replace(/\n/g, ' ')}`));

const objects: [number, KubernetesObject][] = [];
const indexOf = new Map<string, number>();
const pending = new Set<Promise<void>>();
let app: INestApplicationContext | undefined;
let publishing: NodeJS.Timeout | undefined;

async function start(instance: string): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(env('SOAK_KUBECONFIG'));
  app = await NestFactory.createApplicationContext(
    KubeEventsModule.forRoot({
      reporter: { controller: SOAK_CONTROLLER, instance },
      kubeConfig,
      resumeSeries: true,
      timeout: Number(env('SOAK_TIMEOUT_MS')),
      // A window of a minute rather than ten: the soak meets the window's edges, where a series' first name changes.
      seriesWindow: 60_000,
    }),
    { logger: ['error'] },
  );
  const recorder = app.get(EventRecorder);
  /** Each object's last outcomes, said with a create that is not the object's first: what led to it. */
  const history = new Map<number, string[]>();
  recorder.outcomes$.subscribe((outcome) => {
    const at = indexOf.get(outcome.regarding.uid ?? '') ?? -1;
    const seen = history.get(at) ?? [];
    if (outcome.kind === 'created' && seen.length > 0) say(`c ${at} ${outcome.eventName} after ${seen.join(',')}`);
    seen.push(outcome.kind === 'failed' ? `failed:${failedWrite(outcome.error)}` : outcome.kind);
    history.set(at, seen.slice(-8));
    if (outcome.kind === 'failed') say(`w ${failedWrite(outcome.error)}`);
    if (outcome.kind !== 'dropped') return;
    const index = indexOf.get(outcome.regarding.uid ?? '');
    say(`d ${index ?? -1} ${outcome.count} ${outcome.dropCause ?? 'unknown'}`);
  });
  publishing = setInterval(() => {
    if (objects.length === 0) return;
    const [index, object] = objects[Math.floor(Math.random() * objects.length)];
    say(`m ${index}`);
    const began = performance.now();
    const settled = recorder.publishFailure(object, SOAK_FAILURE).then(
      () => 'r',
      (error: unknown) => (error instanceof PublishError ? (error.queued ? 'q' : 'f') : 'x'),
    );
    const done = settled.then((how) => {
      say(`s ${index} ${how} ${Math.round(performance.now() - began)}`);
      pending.delete(done);
    });
    pending.add(done);
  }, PUBLISH_EVERY_MS);
  setInterval(() => {
    const { heapUsed, rss } = process.memoryUsage();
    say(`mem ${heapUsed} ${rss}`);
  }, 2_000).unref();
  say('ready');
}

/** What a failed write met: the server's status, or the kind of error (a timeout, no connection). */
function failedWrite(error: PublishError | undefined): string {
  if (error instanceof PublishApiError && error.statusCode !== undefined) return String(error.statusCode);
  return error?.name ?? 'unknown';
}

async function stop(): Promise<void> {
  clearInterval(publishing);
  await Promise.all(pending);
  // Closing writes what is still queued, as an operator's shutdown does.
  await app?.close();
  say('done');
  process.exit(0);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as { start?: string; stop?: true; objects?: [number, KubernetesObject][] };
  if (command.start) void start(command.start);
  if (command.objects)
    for (const [index, object] of command.objects) {
      objects.push([index, object]);
      indexOf.set(object.metadata!.uid!, index);
    }
  if (command.stop) void stop();
});
say('loaded');
