// Several writers of one series (replicas during a failover, shards while an object moves, active-active
// replicas) leave one Event whose count is every occurrence that resolved; their contention is retried with
// jitter within the timeout, never rejected while the server answers (SPEC §5, "Writes are idempotent").
import { jest } from '@jest/globals';
import { SERIES_ENDED_ANNOTATION, type EventRecorder } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { eventually } from '../support/eventually.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { settle, type Settled } from '../support/settled.js';
import { moveWallClock } from '../support/wall-clock.js';

const REPLICAS = 3;
const PUBLISHES_PER_REPLICA = 60;
const object = configMap('shared');

describe('replicas that share one Event', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    jest.useRealTimers();
    await shutDown();
    await server.close();
  });

  /** A replica of the controller: its own instance, continuing the series others left (`resumeSeries`). */
  const replica = (instance: string): EventRecorder =>
    recorderWith({
      reporter: { controller: 'widgets', instance },
      resumeSeries: true,
      // Budgets that never fold: every publish is a write of its own, so the replicas' writes meet all the time.
      writeControl: { objectBurst: 100_000, burst: 100_000, qps: 100_000 },
    });

  /** `count` publishes one after the other, as a reconcile loop that fails each time. */
  const failRepeatedly = async (recorder: EventRecorder, count: number): Promise<Settled[]> => {
    const results: Settled[] = [];
    for (let i = 0; i < count; i++) results.push(await settle(recorder.publish(object, syncFailed)));
    return results;
  };

  /** A success of `recorder` ends the series: once its Event says so, no replica continues it. */
  const endSeries = async (recorder: EventRecorder) => {
    recorder.forget(object);
    const [ended] = server.events();
    await eventually('the Event marked ended', () =>
      Boolean(
        server.event(ended.metadata.namespace, ended.metadata.name)?.metadata.annotations?.[SERIES_ENDED_ANNOTATION],
      ),
    );
  };

  const theEvent = () => {
    const events = server.events().filter((event) => event.regarding.name === 'shared');
    expect(events).toHaveLength(1);
    const [event] = events;
    const history = server.countHistory(event.metadata.namespace, event.metadata.name);
    expect(history).toEqual([...history].sort((a, b) => a - b));
    return event;
  };

  it('counts every publish of three replicas writing the same series at once, and rejects none', async () => {
    const replicas = Array.from({ length: REPLICAS }, (_, i) => replica(`widgets-${i}`));
    expect(await settle(replicas[0].publish(object, syncFailed))).toBe('resolved');

    const results = (
      await Promise.all(replicas.map((recorder) => failRepeatedly(recorder, PUBLISHES_PER_REPLICA)))
    ).flat();

    expect(results.filter((result) => result !== 'resolved')).toEqual([]);
    // They did meet: patches refused as the Event had changed under them.
    expect(server.requestsFor((request) => request.verb === 'patch' && request.status === 409).length).toBeGreaterThan(
      0,
    );
    expect(theEvent().series?.count).toBe(1 + REPLICAS * PUBLISHES_PER_REPLICA);
  }, 60_000);

  it('starts one Event when replicas begin the series at the same moment, each finding none to resume', async () => {
    const replicas = Array.from({ length: REPLICAS }, (_, i) => replica(`widgets-${i}`));

    const results = (await Promise.all(replicas.map((recorder) => failRepeatedly(recorder, 10)))).flat();

    expect(results.filter((result) => result !== 'resolved')).toEqual([]);
    // They did start it together: creates refused as the Event another replica made under the same name was there.
    expect(server.requestsFor((request) => request.verb === 'create' && request.status === 409).length).toBeGreaterThan(
      0,
    );
    expect(theEvent().series?.count).toBe(REPLICAS * 10);
  }, 30_000);

  it("starts an Event of its own when the one under the series' name counted nothing within the window", async () => {
    const window = 1_000;
    const clock = new FakeClock();
    const recorder = recorderWith({
      reporter: { controller: 'widgets', instance: 'widgets-a' },
      resumeSeries: true,
      seriesWindow: window,
      clock,
    });
    expect(await settle(recorder.publish(object, syncFailed))).toBe('resolved');
    // The window passes for the recorder (its clock) and for the Event on the server (the wall clock it was written at).
    await clock.advance(window + 200);
    moveWallClock(window + 200);

    expect(await settle(recorder.publish(object, syncFailed))).toBe('resolved');

    const events = server.events().filter((event) => event.regarding.name === 'shared');
    expect(events.map((event) => event.series?.count ?? 1)).toEqual([1, 1]);
  }, 30_000);

  it('starts an Event of its own when the series starts again after it was ended, in the same window', async () => {
    const [first, second] = [replica('widgets-a'), replica('widgets-b')];
    expect(await failRepeatedly(first, 3)).toEqual(['resolved', 'resolved', 'resolved']);
    await endSeries(first);

    expect(await failRepeatedly(second, 2)).toEqual(['resolved', 'resolved']);

    const events = server.events().filter((event) => event.regarding.name === 'shared');
    expect(events.map((event) => event.series?.count ?? 1).sort()).toEqual([2, 3]);
  }, 30_000);

  it('meets on one new Event when replicas start the series again at once after it was ended', async () => {
    const [first, second, third] = [replica('widgets-a'), replica('widgets-b'), replica('widgets-c')];
    expect(await failRepeatedly(first, 3)).toEqual(['resolved', 'resolved', 'resolved']);
    await endSeries(first);

    const results = (await Promise.all([failRepeatedly(second, 5), failRepeatedly(third, 5)])).flat();

    expect(results.filter((result) => result !== 'resolved')).toEqual([]);
    const events = server.events().filter((event) => event.regarding.name === 'shared');
    expect(events.map((event) => event.series?.count ?? 1).sort((a, b) => a - b)).toEqual([3, 10]);
  }, 30_000);

  it('counts every publish across a failover: one replica stops, another continues its Event', async () => {
    const [first, second] = [replica('widgets-a'), replica('widgets-b')];
    const before = await failRepeatedly(first, 10);
    await first.onApplicationShutdown();
    const after = await failRepeatedly(second, 10);

    expect([...before, ...after].filter((result) => result !== 'resolved')).toEqual([]);
    expect(theEvent().series?.count).toBe(20);
  }, 30_000);

  it('counts every publish while an object moves between shards that both still publish about it', async () => {
    const [owner, next] = [replica('widgets-shard-0'), replica('widgets-shard-1')];
    const early = await failRepeatedly(owner, 5);
    // The move: for a while both reconcile the object, then the old owner lets go.
    const overlapping = (await Promise.all([failRepeatedly(owner, 20), failRepeatedly(next, 20)])).flat();
    const late = await failRepeatedly(next, 5);

    expect([...early, ...overlapping, ...late].filter((result) => result !== 'resolved')).toEqual([]);
    expect(theEvent().series?.count).toBe(50);
  }, 30_000);
});
