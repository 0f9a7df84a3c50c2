import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventWritesFlow } from '../api/event-writes-flow.js';
import { KUBE_EVENTS_METRICS, PUBLISH_DURATION_BUCKETS } from '../kube-events.constants.js';
import type {
  KubeEventsMetricName,
  KubeEventsMetricsBackend,
  KubeEventsMetricUpdate,
} from './kube-events-metrics.interfaces.js';

type PromClient = typeof import('prom-client');

const HELP: Record<KubeEventsMetricName, string> = {
  [KUBE_EVENTS_METRICS.created]: 'Kubernetes Events created.',
  [KUBE_EVENTS_METRICS.patched]: 'Patches raising the series count of a Kubernetes Event.',
  [KUBE_EVENTS_METRICS.coalesced]: "Event occurrences counted locally and folded into their series' next write.",
  [KUBE_EVENTS_METRICS.combined]:
    "Event occurrences counted on a combined Event, their object's notes having changed too often.",
  [KUBE_EVENTS_METRICS.dropped]:
    'Event occurrences given up: no room for folded occurrences, or their write kept failing.',
  [KUBE_EVENTS_METRICS.failed]:
    'Failed Event writes and invalid events, by cause (timeout, invalid, unreachable, HTTP status code).',
  [KUBE_EVENTS_METRICS.publishDuration]: "Seconds from an Event publish to the API server's answer, by outcome.",
  [KUBE_EVENTS_METRICS.writesFlow]:
    "1 for the API Priority and Fairness FlowSchema and priority level (uids) of the controller's last answered Event request.",
};

/**
 * The metrics registered in prom-client's default registry, or `undefined`
 * when prom-client is not installed: it is an optional peer dependency, so
 * it is imported dynamically and its absence is silent.
 */
export async function loadPrometheusBackend(
  importPromClient: () => Promise<unknown> = () => import('prom-client'),
): Promise<KubeEventsMetricsBackend | undefined> {
  let prom: PromClient;
  try {
    const loaded = (await importPromClient()) as PromClient & { default?: PromClient };
    prom = typeof loaded.Counter === 'function' ? loaded : loaded.default!;
    if (typeof prom?.Counter !== 'function') return undefined;
  } catch {
    return undefined;
  }
  return new PrometheusBackend(prom, prom.register);
}

/**
 * The latest metrics' reader of the writes flows, per registry: a gauge
 * registered by an earlier application in the process is reused, and reads
 * the application that registered last.
 */
const flowReaders = new WeakMap<Registry, () => ReadonlyMap<string, EventWritesFlow>>();

/** Sends metric updates to prom-client counters and a histogram. */
class PrometheusBackend implements KubeEventsMetricsBackend {
  private readonly metrics = new Map<KubeEventsMetricName, Counter | Histogram>();

  constructor(
    prom: PromClient,
    private readonly registry: Registry,
  ) {
    const counter = (name: KubeEventsMetricName, labelNames: string[]) =>
      (registry.getSingleMetric(name) as Counter | undefined) ??
      new prom.Counter({ name, help: HELP[name], labelNames, registers: [registry] });
    for (const name of [
      KUBE_EVENTS_METRICS.created,
      KUBE_EVENTS_METRICS.patched,
      KUBE_EVENTS_METRICS.coalesced,
      KUBE_EVENTS_METRICS.combined,
      KUBE_EVENTS_METRICS.dropped,
    ]) {
      this.metrics.set(name, counter(name, ['controller']));
    }
    this.metrics.set(KUBE_EVENTS_METRICS.failed, counter(KUBE_EVENTS_METRICS.failed, ['controller', 'cause']));
    const duration = KUBE_EVENTS_METRICS.publishDuration;
    this.metrics.set(
      duration,
      (registry.getSingleMetric(duration) as Histogram | undefined) ??
        new prom.Histogram({
          name: duration,
          help: HELP[duration],
          labelNames: ['controller', 'outcome'],
          buckets: [...PUBLISH_DURATION_BUCKETS],
          registers: [registry],
        }),
    );
    const flowInfo = KUBE_EVENTS_METRICS.writesFlow;
    if (!registry.getSingleMetric(flowInfo)) {
      new prom.Gauge({
        name: flowInfo,
        help: HELP[flowInfo],
        labelNames: ['controller', 'flow_schema_uid', 'priority_level_uid'],
        registers: [registry],
        // Read at scrape time: the flow is the last answer's, not a count.
        collect(this: Gauge) {
          this.reset();
          for (const [controller, flow] of flowReaders.get(registry)?.() ?? [])
            this.set({ controller, flow_schema_uid: flow.flowSchemaUid, priority_level_uid: flow.priorityLevelUid }, 1);
        },
      });
    }
  }

  readWritesFlows(read: () => ReadonlyMap<string, EventWritesFlow>): void {
    flowReaders.set(this.registry, read);
  }

  record({ metric, labels, value }: KubeEventsMetricUpdate): void {
    const target = this.metrics.get(metric);
    if (metric === KUBE_EVENTS_METRICS.publishDuration) (target as Histogram).observe(labels, value);
    else (target as Counter).inc(labels, value);
  }
}
