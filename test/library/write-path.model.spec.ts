import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fc, test } from '@fast-check/jest';
import {
  EventRecorder,
  PublishApiError,
  PublishError,
  PublishTimeoutError,
  type KubeEvent,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { EventLoopWatchdog } from '../support/event-loop-watchdog.js';
import { FakeApiServer, type StoredEvent } from '../support/fake-api-server/index.js';
import { within } from '../support/within.js';
import { muteLogger } from '../support/logged-lines.js';

/**
 * A model-based test of the write loop: random schedules of publishes
 * (several objects, repeats, distinct notes, `forget`, `flush`) interleaved
 * with every fault the fake API server can play (a hang, a write applied
 * after the timeout, a reset before and after applying, a 500, a 429 with
 * Retry-After, a 404 on a patch, a 409, an unreadable 2xx, connections
 * refused then accepted again), checking after each run what a caller
 * relies on:
 * - every publish settles within `timeout` + 100 ms;
 * - a resolved occurrence is on the server when `publish()` returns;
 * - no count goes backwards or exceeds what was published;
 * - once the faults end and `flush()` returns, the server holds exactly
 *   what resolved or was reported queued, less what was reported dropped
 *   (a drop whose last write may have applied may be on the server: its
 *   error says so);
 * - one Event per run of one note in a series, unless the server lost it (it expired: a 404);
 * - the first publish after the faults end resolves.
 *
 * A fixed seed and a few runs here; `npm run test:model` runs many more
 * (`MODEL_RUNS`, `MODEL_SEED`, `MODEL_SHARDS`). A run that does not end within
 * `RUN_LIMIT_MS` fails as stalled, naming what it waited for, and fast-check
 * prints its seed and path: `MODEL_SEED=… MODEL_PATH=…` runs it again, as
 * does `MODEL_REPLAY='[…]'` with the schedule it prints. An event loop
 * blocked for `BLOCKED_LIMIT_MS` (where no timer fires) ends the process
 * with the same directions. Each run has a server and a recorder of its
 * own, shut down whatever happened, so that nothing of one run reaches the
 * next.
 */

const TIMEOUT = 250;
const SETTLE_SLACK_MS = 100;
/** Longer than the interval between probes of a server taken for unreachable. */
const PAST_PROBE_INTERVAL_MS = 150;
const OBJECTS = 3;
const NOTES = 2;
const RUNS = Number(process.env.MODEL_RUNS ?? 12);
const SEED = Number(process.env.MODEL_SEED ?? 20_261_201);
/**
 * Properties run side by side, each with its share of the runs and a seed of
 * its own (`SEED`, `SEED + 1`…): a run mostly waits (timeouts, pauses), so
 * they take hardly longer than one. One when a path is replayed.
 */
const SHARDS = process.env.MODEL_PATH ? 1 : Number(process.env.MODEL_SHARDS ?? 1);
/**
 * A run ends well within this, even on a loaded machine (at most 14 steps of a
 * few hundred milliseconds, then one flush and three publishes): one that has
 * not ended has stalled.
 */
const RUN_LIMIT_MS = 30_000;
/** Shutting the recorder down and closing the server take a flush (about twice `TIMEOUT`) and no more. */
const CLEANUP_LIMIT_MS = 10_000;
/** An event loop blocked this long spins: no timer fires, so only the watchdog's thread can end the run. */
const BLOCKED_LIMIT_MS = 20_000;
/** Runs between two progress lines, when `MODEL_RUNS` asks for many. */
const PROGRESS_EVERY = 100;

type Method = 'POST' | 'PATCH';
const FAULTS = [
  'hang',
  'slow-applied',
  'reset-before',
  'reset-after',
  '500',
  '429',
  '404',
  '409',
  'unreadable-2xx',
] as const;
type Fault = (typeof FAULTS)[number];

type Command =
  | { readonly kind: 'publish'; readonly object: number; readonly note: number; readonly awaited: boolean }
  | { readonly kind: 'forget'; readonly object: number }
  | { readonly kind: 'flush' }
  | { readonly kind: 'fault'; readonly fault: Fault; readonly method: Method }
  | { readonly kind: 'refuse'; readonly ms: number }
  | { readonly kind: 'pause'; readonly ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('publish' as const),
      object: fc.nat(OBJECTS - 1),
      note: fc.nat(NOTES - 1),
      awaited: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), object: fc.nat(OBJECTS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flush' as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      fault: fc.constantFrom(...FAULTS),
      method: fc.constantFrom<Method>('POST', 'PATCH'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refuse' as const), ms: fc.integer({ min: 50, max: 400 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pause' as const), ms: fc.integer({ min: 0, max: 150 }) }) },
);

