// What a server answers is bounded by the client, never trusted (SPEC §8): a redirect is not a write, only a 2xx
// holding the Event written counts as written, Retry-After is honoured up to a cap, no timer is set past what
// Node.js holds, and what the recorder keeps of an answer is bounded.
import { createHook } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { MAX_RETRY_AFTER_MS, PublishApiError, PublishTimeoutError } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { filter, firstValueFrom } from 'rxjs';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { settle } from '../support/settled.js';
import { advanceUntilSeen } from '../support/fake-time.js';

const MB = 1024 * 1024;
const THIRTY_DAYS_S = 2_592_000;
const YEAR_9999 = 'Fri, 31 Dec 9999 23:59:59 GMT';

const preconditionOf = (request: RecordedRequest): unknown =>
  (request.body as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata?.resourceVersion;

/**
 * The `TimeoutOverflowWarning`s Node.js prints while `run` runs, and a little after. Jest gives a test a
 * `process` of its own, which hears none of Node's `'warning'` events; Node prints them on stderr, which is shared.
 */
async function overflowWarnings(run: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).includes('TimeoutOverflowWarning')) warnings.push(String(chunk));
    return write(chunk, ...rest);
  };
  try {
    await run();
    await new Promise(setImmediate); // Node.js emits the warning on the next tick
  } finally {
    process.stderr.write = write;
  }
  return warnings;
}

