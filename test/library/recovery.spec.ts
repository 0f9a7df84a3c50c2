import { jest } from '@jest/globals';
import {
  PublishError,
  PublishTimeoutError,
  PublishUnreachableError,
  type EventRecorder,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { settle } from '../support/settled.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { advanceUntilSeen } from '../support/fake-time.js';

/**
 * How the recorder comes back from a fault the moment the server does: a
 * connection lost once concerns its write alone, an unreachable server is
 * probed by the publishes that keep coming, a write that timed out delays
 * nothing, and series told to wait the same time do not return together.
 * Each test ends with what the server holds: one Event per series, with
 * the count of every occurrence that resolved or was reported queued.
 */

const failed = syncFailed;
const object = configMap;

const patchCount = (request: RecordedRequest): number | undefined =>
  (request.body as { series?: { count?: number } } | undefined)?.series?.count;

/** Longer than the interval between probes of an unreachable server. */
const PAST_PROBE_INTERVAL_MS = 150;

describe('recovery from faults', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  const eventsAbout = (name: string) => server.events().filter((event) => event.regarding.name === name);
  const countOf = (name: string) => {
    const [event] = eventsAbout(name);
    return event ? (event.series?.count ?? 1) : 0;
  };
  const failures = (recorder: EventRecorder) => {
    const seen: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => {
      if (outcome.kind === 'failed') seen.push(outcome);
    });
    return seen;
  };

  beforeEach(async () => {
    server = await FakeApiServer.start({ refusable: true });
  });
  afterEach(async () => {
    await shutDown();
    await server.close();
  });

  describe('a connection reset before any answer', () => {
    it.each([
      ['reset before it was applied', (s: FakeApiServer, method: string) => s.resetNext(method)],
      ['applied, then its answer lost', (s: FakeApiServer, method: string) => s.loseAnswerNext(method)],
    ])('on a create (%s): that publish resolves, and so does the next one of another object', async (_, fault) => {
      const recorder = recorderWith({ timeout: 1_000 });
      const seen = failures(recorder);
      fault(server, 'POST');

      expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');
      expect(await settle(recorder.publish(object('b'), failed))).toBe('resolved');

      expect(seen).toEqual([]);
      expect([eventsAbout('a').length, countOf('a'), eventsAbout('b').length]).toEqual([1, 1, 1]);
    });

    it.each([
      ['reset before it was applied', (s: FakeApiServer, method: string) => s.resetNext(method)],
      ['applied, then its answer lost', (s: FakeApiServer, method: string) => s.loseAnswerNext(method)],
    ])('on a kept-alive connection, on a patch (%s): no series is told the server is unreachable', async (_, fault) => {
      const recorder = recorderWith({ timeout: 1_000 });
      expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');
      expect(await settle(recorder.publish(object('b'), failed))).toBe('resolved');
      fault(server, 'PATCH');

      const results = await Promise.all([
        settle(recorder.publish(object('a'), failed)),
        settle(recorder.publish(object('b'), failed)),
      ]);
      results.push(await settle(recorder.publish(object('a'), failed)));

      expect(results).toEqual(['resolved', 'resolved', 'resolved']);
      expect([countOf('a'), countOf('b')]).toEqual([3, 2]);
      expect(server.events()).toHaveLength(2);
    });
  });

  describe('a server that refuses connections, then listens again', () => {
    it('rejects at once as unreachable, and the first publish after it is back resolves', async () => {
      const timeout = 3_000;
      const clock = new FakeClock();
      const recorder = recorderWith({ timeout, clock });
      expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');
      await server.stopListening();

      const started = Date.now();
      const down = await settle(recorder.publish(object('a'), failed));
      expect(down).toBeInstanceOf(PublishUnreachableError);
      expect((down as PublishError).message).toMatch(/unreachable since .*ECONNREFUSED/);
      expect(Date.now() - started).toBeLessThan(timeout / 2);
      // Long enough that the series back off for a while: the recovery must not wait for them.
      for (let i = 0; i < 8; i++) {
        await clock.advance(PAST_PROBE_INTERVAL_MS);
        expect(await settle(recorder.publish(object('b'), failed))).toBeInstanceOf(PublishUnreachableError);
      }

      await server.listenAgain();
      await clock.advance(PAST_PROBE_INTERVAL_MS);
      expect(await settle(recorder.publish(object('c'), failed))).toBe('resolved');
      await recorder.flush();

      expect([countOf('a'), countOf('b'), countOf('c')]).toEqual([2, 8, 1]);
      expect(server.events()).toHaveLength(3);
    });

    it('probes one publish at a time: a burst while it is down costs one attempt, not one per publish', async () => {
      const clock = new FakeClock();
      const recorder = recorderWith({ timeout: 3_000, clock });
      const seen = failures(recorder);
      await server.stopListening();
      expect(await settle(recorder.publish(object('first'), failed))).toBeInstanceOf(PublishUnreachableError);
      await clock.advance(PAST_PROBE_INTERVAL_MS);
      const before = seen.length;

      const burst = await Promise.all(
        Array.from({ length: 50 }, (_, i) => settle(recorder.publish(object(`burst-${i}`), failed))),
      );

      expect(burst.every((result) => result instanceof PublishUnreachableError)).toBe(true);
      expect(seen.length - before).toBeLessThanOrEqual(2);
      await server.listenAgain();
      await recorder.flush();
      expect(server.events()).toHaveLength(51);
    });
  });

  describe('a write that timed out', () => {
    it.each([
      ['hung, never applied', (s: FakeApiServer) => s.hangNext('PATCH')],
      ['slow, applied after the timeout', (s: FakeApiServer) => s.delayNext(500, 'PATCH', { applyIfAborted: true })],
    ])('(%s) delays nothing: the next publish retries at once, carrying both', async (_, fault) => {
      const timeout = 300;
      const clock = new FakeClock();
      const recorder = recorderWith({ timeout, clock });
      expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');
      fault(server);
      const timingOut = settle(recorder.publish(object('a'), failed));
      await server.waitForRequests(1, 'PATCH');
      await clock.advance(timeout);
      const timedOut = await timingOut;
      expect(timedOut).toBeInstanceOf(PublishTimeoutError);
      expect(timedOut).toMatchObject({ queued: true });
      // The aborted request's socket closes a moment after the publish gave up, and the fault is over then.
      await server.waitForAborted(1);

      // Written with the recorder's clock standing still: it waited for no backoff.
      const next = await settle(recorder.publish(object('a'), failed));

      expect(next).toBe('resolved');
      // The retry went as soon as the publish came, with both occurrences.
      const patches = server.requestsFor('PATCH');
      expect(patches[1] && patchCount(patches[1])).toBe(3);
      await recorder.flush();
      await server.waitForFinished(); // the slow write, if any, has landed; it must not change the count
      expect(countOf('a')).toBe(3);
      expect(eventsAbout('a')).toHaveLength(1);
      const history = server.countHistory('default', eventsAbout('a')[0].metadata.name);
      expect(history).toEqual([...history].sort((x, y) => x - y));
    });
  });

  describe('server errors and throttling', () => {
    it('keeps the backoff of a 5xx: a new publish does not cut it short', async () => {
      const clock = new FakeClock();
      const recorder = recorderWith({ timeout: 3_000, clock });
      expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');
      server.failNext(500, 'PATCH');
      const first = settle(recorder.publish(object('a'), failed));
      await server.waitForRequests(1, (request) => request.method === 'PATCH' && request.status === 500);
      const second = settle(recorder.publish(object('a'), failed));

      // The retry goes once its backoff (200 ms and up to half of it more) has passed on the recorder's clock.
      const retriedAt = await advanceUntilSeen(clock, () => server.requestsFor('PATCH').length === 2, {
        stepMs: 10,
        limitMs: 310,
      });
      expect(retriedAt).toBeGreaterThanOrEqual(200);
      expect(await Promise.all([first, second])).toEqual(['resolved', 'resolved']);
      expect(countOf('a')).toBe(3);
    });

    it('spreads the retries of series told to wait the same Retry-After above it, not all in one millisecond', async () => {
      const clock = new FakeClock();
      // How far ahead the recorder sets each timer of one to two seconds: the retries' (its deadlines are 5 s away).
      const retryDelays: number[] = [];
      const setTimer = clock.setTimer.bind(clock);
      jest.spyOn(clock, 'setTimer').mockImplementation((ms: number, fire: () => void) => {
        if (ms >= 1_000 && ms < 2_000) retryDelays.push(ms);
        return setTimer(ms, fire);
      });
      const recorder = recorderWith({ timeout: 5_000, clock });
      const names = Array.from({ length: 12 }, (_, i) => `throttled-${i}`);
      server.failNextTimes(names.length, 429, 'POST', { retryAfterSeconds: 1 });

      const publishes = Promise.all(names.map((name) => settle(recorder.publish(object(name), failed))));
      // The first 429s lower the recorder-wide rate: the creates after them go out a little later, and are refused too.
      await server.waitForRequests(1, (request) => request.status === 429);
      const retried = (request: RecordedRequest) => request.method === 'POST' && request.status === 201;
      const firstRetryAt = await advanceUntilSeen(clock, () => server.requestsFor(retried).length > 0, {
        stepMs: 10,
        limitMs: 1_600,
      });
      await advanceUntilSeen(clock, () => server.requestsFor(retried).length === names.length, {
        stepMs: 10,
        limitMs: 2_500,
      });
      const results = await publishes;

      expect(results.every((result) => result === 'resolved')).toBe(true);
      // None before the Retry-After, and not all after the same wait: spread over more than 50 ms above it.
      expect(firstRetryAt).toBeGreaterThanOrEqual(1_000);
      expect(retryDelays).toHaveLength(names.length);
      expect(Math.min(...retryDelays)).toBeGreaterThanOrEqual(1_000);
      expect(Math.max(...retryDelays) - Math.min(...retryDelays)).toBeGreaterThan(50);
    });
  });

  it('creates again when a create is refused as existing and the read finds nothing', async () => {
    const recorder = recorderWith({ timeout: 2_000 });
    server.failNext(409, 'POST', 'AlreadyExists');

    expect(await settle(recorder.publish(object('a'), failed))).toBe('resolved');

    expect(server.verbs()).toEqual(['create', 'get', 'create']);
    expect(eventsAbout('a')).toHaveLength(1);
    expect(countOf('a')).toBe(1);
  });
});