/** Whether the write that failed this way may have applied: it timed out, or its answer was lost or unreadable. */
const mayHaveApplied = (error: PublishError | undefined): boolean =>
  error instanceof PublishTimeoutError || (error instanceof PublishApiError && error.mayHaveApplied);

/** One publish as the model saw it. */
interface Published {
  readonly object: number;
  readonly note: number;
  readonly startedAt: number;
  settledAt?: number;
  outcome?: 'resolved' | PublishError;
}

let run = 0;
const started = performance.now();
/** Started with the first run: concurrent properties may start before `beforeAll` hooks. */
let watchdog: EventLoopWatchdog | undefined;
/** What each property's current run waits for, for the watchdog. */
const doing = new Map<number, string>();

/** One property's share of the runs: its seed, and how many of its runs have started. */
interface Shard {
  readonly index: number;
  readonly seed: number;
  runs: number;
}

/** kube-apiserver's answer for an Event that is not there. */
const notFound = (name: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `events.events.k8s.io "${name}" not found`,
  reason: 'NotFound',
  details: { name, group: 'events.k8s.io', kind: 'events' },
  code: 404,
});

// Not in `beforeAll`: concurrent properties may start before it.
muteLogger('warn');
muteLogger('log');
afterAll(async () => {
  jest.restoreAllMocks();
  await watchdog?.stop();
});

/**
 * Plays a fault on the next matching request; `expired` gets the Events the
 * model let expire (see the `404` fault), with the counts they took along.
 */
function playFault(server: FakeApiServer, expired: StoredEvent[], fault: Fault, method: Method): void {
  switch (fault) {
    case 'hang':
      server.hangNext(method);
      return;
    case 'slow-applied':
      server.delayNext(TIMEOUT + 100, method, { applyIfAborted: true });
      return;
    case 'reset-before':
      server.resetNext(method);
      return;
    case 'reset-after':
      server.loseAnswerNext(method);
      return;
    case '500':
      server.failNext(500, method);
      return;
    case '429':
      server.failNext(429, method, { retryAfterSeconds: 1 });
      return;
    case '404':
      // The Event expires before the patch comes, as the API server deletes Events an --event-ttl after their last update.
      server.respondNext('PATCH', (request) => {
        const [event] = server.events().filter((stored) => stored.metadata.name === request.name);
        if (event) {
          expired.push(event);
          server.expireEvents((stored) => stored.metadata.name === request.name);
        }
        return { status: 404, body: notFound(request.name ?? '') };
      });
      return;
    case '409':
      if (method === 'POST') server.failNext(409, 'POST', 'AlreadyExists');
      else server.failNext(409, 'PATCH', 'Conflict');
      return;
    case 'unreadable-2xx':
      server.truncateAnswerNext(method);
      return;
  }
}

/** Until every request the server delays has been handled: a late write lands before the counts are read. */
async function lateWritesLanded(server: FakeApiServer): Promise<void> {
  await server.waitForFinished(10 * TIMEOUT);
}

