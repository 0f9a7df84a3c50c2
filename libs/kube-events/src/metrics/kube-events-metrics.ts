import { Subject, type Observable } from 'rxjs';
import {
  InvalidEventError,
  PublishApiError,
  PublishCredentialError,
  PublishTimeoutError,
  type PublishError,
} from '../errors.js';
import type { EventSink } from '../sinks/event-sink.js';
import { KUBE_EVENTS_METRICS } from '../kube-events.constants.js';
import type {
  KubeEventsMetricName,
  KubeEventsMetricsBackend,
  KubeEventsMetricsSnapshot,
  KubeEventsMetricUpdate,
} from './kube-events-metrics.interfaces.js';
import { loadPrometheusBackend } from './prometheus-metrics.js';
import type { PublishOutcome } from '../recorder/publish/index.js';
import type { EventWritesFlow } from '../api/event-writes-flow.js';

type MutableSnapshot = { -readonly [K in keyof KubeEventsMetricsSnapshot]: KubeEventsMetricsSnapshot[K] } & {
  failed: Record<string, number>;
  publishDuration: { count: number; sumSeconds: number };
};

/**
 * Counts every recorder's outcomes, labelled by reporting controller:
 * events created, patched, coalesced, combined, dropped and failed (by cause), and a
 * publish latency histogram. No peer recorder has metrics.
 *
 * When prom-client is installed (an optional peer dependency) the metrics
 * are registered in its default registry under the names of
 * {@link KUBE_EVENTS_METRICS}; a metric of the same name already there
 * (from an earlier application in the same process) is reused. Without
 * prom-client, read them with {@link snapshot} or follow {@link metrics$}.
 * A recorder with `metrics: false` is not counted.
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `kube_events_created_total` | counter | controller |
 * | `kube_events_patched_total` | counter | controller |
 * | `kube_events_coalesced_total` | counter (occurrences) | controller |
 * | `kube_events_combined_total` | counter (occurrences) | controller |
 * | `kube_events_dropped_total` | counter (occurrences) | controller |
 * | `kube_events_failed_total` | counter | controller, cause |
 * | `kube_events_publish_duration_seconds` | histogram | controller, outcome |
 * | `kube_events_writes_flow_info` | gauge (1) | controller, flow_schema_uid, priority_level_uid |
 *
 * `kube_events_writes_flow_info` names where API Priority and Fairness put the
 * controller's last answered Event request, read when the metrics are scraped
 * (an info metric, as kube-state-metrics has them): none before the first answer.
 *
 * @example
 * constructor(private readonly metrics: KubeEventsMetrics) {}
 * this.metrics.snapshot()['example.com/widgets'].patched
 */
export class KubeEventsMetrics implements EventSink {
  /** Every metric update as it happens, for a metrics system other than prom-client. */
  readonly metrics$: Observable<KubeEventsMetricUpdate>;
  private readonly updates = new Subject<KubeEventsMetricUpdate>();
  private readonly controllers = new Map<string, MutableSnapshot>();
  private readonly flowReaders = new Map<string, () => EventWritesFlow | undefined>();

  /** Counts in memory, and sends each update to `backend` too when one is given; the module uses {@link create}. */
  constructor(private readonly backend?: KubeEventsMetricsBackend) {
    this.metrics$ = this.updates.asObservable();
    backend?.readWritesFlows?.(() => this.writesFlows());
  }

  /** Metrics registered with prom-client when it can be imported, else kept in memory only. */
  static async create(): Promise<KubeEventsMetrics> {
    return new KubeEventsMetrics(await loadPrometheusBackend());
  }

  /** Whether the metrics are registered with prom-client. */
  get prometheus(): boolean {
    return this.backend !== undefined;
  }

  /** Each controller's metrics now, keyed by controller name. */
  snapshot(): Record<string, KubeEventsMetricsSnapshot> {
    const copy: Record<string, KubeEventsMetricsSnapshot> = {};
    const flows = this.writesFlows();
    for (const [controller, counts] of this.controllers) {
      const writesFlow = flows.get(controller);
      copy[controller] = {
        ...counts,
        failed: { ...counts.failed },
        publishDuration: { ...counts.publishDuration },
        ...(writesFlow && { writesFlow }),
      };
    }
    return copy;
  }

  /**
   * Reads `controller`'s writes flow from `flow` whenever the metrics are
   * read; the module calls it for each recorder, on its own connection pool.
   */
  followWritesFlow(controller: string, flow: () => EventWritesFlow | undefined): void {
    this.flowReaders.set(controller, flow);
  }

  private writesFlows(): Map<string, EventWritesFlow> {
    const flows = new Map<string, EventWritesFlow>();
    for (const [controller, read] of this.flowReaders) {
      const flow = read();
      if (flow) flows.set(controller, flow);
    }
    return flows;
  }

  /** Counts one outcome. */
  handle(outcome: PublishOutcome): void {
    const controller = outcome.reporter.controller;
    const counts = this.countsOf(controller);
    switch (outcome.kind) {
      case 'created':
      case 'patched':
        counts[outcome.kind]++;
        this.update(KUBE_EVENTS_METRICS[outcome.kind], { controller }, 1);
        break;
      case 'coalesced':
        counts.coalesced++;
        this.update(KUBE_EVENTS_METRICS.coalesced, { controller }, 1);
        return;
      case 'combined':
        counts.combined++;
        this.update(KUBE_EVENTS_METRICS.combined, { controller }, 1);
        return;
      case 'dropped':
        counts.dropped += outcome.count;
        this.update(KUBE_EVENTS_METRICS.dropped, { controller }, outcome.count);
        return;
      case 'failed': {
        const cause = failureCause(outcome.error);
        counts.failed[cause] = (counts.failed[cause] ?? 0) + 1;
        this.update(KUBE_EVENTS_METRICS.failed, { controller, cause }, 1);
        break;
      }
    }
    const seconds = outcome.durationMs / 1_000;
    counts.publishDuration.count++;
    counts.publishDuration.sumSeconds += seconds;
    this.update(KUBE_EVENTS_METRICS.publishDuration, { controller, outcome: outcome.kind }, seconds);
  }

  private update(metric: KubeEventsMetricName, labels: Record<string, string>, value: number): void {
    const update = { metric, labels, value };
    this.backend?.record(update);
    if (this.updates.observed) this.updates.next(update);
  }

  private countsOf(controller: string): MutableSnapshot {
    let counts = this.controllers.get(controller);
    if (!counts) {
      counts = {
        controller,
        created: 0,
        patched: 0,
        coalesced: 0,
        combined: 0,
        dropped: 0,
        failed: {},
        publishDuration: { count: 0, sumSeconds: 0 },
      };
      this.controllers.set(controller, counts);
    }
    return counts;
  }
}

/** The `cause` label of a failed publish. */
function failureCause(error: PublishError | undefined): string {
  if (error instanceof PublishTimeoutError) return 'timeout';
  if (error instanceof InvalidEventError) return 'invalid';
  if (error instanceof PublishCredentialError) return 'credentials';
  if (error instanceof PublishApiError)
    return error.statusCode === undefined ? 'unreachable' : String(error.statusCode);
  return 'error';
}
