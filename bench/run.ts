/**
 * `npm run bench`: prints each benchmark's table, with ratios against the
 * baseline measured in the same run. Pass names to run some only:
 * `npm run bench -- scaling heap http storms tracing recovery redaction crafted writes flow`.
 * `flow` starts a local control plane of its own.
 */
import { eventWritesFlowBench } from './event-writes-flow.bench.js';
import { httpOverhead } from './http-overhead.bench.js';
import { heapPerSeries, seriesScaling } from './series-scaling.bench.js';
import { recoveryBench } from './recovery.bench.js';
import { craftedRedactionCost, redactionCost } from './redaction.bench.js';
import { storms } from './storm.bench.js';
import { tracingCost } from './tracing.bench.js';
import { writeCpu } from './write-cpu.bench.js';

const benchmarks: Record<string, () => Promise<void>> = {
  scaling: seriesScaling,
  heap: heapPerSeries,
  http: httpOverhead,
  storms,
  recovery: recoveryBench,
  tracing: tracingCost,
  redaction: redactionCost,
  crafted: craftedRedactionCost,
  writes: writeCpu,
  flow: eventWritesFlowBench,
};

const chosen = process.argv.slice(2);
for (const [name, run] of Object.entries(benchmarks)) {
  if (chosen.length && !chosen.includes(name)) continue;
  await run();
}
