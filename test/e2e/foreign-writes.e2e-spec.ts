// Someone else writes the series' Event between two publishes (here kubectl;
// in a cluster, another replica of the controller or a person). Every series
// patch of the recorder carries the resourceVersion it last saw as a
// precondition, so its next patch is answered 409 Conflict; it then reads the
// Event and writes what the server holds plus what it carries. Nothing is
// lost, nothing is counted twice, and there is still one Event. Each test has
// a fresh namespace, removed afterwards.
//
// What the recorder sent is read from the API server's own counters
// (`apiserver_request_total` for events, by verb and code), and the Event is
// read back through the API.
import type { EventsV1Event } from '@kubernetes/client-node';
import type { KubeEvent, PublishOutcome } from 'nestjs-kube-events';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch } from './support/library-fixtures.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

/** Now as a MicroTime: RFC 3339 with exactly six fractional digits, which the API server requires. */
const microTimeNow = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** The API server's count of requests on events.k8s.io events, as `VERB code` → count. */
async function eventRequests(cp: ControlPlane): Promise<Record<string, number>> {
  const metrics = await cp.kubectl(['get', '--raw', '/metrics']);
  const counts: Record<string, number> = {};
  for (const line of metrics.stdout.split('\n')) {
    if (
      !line.startsWith('apiserver_request_total{') ||
      !line.includes('group="events.k8s.io"') ||
      !line.includes('resource="events"')
    )
      continue;
    const verb = /verb="(\w+)"/.exec(line)?.[1];
    const code = /code="(\d+)"/.exec(line)?.[1];
    const key = `${verb} ${code}`;
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

/** What happened between two readings of {@link eventRequests}, without the verbs that did not move. */
function requestsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, count] of Object.entries(after))
    if (count !== (before[key] ?? 0)) delta[key] = count - (before[key] ?? 0);
  return delta;
}

describe('a series whose Event someone else wrote between two publishes', () => {
  let cp: ControlPlane;
  let scratch: Scratch;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'foreign-writes-e2e');
  });
  afterEach(async () => {
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
    const args = [
      'patch',
      'events.v1.events.k8s.io',
      name,
      '-n',
      scratch.namespace,
      '--type',
      'merge',
      '-p',
      JSON.stringify(patch),
    ];
    return cp.kubectl(args);
  }

  it('counts on from a count raised by someone else: 3, kubectl sets 10, the next publish writes 11 after a 409 Conflict', async () => {
    const { cm, recorder, outcomes, event } = await seriesOfThree();
    const patched = await kubectlPatch(event, { series: { count: 10, lastObservedTime: microTimeNow() } });
    expect({ code: patched.code, stderr: patched.stderr }).toEqual({ code: 0, stderr: '' });
    const foreign = (await scratch.readEvent(event.metadata!.name!))!;
    expect(foreign.series?.count).toBe(10);
    expect(foreign.metadata!.resourceVersion).not.toBe(event.metadata!.resourceVersion);

    const before = await eventRequests(cp);
    await recorder.publish(cm, failed);

    // Its patch (4, on the Event as it last saw it) was refused; it read the Event and wrote 10 + 1.
    const name = event.metadata!.name!;
    expect(requestsBetween(before, await eventRequests(cp))).toEqual({ 'PATCH 409': 1, 'GET 200': 1, 'PATCH 200': 1 });
    expect(outcomes.map((outcome) => `${outcome.kind} ${outcome.count}`)).toEqual([
      'created 1',
      'patched 2',
      'patched 3',
      'patched 11',
    ]);
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

    const before = await eventRequests(cp);
    await recorder.publish(cm, failed);

    const name = event.metadata!.name!;
    expect(requestsBetween(before, await eventRequests(cp))).toEqual({ 'PATCH 409': 1, 'GET 200': 1, 'PATCH 200': 1 });
    expect(outcomes.at(-1)).toMatchObject({ kind: 'patched', count: 2, eventName: name });
    const events = await scratch.allEvents();
    expect(events.map((e) => [e.metadata?.name, e.series?.count])).toEqual([[name, 2]]);
  });
});