async function check(commands: readonly Command[], shard: Shard): Promise<void> {
  run++;
  shard.runs++;
  watchdog ??= EventLoopWatchdog.start('the write loop, model-based', BLOCKED_LIMIT_MS);
  if (process.env.MODEL_RUNS && run % PROGRESS_EVERY === 0)
    process.stderr.write(
      `model: ${run} runs (of ${RUNS}) in ${Math.round((performance.now() - started) / 1000)} s, ${Math.round((performance.now() - started) / run)} ms per run\n`,
    );
  jest.clearAllMocks(); // the muted loggers' calls are not kept from run to run
  // A server of the run's own: a write of an earlier run still on its way cannot take this run's faults.
  const server = await FakeApiServer.start({ refusable: true });
  // A pause of the whole process (a collection, a busy machine) delays every timer alike: it is not the recorder's.
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const expired: StoredEvent[] = [];
  const uids = Array.from({ length: OBJECTS }, (_, i) => `model-${run}-${i}`);
  const objects = uids.map((uid) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: uid, namespace: 'default', uid },
  }));
  const events: KubeEvent[] = Array.from({ length: NOTES }, (_, note) => ({
    type: 'Warning',
    reason: 'SyncFailed',
    action: 'Sync',
    note: `note ${note}`,
  }));
  const recorder = new EventRecorder({
    reporter: { controller: 'widgets' },
    kubeConfig: server.kubeConfig(),
    timeout: TIMEOUT,
    combineSimilarEvents: false,
  });
  const outcomes: PublishOutcome[] = [];
  recorder.outcomes$.subscribe((outcome) => {
    outcomes.push(outcome);
    if (process.env.MODEL_DEBUG)
      process.stderr.write(
        `  ${Math.round(performance.now())} ${outcome.kind} ${outcome.regarding.name} ${outcome.count} ${outcome.error?.message ?? ''}\n`,
      );
  });
  const published: Published[] = [];
  const violations: string[] = [];
  const pending: Promise<void>[] = [];
  /** Runs of one note in a row per object, each its own Event (a forget starts a new one). */
  const runs = new Map<string, number>();
  const lastNote = new Map<number, number | undefined>();

  const serverCount = (object: number, note: number, withExpired = false): number =>
    [...server.events(), ...(withExpired ? expired : [])]
      .filter((event) => event.regarding.uid === uids[object] && event.note === events[note].note)
      .reduce((sum, event) => sum + (event.series?.count ?? 1), 0);
  const resolvedOf = (object: number, note: number) =>
    published.filter((p) => p.object === object && p.note === note && p.outcome === 'resolved').length;

  const publish = (object: number, note: number): Promise<void> => {
    const key = `${object}/${note}`;
    if (lastNote.get(object) !== note) runs.set(key, (runs.get(key) ?? 0) + 1);
    lastNote.set(object, note);
    const entry: Published = { object, note, startedAt: performance.now() };
    published.push(entry);
    const settled = recorder.publish(objects[object], events[note]).then(
      () => {
        entry.settledAt = performance.now();
        entry.outcome = 'resolved';
        const onServer = serverCount(object, note, true);
        if (onServer < resolvedOf(object, note))
          violations.push(`resolved ${key} #${published.indexOf(entry)} but the server counts ${onServer}`);
      },
      (error: unknown) => {
        entry.settledAt = performance.now();
        entry.outcome =
          error instanceof PublishError ? error : new PublishError(`not a PublishError: ${String(error)}`);
      },
    );
    pending.push(settled);
    return settled;
  };

  /** What the run waits for now: a stall names it, and the watchdog, with how to run it again. */
  let phase = 'its start';
  const replay =
    process.env.MODEL_REPLAY || process.env.MODEL_PATH || process.env.MODEL_SHRINK
      ? ''
      : `MODEL_SEED=${shard.seed} MODEL_PATH=${shard.runs - 1}, or `;
  const waitFor = (what: string) => {
    phase = what;
    doing.set(
      shard.index,
      `Run ${run}, waiting for ${what}. Run it again with ${replay}MODEL_REPLAY='${JSON.stringify(commands)}'`,
    );
    watchdog?.doing([...doing.values()].join('\n'));
  };
  waitFor(phase);
  const unsettled = () =>
    published
      .flatMap((p, i) =>
        p.settledAt === undefined
          ? [`#${i} (${p.object}/${p.note}, ${Math.round(performance.now() - p.startedAt)} ms)`]
          : [],
      )
      .join(', ') || 'none';

  const play = async (): Promise<void> => {
    for (const [i, step] of commands.entries()) {
      waitFor(`step ${i}, ${JSON.stringify(step)}`);
      if (process.env.MODEL_DEBUG) process.stderr.write(`run ${run}: ${JSON.stringify(step)}\n`);
      switch (step.kind) {
        case 'publish':
          if (step.awaited) await publish(step.object, step.note);
          else void publish(step.object, step.note);
          break;
        case 'forget':
          recorder.forget(objects[step.object]);
          lastNote.set(step.object, undefined);
          break;
        case 'flush':
          await recorder.flush();
          break;
        case 'fault':
          playFault(server, expired, step.fault, step.method);
          break;
        case 'refuse':
          await server.stopListening();
          await sleep(step.ms); // real time: the schedule under test, against the fake server's real-time delays
          await server.listenAgain();
          break;
        case 'pause':
          await sleep(step.ms); // real time: the schedule under test, against the fake server's real-time delays
          break;
      }
    }
    if (process.env.MODEL_DEBUG) process.stderr.write(`run ${run}: settling\n`);
    waitFor('the publishes to settle');
    await Promise.all(pending);

    // The faults end; what is queued is written.
    waitFor('the flush once the faults end');
    server.dropScenarios();
    await lateWritesLanded(server);
    await recorder.flush();
    await lateWritesLanded(server);

    // A drop whose last write may have applied (it timed out, or its answer was lost) may yet be on the server.
    const dropped = (object: number, note: number, uncertain?: boolean) =>
      outcomes
        .filter(
          (o) =>
            o.kind === 'dropped' &&
            o.regarding.uid === uids[object] &&
            o.event.note === events[note].note &&
            (uncertain === undefined || mayHaveApplied(o.error) === uncertain),
        )
        .reduce((sum, o) => sum + o.count, 0);
    for (let object = 0; object < OBJECTS; object++) {
      for (let note = 0; note < NOTES; note++) {
        const mine = published.filter((p) => p.object === object && p.note === note);
        const counted = mine.filter((p) => p.outcome === 'resolved' || p.outcome!.queued).length;
        const lostWithExpired = expired
          .filter((event) => event.regarding.uid === uids[object] && event.note === events[note].note)
          .reduce((sum, event) => sum + (event.series?.count ?? 1), 0);
        // An Event that expired took its count along; what its last write carried is written again to the next one.
        // A drop rejects the publishes still waiting: those were never reported queued.
        const droppedWhileAwaited = mine.filter(
          (p) => p.outcome instanceof PublishError && !p.outcome.queued && p.outcome.message.startsWith('Dropped'),
        ).length;
        const expected = counted - (dropped(object, note) - droppedWhileAwaited) - lostWithExpired;
        const uncertain = dropped(object, note, true) + lostWithExpired;
        const onServer = serverCount(object, note);
        if (onServer < expected || onServer > expected + uncertain)
          violations.push(
            `${object}/${note}: the server counts ${onServer}, expected ${expected}${uncertain ? ` to ${expected + uncertain}` : ''} (${counted} resolved or queued, ${dropped(object, note)} dropped, ${uncertain} of them after a write that may have applied, ${mine.length} published)`,
          );
        const theirs = server
          .events()
          .filter((event) => event.regarding.uid === uids[object] && event.note === events[note].note);
        const lost = expired.filter(
          (event) => event.regarding.uid === uids[object] && event.note === events[note].note,
        ).length;
        const allowed = (runs.get(`${object}/${note}`) ?? 0) + lost;
        if (theirs.length > allowed)
          violations.push(`${object}/${note}: ${theirs.length} Events, at most ${allowed} expected`);
        for (const event of theirs) {
          const history = server.countHistory(event.metadata.namespace, event.metadata.name);
          if (history.some((count, i) => i > 0 && count < history[i - 1]))
            violations.push(`${object}/${note}: the count went backwards: ${history.join(' ')}`);
          if ((event.series?.count ?? 1) > mine.length)
            violations.push(`${object}/${note}: count ${event.series?.count} of ${mine.length} published`);
        }
      }
    }
    for (const [i, p] of published.entries()) {
      const took = p.settledAt! - p.startedAt;
      const stalled = stalls.max / 1e6;
      if (took > TIMEOUT + SETTLE_SLACK_MS + stalled)
        violations.push(
          `publish #${i} settled after ${Math.round(took)} ms (the process stalled ${Math.round(stalled)} ms)`,
        );
    }

    if (process.env.MODEL_DEBUG) process.stderr.write(`run ${run}: first publishes\n`);
    waitFor('the first publishes after the faults');
    // The first publish of each series after the faults resolves. While the recorder still takes the server
    // for unreachable, a publish tries it once the probe interval (100 ms) has passed since the last attempt.
    await sleep(PAST_PROBE_INTERVAL_MS); // real time: the model's recorder runs on the real clock, as its schedule does
    for (let object = 0; object < OBJECTS; object++) {
      const before = published.length;
      await publish(object, 0);
      const result = published[before].outcome;
      if (result !== 'resolved')
        violations.push(`the first publish of ${object} after the faults: ${(result as Error).message}`);
    }
  };

  /** Whatever happened: what the recorder holds is written, its connections close, then the server's. */
  const shutDown = async (): Promise<void> => {
    waitFor('the shutdown');
    try {
      await Promise.all(pending);
      await recorder.onApplicationShutdown();
      await lateWritesLanded(server);
    } finally {
      await server.close();
    }
  };

  try {
    await within(
      play(),
      RUN_LIMIT_MS,
      () =>
        `the run stalled: not ended after ${RUN_LIMIT_MS} ms, waiting for ${phase}; unsettled publishes: ${unsettled()}`,
    );
  } catch (error) {
    violations.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    stalls.disable();
    await within(
      shutDown(),
      CLEANUP_LIMIT_MS,
      () => `the shutdown stalled: not ended after ${CLEANUP_LIMIT_MS} ms; unsettled publishes: ${unsettled()}`,
    ).catch((error: unknown) => violations.push(error instanceof Error ? error.message : String(error)));
    // At once when the shutdown closed it; else it cuts what a stalled shutdown holds open.
    await server.close();
  }
  if (violations.length)
    throw new Error(
      `${violations.join('\n')}\ncommands: ${JSON.stringify(commands)}\nrequests:\n${server.log().join('\n')}`,
    );
}