describe('what the server answers, bounded by the client', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);
  const eventsAbout = (name: string) => server.events().filter((event) => event.regarding.name === name);

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    jest.useRealTimers();
    await shutDown();
    await server.close();
  }, 15_000);

  describe('a redirect', () => {
    let elsewhere: Server;
    let reachedElsewhere: number;
    let location: string;

    beforeEach(async () => {
      reachedElsewhere = 0;
      elsewhere = createServer((_, res) => {
        reachedElsewhere++;
        res.end('{}');
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      location = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/login?token=sha256~NotSentAnywhere1234`;
    });
    afterEach(async () => {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    });

    it.each([302, 307] as const)(
      'answering a create (%i) rejects the publish, follows nothing, writes nothing',
      async (status) => {
        const recorder = recorderWith();
        server.redirectNext(status, location, 'POST');

        const result = await settle(recorder.publish(configMap('redirected'), syncFailed));

        expect(result).toBeInstanceOf(PublishApiError);
        expect(result).toMatchObject({ statusCode: status, queued: false });
        const { message } = result as PublishApiError;
        expect(message).toContain(`answered ${status}, a redirect`);
        expect(message).toContain(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/login`);
        // The query, which may carry a credential, is not quoted.
        expect(message).not.toContain('NotSentAnywhere');
        expect(reachedElsewhere).toBe(0);
        expect(eventsAbout('redirected')).toHaveLength(0);
        expect(server.verbs()).toEqual(['create']);
      },
    );

    it.each([302, 307] as const)(
      'answering a patch (%i) rejects the publish and leaves the series as it was',
      async (status) => {
        const recorder = recorderWith();
        expect(await settle(recorder.publish(configMap('redirected'), syncFailed))).toBe('resolved');
        server.redirectNext(status, location, 'PATCH');

        const result = await settle(recorder.publish(configMap('redirected'), syncFailed));

        expect(result).toBeInstanceOf(PublishApiError);
        expect(result).toMatchObject({ statusCode: status, queued: false });
        expect(reachedElsewhere).toBe(0);
        const [event] = eventsAbout('redirected');
        expect(event.series?.count ?? 1).toBe(1);
        // The series was left as it was: the next repeat counts 2.
        expect(await settle(recorder.publish(configMap('redirected'), syncFailed))).toBe('resolved');
        expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 2']);
        expect(server.seriesCount('default', event.metadata.name)).toBe(2);
      },
    );
  });

  describe('a 2xx answer that does not hold the Event written', () => {
    it.each([
      ['an empty object', () => ({})],
      ['a Status of success', () => ({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 })],
      ['another Event', (request: RecordedRequest) => ({ ...(request.body as object), metadata: { name: 'other' } })],
      [
        'a count that is not one',
        (request: RecordedRequest) => ({ ...(request.body as object), series: { count: -1 } }),
      ],
    ])('is %s: not taken as written; the create is sent again under its name', async (_, body) => {
      const recorder = recorderWith();
      server.respondNext('POST', (request) => ({ status: 201, body: body(request) }));

      expect(await settle(recorder.publish(configMap('answered'), syncFailed))).toBe('resolved');

      const creates = server.requestsFor('POST');
      expect(creates).toHaveLength(2);
      expect(creates[1].rawBody).toBe(creates[0].rawBody);
      expect(eventsAbout('answered')).toHaveLength(1);
    });
  });

  describe('a 2 MB resourceVersion', () => {
    const huge = 'x'.repeat(2 * MB);

    it('in the answer to a create is not kept: the Event is read back, and the next patch carries the real one', async () => {
      const recorder = recorderWith();
      server.respondNext('POST', (request) => ({
        status: 201,
        body: {
          ...(request.body as object),
          metadata: { ...(request.body as { metadata: object }).metadata, resourceVersion: huge },
        },
      }));

      expect(await settle(recorder.publish(configMap('huge-rv'), syncFailed))).toBe('resolved');
      expect(await settle(recorder.publish(configMap('huge-rv'), syncFailed))).toBe('resolved');

      const [event] = eventsAbout('huge-rv');
      expect(event.series?.count).toBe(2);
      const [patch] = server.requestsFor('PATCH');
      expect(preconditionOf(patch)).toEqual(expect.stringMatching(/^\d{1,20}$/));
    });

    it('in the answer to a patch is not kept: the patch goes again, the count stays exact', async () => {
      const recorder = recorderWith();
      expect(await settle(recorder.publish(configMap('huge-rv'), syncFailed))).toBe('resolved');
      server.respondNext('PATCH', (request) => {
        const stored = server.event('default', request.name!)!;
        return { status: 200, body: { ...stored, metadata: { ...stored.metadata, resourceVersion: huge } } };
      });

      expect(await settle(recorder.publish(configMap('huge-rv'), syncFailed))).toBe('resolved');
      expect(await settle(recorder.publish(configMap('huge-rv'), syncFailed))).toBe('resolved');

      const [event] = eventsAbout('huge-rv');
      expect(event.series?.count).toBe(3);
      for (const patch of server.requestsFor('PATCH'))
        expect(preconditionOf(patch)).toEqual(expect.stringMatching(/^\d{1,20}$/));
    });
  });

  describe('Retry-After', () => {
    /** One publish written, then its repeat answered 429 with `retryAfter`: the repeat's rejection. */
    const throttledRepeat = async (retryAfter: { retryAfterSeconds: number } | { retryAfter: string }) => {
      const recorder = recorderWith({ timeout: 500 });
      expect(await settle(recorder.publish(configMap('throttled'), syncFailed))).toBe('resolved');
      server.failNext(429, 'PATCH', retryAfter);
      return { recorder, result: await settle(recorder.publish(configMap('throttled'), syncFailed)) };
    };

    it('is noticed when a timer is set past what Node.js holds (what the tests below rely on)', async () => {
      const warnings = await overflowWarnings(async () => clearTimeout(setTimeout(() => undefined, 2 ** 31)));
      expect(warnings).toHaveLength(1);
    });

    it.each([
      ['30 days in seconds', { retryAfterSeconds: THIRTY_DAYS_S }],
      ['an HTTP-date in year 9999', { retryAfter: YEAR_9999 }],
    ])('of %s is honoured up to the cap, and sets no timer past what Node.js holds', async (_, retryAfter) => {
      let result: unknown;
      const warnings = await overflowWarnings(async () => {
        ({ result } = await throttledRepeat(retryAfter));
      });

      expect(result).toBeInstanceOf(PublishTimeoutError);
      expect(result).toMatchObject({ queued: true, cause: { statusCode: 429, retryAfterMs: MAX_RETRY_AFTER_MS } });
      expect(warnings).toEqual([]);
    });

    it('of 30 days holds the series only until the cap has passed: then its queued repeat and later ones are written', async () => {
      const clock = new FakeClock();
      // A timeout longer than the clock's steps below, so that no write in flight is timed out by a step.
      const timeout = 30_000;
      const recorder = recorderWith({ timeout, clock });
      expect(await settle(recorder.publish(configMap('throttled'), syncFailed))).toBe('resolved');
      server.failNext(429, 'PATCH', { retryAfterSeconds: THIRTY_DAYS_S });
      const throttled = firstValueFrom(recorder.outcomes$.pipe(filter((outcome) => outcome.kind === 'failed')));
      const repeat = settle(recorder.publish(configMap('throttled'), syncFailed));
      await throttled;
      await clock.advance(timeout);
      expect(await repeat).toMatchObject({ queued: true, cause: { statusCode: 429 } });

      // The clock moves on a second at a time, through the cap and the jitter above it (half of it at most),
      // until the throttled write goes again.
      await advanceUntilSeen(clock, () => server.requestsFor('PATCH').length >= 2, {
        stepMs: 1_000,
        limitMs: 1.5 * MAX_RETRY_AFTER_MS,
      });
      const [, retried] = await server.waitForRequests(2, 'PATCH');
      await server.waitForFinished();
      expect(retried.status).toBe(200);

      expect(await settle(recorder.publish(configMap('throttled'), syncFailed))).toBe('resolved');
      expect(server.seriesWrites()).toEqual(['POST', 'PATCH 2', 'PATCH 2', 'PATCH 3']);
      expect(server.seriesCount('default', eventsAbout('throttled')[0].metadata.name)).toBe(3);
    });

    it('of year 9999 on every object written at once leaves the recorder idle meanwhile: no request, no timer set again and again', async () => {
      const recorder = recorderWith({ timeout: 3_000 });
      // As many objects as the recorder has connections, so that every repeat goes out before the first 429
      // answers: later writes would wait for the rate that 429 lowers, and go out slowly rather than be throttled.
      const objects = Array.from({ length: 8 }, (_, i) => configMap(`throttled-${i}`));
      await Promise.all(objects.map((object) => recorder.publish(object, syncFailed)));
      for (const _ of objects) server.failNext(429, 'PATCH', { retryAfter: YEAR_9999 });
      const repeats = await Promise.all(objects.map((object) => settle(recorder.publish(object, syncFailed))));
      for (const repeat of repeats) expect(repeat).toMatchObject({ queued: true, cause: { statusCode: 429 } });

      const requestsBefore = server.requests.length;
      let timersSet = 0;
      const hook = createHook({
        init(_, type) {
          if (type === 'Timeout') timersSet++;
        },
      }).enable();
      await sleep(1_000); // real time: it counts the timers the recorder sets on the real clock meanwhile
      hook.disable();

      expect(server.requests.length - requestsBefore).toBe(0);
      // A few at most (the test's own sleep, a connection's idle timer), where a timer fired at once and set
      // again would be thousands.
      expect(timersSet).toBeLessThan(20);
    }, 20_000);
  });
});
