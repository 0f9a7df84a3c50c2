// An API server restart loses nothing: objects keep publishing the same
// failure while their kube-apiserver is killed (SIGKILL) and started again
// with the same flags and etcd, down for longer than a few retries. Every
// occurrence whose publish resolved, or that was rejected as still queued,
// ends up counted on the server, nothing is counted twice, and each object
// keeps one Event. Runs against an extra kube-apiserver on the shared etcd,
// so that the other files' server stays up (and so needs the local control
// plane: against KUBE_EVENTS_E2E_KUBECONFIG, startExtraApiServer says so).
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PublishError, PublishUnreachableError, type KubeEvent } from 'nestjs-kube-events';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch } from './support/library-fixtures.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

const OBJECTS = 20;
/** The longest an object keeps publishing once the API server is ready again, waiting for a publish to resolve. */
const AFTER_RESTART_MS = 30_000;
const KILL_AT_MS = 3_000;
const DOWN_MS = 5_000;

interface Tally {
  made: number;
  resolved: number;
  /** Resolved once the API server was ready again. */
  resolvedAfterRestart: number;
  /** Rejected, but still queued: it will be written. */
  queued: number;
  /** Rejected and given up. */
  lost: number;
}

describe('EventRecorder across an API server restart', () => {
  let extra: ControlPlane;
  let scratch: Scratch;

  beforeAll(async () => {
    extra = await sharedControlPlane().startExtraApiServer();
    scratch = await Scratch.create(extra.kubeConfig(), 'restart-e2e');
  });
  afterAll(async () => {
    await scratch?.cleanup();
    await extra?.stop();
  });

  it('counts every resolved or queued occurrence exactly once, in one Event per object', async () => {
    // Past its burst, an object's writes go out once per maxDelay (1 s): the timeout leaves room for that.
    const recorder = scratch.recorder({ timeout: 3_000 });
    const objects: KubernetesObject[] = [];
    for (let i = 0; i < OBJECTS; i++) objects.push(await scratch.configMap(`restart-${i}`));
    const tallies = objects.map((): Tally => ({ made: 0, resolved: 0, resolvedAfterRestart: 0, queued: 0, lost: 0 }));
    const unexpected: unknown[] = [];
    const unreachable: PublishUnreachableError[] = [];
    let restartedAt: number | undefined;

    const publishing = objects.map(async (object, i) => {
      const tally = tallies[i];
      // Until publishing has resumed for this object after the restart.
      while (
        restartedAt === undefined ||
        (tally.resolvedAfterRestart < 3 && Date.now() - restartedAt < AFTER_RESTART_MS)
      ) {
        tally.made++;
        try {
          await recorder.publish(object, failed);
          tally.resolved++;
          if (restartedAt !== undefined) tally.resolvedAfterRestart++;
        } catch (error) {
          if (error instanceof PublishUnreachableError) unreachable.push(error);
          if (error instanceof PublishError && error.queued) tally.queued++;
          else {
            tally.lost++;
            unexpected.push(error);
          }
        }
        await sleep(50 + Math.random() * 100);
      }
    });
    const outage = (async () => {
      await sleep(KILL_AT_MS);
      await extra.killApiServer();
      await sleep(DOWN_MS);
      await extra.startApiServerAgain();
      restartedAt = Date.now();
    })();
    await Promise.all([...publishing, outage]);
    expect(unexpected).toEqual([]);
    // Publishes during the outage were told at once why: no answer from the server's address.
    expect(unreachable.length).toBeGreaterThan(0);
    expect(unreachable[0].message).toMatch(/unreachable since .*(ECONNREFUSED|ECONNRESET|closed by the server)/);

    // Queued occurrences are written once the server is back, with no flush() and no new publish.
    const expected = tallies.map((tally) => tally.resolved + tally.queued);
    const deadline = Date.now() + 30_000;
    let counts: number[];
    let eventsPerObject: number[];
    do {
      const events = await scratch.allEvents();
      eventsPerObject = objects.map(
        (object) => events.filter((event) => event.regarding?.uid === object.metadata!.uid).length,
      );
      counts = objects.map((object) => {
        const event = events.find((candidate) => candidate.regarding?.uid === object.metadata!.uid);
        return event ? (event.series?.count ?? 1) : 0;
      });
      if (counts.every((count, i) => count >= expected[i])) break;
      await sleep(250);
    } while (Date.now() < deadline);

    expect(eventsPerObject).toEqual(objects.map(() => 1));
    if (process.env.KUBE_EVENTS_E2E_REPORT) console.log(JSON.stringify({ tallies, counts }));
    expect(counts).toEqual(expected);
    for (const [i, tally] of tallies.entries()) expect(counts[i]).toBeLessThanOrEqual(tally.made);
    // The outage was felt (publishes rejected as queued), and publishing resumed once the server was back.
    expect(tallies.reduce((sum, tally) => sum + tally.queued, 0)).toBeGreaterThan(0);
    expect(tallies.map((tally) => tally.resolvedAfterRestart >= 3)).toEqual(objects.map(() => true));
  }, 120_000);
});