describe('the write loop, model-based', () => {
  // `MODEL_REPLAY='[…]'` runs one schedule, as a failure prints it.
  if (process.env.MODEL_REPLAY)
    it(
      'replays a schedule',
      () => check(JSON.parse(process.env.MODEL_REPLAY!) as Command[], { index: -1, seed: SEED, runs: 0 }),
      60_000,
    );

  const runsEach = Math.ceil(RUNS / SHARDS);
  const property = SHARDS > 1 ? test.concurrent : test;
  for (let index = 0; index < SHARDS; index++) {
    const shard: Shard = { index, seed: SEED + index, runs: 0 };
    property.prop([fc.array(command, { minLength: 1, maxLength: 14 })], {
      numRuns: runsEach,
      seed: shard.seed,
      // `MODEL_PATH` (with the `MODEL_SEED` of a failure) runs that failing case again, first.
      path: process.env.MODEL_PATH,
      endOnFailure: process.env.MODEL_SHRINK === undefined,
      // A backstop: a run fails on its own once it stalls, and its shutdown is bounded too.
      plugins: [fc.timeout(RUN_LIMIT_MS + 2 * CLEANUP_LIMIT_MS)],
    })(
      'keeps every promise a publish makes, whatever the faults',
      async (commands) => {
        await check(commands, shard);
      },
      runsEach * 20_000,
    );
  }
});
