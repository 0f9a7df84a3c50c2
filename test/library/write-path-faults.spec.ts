import { PublishApiError, PublishError, PublishTimeoutError, type PublishOutcome } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { filter, firstValueFrom } from 'rxjs';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { settle, type Settled } from '../support/settled.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { advanceUntilSeen } from '../support/fake-time.js';
import { flush } from '../support/flush.js';

/**
 * The write path under the faults a network and an API server can produce
 * (README, "When a publish resolves": settling, idempotent writes, timeouts). Each test
 * asserts what the server holds in the end: one Event per series, a count
 * history that never goes backwards, and a final count equal to every
 * occurrence that resolved or was reported queued. No timing is asserted
 * beyond "no sooner than Retry-After" (and "promptly" for an unreachable
 * server, which a caller in a reconcile loop needs).
 */

const failed = syncFailed;
const object = configMap;

/** Occurrences the caller was told are (or will be) on the server: resolved, or rejected with `queued: true`. */
const counted = (results: readonly Settled[]): number =>
  results.filter((result) => result === 'resolved' || result.queued).length;

const patchCount = (request: RecordedRequest): number | undefined =>
  (request.body as { series?: { count?: number } } | undefined)?.series?.count;

describe('write path under faults', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  /** Until `probe` holds, asked as each request comes or changes; fails with the server's request log after `timeoutMs`. */
  const until = (probe: () => boolean, what: string, timeoutMs = 5_000): Promise<void> =>
    server.waitFor(probe, what, timeoutMs);

  const eventsAbout = (name: string) => server.events().filter((event) => event.regarding.name === name);

  /** Two publishes of one series, the second write answered 429 with `Retry-After`: what each publish settled with. */
  const publishThrottled = async (
    name: string,
    { timeout, retryAfterSeconds }: { timeout: number; retryAfterSeconds: number },
  ) => {
    const recorder = recorderWith({ timeout });
    const results: Settled[] = [await settle(recorder.publish(object(name), failed))];
    server.failNext(429, 'PATCH', { retryAfterSeconds });
    results.push(await settle(recorder.publish(object(name), failed)));
    return { recorder, results };
  };

  /** The server holds exactly one Event about `name`, whose count never went backwards and ends at `count`. */
  const expectOneEvent = (name: string, count: number) => {
    const events = eventsAbout(name);
    expect({ events: events.length, log: server.log() }).toEqual({ events: 1, log: expect.anything() });
    const [event] = events;
    const history = server.countHistory(event.metadata.namespace, event.metadata.name);
    expect(history).toEqual([...history].sort((a, b) => a - b));
    expect({ count: event.series?.count ?? 1, history }).toEqual({ count, history: expect.anything() });
  };

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await shutDown();
    await server.close();
  });

  it('1. a create applied late: the publish times out queued, the retried create finds it, one Event with the exact count', async () => {
    const recorder = recorderWith({ timeout: 300 });
    const name = 'late-create';
    server.delayNext(400, 'POST', { applyIfAborted: true });
    const results: Settled[] = [await settle(recorder.publish(object(name), failed))];
    expect(results[0]).toBeInstanceOf(PublishTimeoutError);
    expect(results[0]).toMatchObject({ queued: true });

    // The late create lands after the client gave up; the retry must not make a second Event.
    await until(() => server.requestsFor('POST')[0]?.status !== undefined, 'answer to the late create');
    await recorder.flush();
    results.push(await settle(recorder.publish(object(name), failed)));

    expect(results).toEqual([expect.any(PublishTimeoutError), 'resolved']);
    const creates = server.requestsFor('POST');
    expect(new Set(creates.map((request) => (request.body as { metadata: { name: string } }).metadata.name)).size).toBe(
      1,
    );
    expectOneEvent(name, counted(results));
    expect(counted(results)).toBe(2);
  });

  it('2. a patch applied late, after later patches: the count never goes backwards', async () => {
    const recorder = recorderWith({ timeout: 1_000 });
    const name = 'late-patch';
    const results: Settled[] = [await settle(recorder.publish(object(name), failed))];
    server.delayNext(2_500, 'PATCH', { applyIfAborted: true }); // PATCH 2, answered (and applied) long after the timeout
    results.push(await settle(recorder.publish(object(name), failed)));
    expect(results[1]).toBeInstanceOf(PublishTimeoutError);
    expect(results[1]).toMatchObject({ queued: true });

    // Later publishes carry on (counts 3, 4, 5) while the late PATCH 2 is still on its way.
    for (let i = 0; i < 3; i++) results.push(await settle(recorder.publish(object(name), failed)));
    const late = server.requests.find((request) => request.delayedMs !== undefined)!;
    await until(() => late.status !== undefined, 'answer to the late patch', 5_000);
    results.push(await settle(recorder.publish(object(name), failed)));
    await recorder.flush();

    expect(results.every((result) => result === 'resolved' || result.queued)).toBe(true);
    expectOneEvent(name, counted(results));
    expect(counted(results)).toBe(6);
  }, 10_000);

  it.each(['POST', 'PATCH'])(
    '3. an answer lost after the server applied the %s: no duplicate Event, no double count',
    async (method) => {
      const recorder = recorderWith();
      const name = `lost-${method.toLowerCase()}`;
      const results: Settled[] = [];
      if (method === 'PATCH') results.push(await settle(recorder.publish(object(name), failed)));
      server.loseAnswerNext(method);
      results.push(await settle(recorder.publish(object(name), failed)));
      const lost = server.requests.find((request) => request.answerCut === 'reset')!;
      expect(lost.applied).toBeDefined();

      await recorder.flush();
      results.push(await settle(recorder.publish(object(name), failed)));
      results.push(await settle(recorder.publish(object(name), failed)));

      expect(results.every((result) => result === 'resolved' || result.queued)).toBe(true);
      expectOneEvent(name, counted(results));
      expect(counted(results)).toBe(results.length);
    },
  );

  it.each([
    ['POST', 'full'],
    ['POST', 'sent'],
    ['PATCH', 'full'],
    ['PATCH', 'sent'],
  ] as const)(
    '4. a truncated 2xx body on %s (Content-Length %s): not "unreachable", no duplicate, exact count',
    async (method, contentLength) => {
      const recorder = recorderWith();
      const outcomes: PublishOutcome[] = [];
      recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
      const name = `cut-${method.toLowerCase()}-${contentLength}`;
      const results: Settled[] = [];
      if (method === 'PATCH') results.push(await settle(recorder.publish(object(name), failed)));
      server.truncateAnswerNext(method, { contentLength });
      results.push(await settle(recorder.publish(object(name), failed)));
      results.push(await settle(recorder.publish(object(name), failed)));

      const cut = server.requests.find((request) => request.answerCut === 'truncated')!;
      expect(cut.applied).toBeDefined();
      // The server answered: the write may have applied, the server was reached.
      const errors = outcomes.filter((outcome) => outcome.kind === 'failed').map((outcome) => outcome.error);
      expect(errors).toEqual([
        expect.objectContaining({ statusCode: method === 'POST' ? 201 : 200, mayHaveApplied: true }),
      ]);
      for (const error of errors) expect(error?.message).not.toMatch(/could not be reached|unreachable/i);
      expect(results.every((result) => result === 'resolved')).toBe(true);
      expectOneEvent(name, results.length);
    },
  );

  it('5. 429 with Retry-After: 1: the next write of the series waits for it, and the publish resolves', async () => {
    const name = 'throttled';
    const clock = new FakeClock();
    const recorder = recorderWith({ timeout: 3_000, clock });
    const results: Settled[] = [await settle(recorder.publish(object(name), failed))];
    server.failNext(429, 'PATCH', { retryAfterSeconds: 1 });
    const throttled = settle(recorder.publish(object(name), failed));
    await server.waitForRequests(1, (request) => request.method === 'PATCH' && request.status === 429);

    // Retried once the second has passed on the recorder's clock, and no sooner (the jitter adds up to half of it).
    const retriedAt = await advanceUntilSeen(clock, () => server.requestsFor('PATCH').length === 2, {
      stepMs: 50,
      limitMs: 1_550,
    });
    expect(retriedAt).toBeGreaterThanOrEqual(1_000);
    results.push(await throttled);

    expect(results).toEqual(['resolved', 'resolved']);
    const patches = server.requestsFor('PATCH');
    expect(patches.map((request) => request.status)).toEqual([429, 200]);
    expectOneEvent(name, 2);
  });

  it('6. 503s during flush(): flush retries, and the server counts every publish that resolved or was queued', async () => {
    // One write per object, then everything folds and waits (up to a minute) for flush().
    const recorder = recorderWith({
      timeout: 2_000,
      writeControl: { objectBurst: 1, objectRefillMs: 3_600_000, maxDelay: 60_000 },
    });
    const name = 'flush-503';
    const publishes = Array.from({ length: 30 }, () => settle(recorder.publish(object(name), failed)));
    expect(await publishes[0]).toBe('resolved');
    expect(server.seriesWrites()).toEqual(['POST']);

    server.failNextTimes(3, 503, 'PATCH');
    await recorder.flush();
    const results = await Promise.all(publishes);

    expect(server.seriesWrites()).toEqual(['POST', 'PATCH 30', 'PATCH 30', 'PATCH 30', 'PATCH 30']);
    expect(results.every((result) => result === 'resolved' || result.queued)).toBe(true);
    expectOneEvent(name, counted(results));
    expect(counted(results)).toBe(30);
  }, 10_000);

  it('7. concurrent identical publishes: one Event, no count sent twice', async () => {
    const recorder = recorderWith();
    const name = 'concurrent';
    const results = await Promise.all(Array.from({ length: 50 }, () => settle(recorder.publish(object(name), failed))));
    // A second wave, arriving one by one while writes are in flight (some of them slow).
    server.delayNext(50, 'PATCH');
    const wave: Promise<Settled>[] = [];
    for (let i = 0; i < 50; i++) {
      wave.push(settle(recorder.publish(object(name), failed)));
      await flush();
    }
    results.push(...(await Promise.all(wave)));

    expect(results.every((result) => result === 'resolved')).toBe(true);
    expect(server.requestsFor('POST')).toHaveLength(1);
    const answered = server
      .requestsFor('PATCH')
      .filter((request) => request.status === 200)
      .map(patchCount);
    expect(answered).toEqual([...new Set(answered)]);
    expectOneEvent(name, 100);
  });

  it('8. an outage longer than three retries: publishes reject at once, queued; afterwards the queue is written unprompted', async () => {
    const timeout = 1_000;
    const recorder = recorderWith({ timeout });
    const results = new Map<string, Settled[]>([
      ['outage-a', [await settle(recorder.publish(object('outage-a'), failed))]],
      ['outage-b', []],
    ]);

    server.outage(4_000); // every request's connection is reset
    for (const name of ['outage-a', 'outage-a', 'outage-b', 'outage-a']) {
      const started = Date.now();
      const result = await settle(recorder.publish(object(name), failed));
      const elapsed = Date.now() - started;
      expect(result).toBeInstanceOf(PublishApiError);
      expect(result).not.toBeInstanceOf(PublishTimeoutError);
      expect(result).toMatchObject({ queued: true, message: expect.stringMatching(/unreachable since/) });
      // It names the cause: the connection was reset, or closed by the other side.
      expect((result as PublishError).message).toMatch(/ECONNRESET|socket|closed|reset|terminated/i);
      expect(elapsed).toBeLessThan(timeout / 2);
      results.get(name)!.push(result);
    }
    expect(eventsAbout('outage-b')).toHaveLength(0);

    // No new publish: the queued occurrences are written once the server answers again.
    const expected = (name: string) => counted(results.get(name)!);
    await until(
      () =>
        server.seriesCount('default', eventsAbout('outage-a')[0]?.metadata.name ?? '') === expected('outage-a') &&
        eventsAbout('outage-b').length === 1,
      'queued occurrences written after the outage',
      15_000,
    );
    expectOneEvent('outage-a', 4);
    expectOneEvent('outage-b', 1);
    expect(expected('outage-a')).toBe(4);
    expect(expected('outage-b')).toBe(1);
  }, 25_000);

  it('9. a Retry-After longer than the timeout: the publish times out queued, the retry waits for it, the occurrence lands', async () => {
    const name = 'throttled-long';
    const clock = new FakeClock();
    const recorder = recorderWith({ timeout: 500, clock });
    const results: Settled[] = [await settle(recorder.publish(object(name), failed))];
    server.failNext(429, 'PATCH', { retryAfterSeconds: 2 });
    const refused = firstValueFrom(recorder.outcomes$.pipe(filter((outcome) => outcome.kind === 'failed')));
    const throttled = settle(recorder.publish(object(name), failed));
    // The recorder has the 429 (its publish then times out with it as the cause), then its timeout passes.
    await refused;
    await clock.advance(500);
    results.push(await throttled);

    expect(results[1]).toBeInstanceOf(PublishTimeoutError);
    expect(results[1]).toMatchObject({ queued: true, cause: expect.objectContaining({ statusCode: 429 }) });
    const retriedAt = await advanceUntilSeen(clock, () => server.requestsFor('PATCH').length === 2, {
      stepMs: 50,
      limitMs: 2_600,
    });
    expect(retriedAt).toBeGreaterThanOrEqual(2_000);
    await until(
      () => server.seriesCount('default', eventsAbout(name)[0]?.metadata.name ?? '') === 2,
      'the throttled occurrence on the server',
    );
    expectOneEvent(name, counted(results));
    expect(counted(results)).toBe(2);
  }, 10_000);

  it('10. the end of an outage does not cut a Retry-After short: the throttled series still waits for it', async () => {
    const name = 'throttled-through-outage';
    const { recorder, results } = await publishThrottled(name, { timeout: 500, retryAfterSeconds: 3 });
    expect(results[1]).toMatchObject({ queued: true, cause: expect.objectContaining({ statusCode: 429 }) });

    // Meanwhile another series meets an outage: the server answering it again ends the recorder's backoffs.
    server.outage(300);
    expect(await settle(recorder.publish(object('unreachable-meanwhile'), failed))).toMatchObject({ queued: true });
    await until(
      () => eventsAbout('unreachable-meanwhile').length === 1,
      'the other series written after the outage',
      5_000,
    );

    const patches = await server.waitForRequests(2, 'PATCH', 6_000);
    expect(patches[1].receivedAt.getTime() - patches[0].receivedAt.getTime()).toBeGreaterThanOrEqual(2_950);
    await until(
      () => server.seriesCount('default', eventsAbout(name)[0]?.metadata.name ?? '') === 2,
      'the throttled occurrence on the server',
    );
    expectOneEvent(name, counted(results));
  }, 15_000);
});
