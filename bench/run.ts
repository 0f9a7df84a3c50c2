/**
 * `npm run bench`: prints each benchmark's table, with ratios against the
 * baseline measured in the same run. Pass names to run some only:
 * `npm run bench -- scaling heap allocations http storms tracing recovery redaction crafted writes flow headers`.
 * `flow` starts a local control plane of its own. `--server real` runs
 * `writes` against a real kube-apiserver over TLS (the local control plane,
 * or the cluster of `KUBE_EVENTS_E2E_KUBECONFIG`) rather than the fake API
 * server over plain HTTP.
 */
import { allocationsPerWrite } from './allocations.bench.js';
import { eventWritesFlowBench } from './event-writes-flow.bench.js';
import { httpOverhead } from './http-overhead.bench.js';
import { heapPerSeries, seriesScaling } from './series-scaling.bench.js';
import { recoveryBench } from './recovery.bench.js';
import { craftedRedactionCost, redactionCost } from './redaction.bench.js';
import { requestHeadersCost } from './request-headers.bench.js';
import { storms } from './storm.bench.js';
import { tracingCost } from './tracing.bench.js';
import { writeCpu } from './write-cpu.bench.js';
import { writeCpuOverTls } from './write-cpu-tls.bench.js';

const args = process.argv.slice(2);
const serverAt = args.findIndex((arg) => arg === '--server' || arg.startsWith('--server='));
const server = serverAt < 0 ? 'fake' : (args[serverAt].split('=')[1] ?? args[serverAt + 1]);
if (server !== 'fake' && server !== 'real') throw new Error(`--server must be fake or real, got ${server}`);
if (serverAt >= 0) args.splice(serverAt, args[serverAt].includes('=') ? 1 : 2);

const benchmarks: Record<string, () => Promise<void>> = {
  scaling: seriesScaling,
  heap: heapPerSeries,
  allocations: allocationsPerWrite,
  http: httpOverhead,
  storms,
  recovery: recoveryBench,
  tracing: tracingCost,
  redaction: redactionCost,
  crafted: craftedRedactionCost,
  writes: server === 'real' ? writeCpuOverTls : writeCpu,
  flow: eventWritesFlowBench,
  headers: requestHeadersCost,
};

const chosen = args;
for (const [name, run] of Object.entries(benchmarks)) {
  if (chosen.length && !chosen.includes(name)) continue;
  await run();
}
