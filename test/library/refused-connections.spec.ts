// While nothing listens on the API server's port, no publish waits out its timeout (SPEC §8): each is rejected
// at once as queued, and a probe that is refused settles at once too; what was queued is written once it is back.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PublishTimeoutError, PublishUnreachableError, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { settle, type Settled } from '../support/settled.js';

const ROUNDS = 20;
const CONCURRENT = 1_000;

/** How many of `results` settled each way: `resolved`, or the error's class name. */
const tally = (results: readonly Settled[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const kind = result === 'resolved' ? 'resolved' : result.constructor.name;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
};

describe('publishes while the API server refuses connections', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  beforeEach(async () => {
    server = await FakeApiServer.start({ refusable: true });
  });
  afterEach(async () => {
    await server.listenAgain();
    await shutDown();
    await server.close();
  }, 30_000);

  /** `rounds` rounds of {@link CONCURRENT} publishes at once about `objectOf(i)`, each round once the one before settled. */
  const publishInRounds = async (
    objectOf: (i: number) => KubernetesObject,
    options: Partial<KubeEventsModuleOptions> = {},
    rounds = ROUNDS,
  ): Promise<Settled[]> => {
    const recorder = recorderWith(options);
    const results: Settled[] = [];
    for (let round = 0; round < rounds; round++) {
      const publishes = Array.from({ length: CONCURRENT }, (_, i) => settle(recorder.publish(objectOf(i), syncFailed)));
      results.push(...(await Promise.all(publishes)));
    }
    return results;
  };

  const expectAllRejectedQueued = (results: readonly Settled[], rounds = ROUNDS) => {
    expect(tally(results)).toEqual({ PublishUnreachableError: rounds * CONCURRENT });
    for (const result of results) {
      expect(result).toBeInstanceOf(PublishUnreachableError);
      expect(result).not.toBeInstanceOf(PublishTimeoutError);
      expect(result).toMatchObject({ queued: true });
    }
  };

  it('rejects every one of 20 rounds of 1,000 concurrent publishes about one object as queued, none by its timeout', async () => {
    await server.stopListening();
    expectAllRejectedQueued(await publishInRounds(() => configMap('one-object')));
  }, 60_000);

  it('rejects every one of 20 rounds of 1,000 concurrent publishes about 1,000 objects as queued, none by its timeout', async () => {
    await server.stopListening();
    expectAllRejectedQueued(await publishInRounds((i) => configMap(`object-${i}`)));
  }, 60_000);

  it('rejects as queued the publishes waiting for the recorder-wide budget once the server is found refusing', async () => {
    await server.stopListening();
    // 990 of the first round's writes wait in line for the budget (ten a second): none waits for its turn.
    const results = await publishInRounds((i) => configMap(`object-${i}`), { writeControl: { qps: 10, burst: 10 } }, 2);
    expectAllRejectedQueued(results, 2);
  }, 60_000);

  it('writes what was queued once the server listens again: one Event counting every publish', async () => {
    const recorder = recorderWith();
    await server.stopListening();
    const during = await Promise.all(
      Array.from({ length: CONCURRENT }, () => settle(recorder.publish(configMap('queued'), syncFailed))),
    );
    expect(tally(during)).toEqual({ PublishUnreachableError: CONCURRENT });

    await server.listenAgain();
    // A publish a probe interval after the last attempt tries the server itself, and resolves.
    const afterwards: Settled[] = [];
    while (afterwards.at(-1) !== 'resolved' && afterwards.length < 50) {
      // Real time: the server listens again on a real socket; the 1,000-publish rounds above rely on the real timeout.
      if (afterwards.length) await sleep(100);
      afterwards.push(await settle(recorder.publish(configMap('queued'), syncFailed)));
    }
    expect(afterwards.at(-1)).toBe('resolved');
    for (const result of afterwards.slice(0, -1)) expect(result).toMatchObject({ queued: true });
    await recorder.flush();
    const events = server.events().filter((event) => event.regarding.name === 'queued');
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(CONCURRENT + afterwards.length);
  }, 30_000);
});
