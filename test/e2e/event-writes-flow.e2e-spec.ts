// Event writes in a flow of their own, against the real kube-apiserver's API Priority and Fairness. The operator's
// ServiceAccount is on a tight priority level of its own (one share, rejecting what it cannot seat), as on a busy
// cluster; a storm of Events (200 objects × 25 failures) runs while the operator GETs its own ConfigMaps. With the
// package's flow-control/event-writes.yaml (filled in), none of those GETs is rejected; without it, the test prints
// what happens. Their latency against the same GETs with no storm is the benchmark's to measure (`npm run bench --
// flow`): on two shared cores a p99 moves with whatever else runs. The recorder's health and metrics name the
// FlowSchema and the priority level its writes landed in.
import type { TestingModule } from '@nestjs/testing';
import { register } from 'prom-client';
import { KUBE_EVENTS_METRICS, KubeEventsHealth, KubeEventsMetrics, type EventWritesFlow } from 'nestjs-kube-events';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch } from './support/library-fixtures.js';
import { EventWritesStorm } from './support/event-writes-storm.js';
import { muteLogger } from '../support/logged-lines.js';

const CONTROLLER = 'kube-events.e2e/flow';

describe('Event writes in a flow of their own (API Priority and Fairness)', () => {
  let scratch: Scratch;
  let storm: EventWritesStorm | undefined;

  beforeEach(async () => {
    muteLogger('warn');
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'flow-e2e');
  });
  afterEach(async () => {
    await storm?.removeFlows();
    await scratch?.cleanup();
  });

  /** The recorder's health, metrics snapshot and scraped metric all name `flow`. */
  const expectLandedIn = async (app: TestingModule, flow: EventWritesFlow) => {
    expect(app.get(KubeEventsHealth).state().flow).toEqual(flow);
    expect(app.get(KubeEventsMetrics).snapshot()[CONTROLLER]?.writesFlow).toEqual(flow);
    const scraped = await register.getSingleMetric(KUBE_EVENTS_METRICS.writesFlow)!.get();
    expect(scraped.values).toContainEqual({
      labels: {
        controller: CONTROLLER,
        flow_schema_uid: flow.flowSchemaUid,
        priority_level_uid: flow.priorityLevelUid,
      },
      value: 1,
    });
  };

  it("keeps the operator's GETs admitted and fast during a storm of Events", async () => {
    storm = await EventWritesStorm.prepare(sharedControlPlane(), scratch);
    const quiet = await storm.quietGets();

    const without = await storm.recorderApp(CONTROLLER);
    const tight = await storm.flowNamed(storm.tightLevel);
    await storm.landIn(without, tight);
    await expectLandedIn(without, tight);
    const unprotected = await storm.round(without);
    await without.close();

    const writes = `kube-events-writes-${scratch.namespace}`;
    await storm.applyWritesFlow(writes);
    const withFlow = await storm.recorderApp(CONTROLLER);
    const own = await storm.flowNamed(writes);
    await storm.landIn(withFlow, own);
    await expectLandedIn(withFlow, own);
    const isolated = await storm.round(withFlow);
    await withFlow.close();

    const printable = ({ gets, publishes }: typeof isolated) => ({
      gets,
      publishes: { ...publishes, unexpected: publishes.unexpected.length },
    });
    console.log(
      JSON.stringify({
        quiet,
        withoutEventWritesFlow: printable(unprotected),
        withEventWritesFlow: printable(isolated),
      }),
    );
    expect(unprotected.publishes.unexpected).toEqual([]);
    expect(isolated.publishes.unexpected).toEqual([]);
    expect(isolated.gets.rejected).toBe(0);
  }, 300_000);
});
