// `npm run bench -- flow`: the operator's GETs during a storm of Events (200 objects × 25 failures) on the real
// kube-apiserver, with the operator's ServiceAccount on a tight priority level of its own, as on a busy cluster:
// without the package's Event-writes flow, with it as shipped (Reject), and with its level set to queue instead.
// Each row against the same GETs with no storm.
import type { TestingModule } from '@nestjs/testing';
import { Logger } from '@nestjs/common';
import { startControlPlane } from '../tools/control-plane/control-plane.js';
import { Scratch } from '../test/e2e/support/library-fixtures.js';
import { EventWritesStorm, type StormRound } from '../test/e2e/support/event-writes-storm.js';
import { printTable, ratio } from './measure.js';

const CONTROLLER = 'bench.example.com/flow';

export async function eventWritesFlowBench(): Promise<void> {
  // The recorder's warnings (429s, occurrences told queued) are what the rows count.
  Logger.overrideLogger(['error']);
  const cp = await startControlPlane();
  const scratch = await Scratch.create(cp.kubeConfig(), 'flow-bench');
  const storm = await EventWritesStorm.prepare(cp, scratch);
  try {
    const quiet = await storm.quietGets();
    const rows: [string, StormRound][] = [];
    const measure = async (label: string, flowName: string) => {
      const app: TestingModule = await storm.recorderApp(CONTROLLER);
      try {
        await storm.landIn(app, await storm.flowNamed(flowName));
        rows.push([label, await storm.round(app)]);
      } finally {
        await app.close();
      }
    };

    await measure('no Event-writes flow (the tight level)', storm.tightLevel);
    await storm.applyWritesFlow('bench-writes-reject', 'Reject');
    await measure('Event-writes flow, Reject (shipped)', 'bench-writes-reject');
    await storm.removeFlows();
    await storm.applyWritesFlow('bench-writes-queue', 'Queue');
    await measure('Event-writes flow, Queue', 'bench-writes-queue');

    printTable(
      "The operator's 300 GETs (2 at a time) during 200 objects × 25 failures, against the same GETs with no storm",
      ['storm', 'GETs rejected', 'GET p50 ms', 'GET p99 ms', 'p99 vs quiet', 'publishes resolved', 'told queued'],
      [
        ['none (quiet)', quiet.rejected, quiet.p50Ms.toFixed(1), quiet.p99Ms.toFixed(1), '1.00×', '—', '—'],
        ...rows.map(([label, { gets, publishes }]) => [
          label,
          gets.rejected,
          gets.p50Ms.toFixed(1),
          gets.p99Ms.toFixed(1),
          ratio(gets.p99Ms, quiet.p99Ms),
          publishes.resolved,
          publishes.queued + publishes.unexpected.length,
        ]),
      ],
    );
  } finally {
    await storm.removeFlows();
    await scratch.cleanup();
    await cp.stop();
  }
}
