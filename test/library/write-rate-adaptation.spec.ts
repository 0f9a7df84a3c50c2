import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { PublishApiError, PublishError, type PublishOutcome } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap, reconcileFailed } from '../support/objects.js';

/** Objects that each publish one failure, two every 10 ms: four times what the server admits. */
const OBJECTS = 300;
const ADMITTED_PER_SECOND = 50;

describe('write rate under throttling', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  beforeEach(async () => {
    muteLogger('warn');
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await shutDown();
    await server.close();
    jest.restoreAllMocks();
  });

  it('slows the whole recorder down to what the server admits: few 429s, each reported, nothing lost', async () => {
    server.admitPerSecond(ADMITTED_PER_SECOND);
    const recorder = recorderWith({ timeout: 30_000 });
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    const settled: Promise<string>[] = [];
    for (let i = 0; i < OBJECTS; i++) {
      settled.push(
        recorder.publish(configMap(`o-${i}`), reconcileFailed).then(
          () => 'written',
          (error: unknown) => (error instanceof PublishError ? `rejected, queued: ${error.queued}` : String(error)),
        ),
      );
      if (i % 2) await sleep(10); // real time: the server admits so many writes per real second
    }
    expect(new Set(await Promise.all(settled))).toEqual(new Set(['written']));

    const rejected = server.requestsFor((request) => request.status === 429);
    const reported = outcomes.filter(
      (outcome) =>
        outcome.kind === 'failed' && outcome.error instanceof PublishApiError && outcome.error.statusCode === 429,
    );
    if (process.env.KUBE_EVENTS_REPORT) console.log(JSON.stringify({ rejected: rejected.length }));
    // The server did throttle, every rejection reached outcomes$, and the recorder soon kept to the admitted rate.
    expect(rejected.length).toBeGreaterThan(0);
    expect(reported).toHaveLength(rejected.length);
    expect(rejected.length).toBeLessThanOrEqual(OBJECTS / 3);
    expect(server.events()).toHaveLength(OBJECTS);
  }, 60_000);
});
