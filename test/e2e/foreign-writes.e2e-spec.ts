// Someone else writes the series' Event between two publishes (here kubectl;
// in a cluster, another replica of the controller or a person). Every series
// patch of the recorder carries the resourceVersion it last saw as a
// precondition, so its next patch is answered 409 Conflict; it then reads the
// Event and writes what the server holds plus what it carries. Nothing is
// lost, nothing is counted twice, and there is still one Event. Each test has
// a fresh namespace, removed afterwards.
//
// The real server shows no requests; the recorder's calls to client-node's
// EventsV1Api are watched instead (a spy that passes every call through and
// notes the answer), and the Event is read back through the API.
import { jest } from '@jest/globals';
import { ApiException, EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import type { KubeEvent, PublishOutcome } from 'nestjs-kube-events';
import { type ControlPlane, sharedControlPlane } from '../support/control-plane.js';
import { Scratch } from './support/library-fixtures.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

/** Now as a MicroTime: RFC 3339 with exactly six fractional digits, which the API server requires. */
const microTimeNow = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** One call the recorder made through client-node: what it sent, and the status of the answer. */
interface SeenCall {
  readonly verb: 'PATCH' | 'GET';
  readonly name: string;
  /** `metadata.resourceVersion` of a patch body: its precondition. */
  readonly resourceVersion?: string;
  /** `series.count` of a patch body. */
  readonly count?: number;
  readonly status: number;
}

/** Watches the patches and reads sent through every EventsV1Api (the recorder's included) until restored. */
function watchEventCalls(): SeenCall[] {
  const seen: SeenCall[] = [];
  const status = (error: unknown) => (error instanceof ApiException ? error.code : -1);
  const patch = EventsV1Api.prototype.patchNamespacedEvent;
  jest.spyOn(EventsV1Api.prototype, 'patchNamespacedEvent').mockImplementation(async function (this: EventsV1Api, param, options) {
    const body = param.body as { metadata?: { resourceVersion?: string }; series?: { count?: number } };
    const call = { verb: 'PATCH' as const, name: param.name, resourceVersion: body.metadata?.resourceVersion, count: body.series?.count };
    try {
      const answer = await patch.call(this, param, options);
      seen.push({ ...call, status: 200 });
      return answer;
    } catch (error) {
      seen.push({ ...call, status: status(error) });
      throw error;
    }
  });
  const read = EventsV1Api.prototype.readNamespacedEvent;
  jest.spyOn(EventsV1Api.prototype, 'readNamespacedEvent').mockImplementation(async function (this: EventsV1Api, param, options) {
    try {
      const answer = await read.call(this, param, options);
      seen.push({ verb: 'GET', name: param.name, status: 200 });
      return answer;
    } catch (error) {
      seen.push({ verb: 'GET', name: param.name, status: status(error) });
      throw error;
    }
  });
  return seen;
}

describe('a series whose Event someone else wrote between two publishes', () => {
  let cp: ControlPlane;
  let scratch: Scratch;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'foreign-writes-e2e');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await scratch?.cleanup();
  });

  /** Three publishes: one Event, series.count 3, as read back. */
  async function seriesOfThree() {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const outcomes: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    for (let i = 0; i < 3; i++) await recorder.publish(cm, failed);
    const [event, ...others] = await scratch.allEvents();
    expect(others).toHaveLength(0);
    expect(event.series?.count).toBe(3);
    return { cm, recorder, outcomes, event };
  }

  /** `kubectl patch` of the Event (JSON merge patch), as another writer would; returns it as the server holds it then. */
  async function kubectlPatch(event: EventsV1Event, patch: unknown) {
    const name = event.metadata!.name!;
    const args = ['patch', 'events.v1.events.k8s.io', name, '-n', scratch.namespace, '--type', 'merge', '-p', JSON.stringify(patch)];
    return cp.kubectl(args);
  }

  it('counts on from a count raised by someone else: 3, kubectl sets 10, the next publish writes 11 after a 409 Conflict', async () => {
    const { cm, recorder, outcomes, event } = await seriesOfThree();
    const patched = await kubectlPatch(event, { series: { count: 10, lastObservedTime: microTimeNow() } });
    expect({ code: patched.code, stderr: patched.stderr }).toEqual({ code: 0, stderr: '' });
    const foreign = (await scratch.readEvent(event.metadata!.name!))!;
    expect(foreign.series?.count).toBe(10);
    expect(foreign.metadata!.resourceVersion).not.toBe(event.metadata!.resourceVersion);

    const seen = watchEventCalls();
    await recorder.publish(cm, failed);
    jest.restoreAllMocks();

    // Its patch (4, on the Event as it last saw it) was refused; it read the Event and wrote 10 + 1.
    const name = event.metadata!.name!;
    expect(seen).toEqual([
      { verb: 'PATCH', name, resourceVersion: event.metadata!.resourceVersion, count: 4, status: 409 },
      { verb: 'GET', name, status: 200 },
      { verb: 'PATCH', name, resourceVersion: foreign.metadata!.resourceVersion, count: 11, status: 200 },
    ]);
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.count}`)).toEqual(['created 1', 'patched 2', 'patched 3', 'patched 11']);
    const events = await scratch.allEvents();
    expect(events.map((e) => [e.metadata?.name, e.series?.count])).toEqual([[name, 11]]);

    // And the series goes on from there, without another conflict.
    await recorder.publish(cm, failed);
    expect((await scratch.allEvents()).map((e) => [e.metadata?.name, e.series?.count])).toEqual([[name, 12]]);
  });

  // The API server refuses a series.count below 2 ("should be at least 2"): an Event
  // counted once has no series. So someone setting the count back to 1 removes the
  // series. The recorder counts from what the server holds, not from what it wrote
  // before: it writes 1 + 1 = 2, and does not restore its 3 (nor write 4).
  it('counts on from a count lowered by someone else: 3, kubectl removes the series (count 1), the next publish writes 2', async () => {
    const { cm, recorder, outcomes, event } = await seriesOfThree();
    const refused = await kubectlPatch(event, { series: { count: 1, lastObservedTime: microTimeNow() } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/series\.count.*should be at least 2/);
    const patched = await kubectlPatch(event, { series: null });
    expect({ code: patched.code, stderr: patched.stderr }).toEqual({ code: 0, stderr: '' });
    const foreign = (await scratch.readEvent(event.metadata!.name!))!;
    expect(foreign.series).toBeUndefined();

    const seen = watchEventCalls();
    await recorder.publish(cm, failed);
    jest.restoreAllMocks();

    const name = event.metadata!.name!;
    expect(seen).toEqual([
      { verb: 'PATCH', name, resourceVersion: event.metadata!.resourceVersion, count: 4, status: 409 },
      { verb: 'GET', name, status: 200 },
      { verb: 'PATCH', name, resourceVersion: foreign.metadata!.resourceVersion, count: 2, status: 200 },
    ]);
    expect(outcomes.at(-1)).toMatchObject({ kind: 'patched', count: 2, eventName: name });
    const events = await scratch.allEvents();
    expect(events.map((e) => [e.metadata?.name, e.series?.count])).toEqual([[name, 2]]);
  });
});
