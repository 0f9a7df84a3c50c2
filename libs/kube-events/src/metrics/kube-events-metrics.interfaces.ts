import type { KUBE_EVENTS_METRICS } from '../kube-events.constants.js';
import type { EventWritesFlow } from '../api/event-writes-flow.js';

/** The name of one of the library's metrics; see {@link KUBE_EVENTS_METRICS}. */
export type KubeEventsMetricName = (typeof KUBE_EVENTS_METRICS)[keyof typeof KUBE_EVENTS_METRICS];

/**
 * One change to a metric, as sent to Prometheus: a counter's increment, or
 * one observation (in seconds) of the publish duration histogram.
 */
export interface KubeEventsMetricUpdate {
  /** Which metric changes. */
  readonly metric: KubeEventsMetricName;
  /** Always `controller`; `cause` on the failed counter, `outcome` on the histogram. */
  readonly labels: Readonly<Record<string, string>>;
  /** A counter's increment, or the observed duration in seconds. */
  readonly value: number;
}

/** One controller's metrics since the application started. */
export interface KubeEventsMetricsSnapshot {
  /** The reporter's controller, the metrics' `controller` label. */
  readonly controller: string;
  /** Events created (`kube_events_created_total`). */
  readonly created: number;
  /** Series patches (`kube_events_patched_total`). */
  readonly patched: number;
  /** Occurrences that joined others waiting for one write (`kube_events_coalesced_total`). */
  readonly coalesced: number;
  /** Occurrences counted on a combined Event (`kube_events_combined_total`, see `combineSimilarEvents`). */
  readonly combined: number;
  /** Occurrences given up (`kube_events_dropped_total`). */
  readonly dropped: number;
  /** Failed writes and invalid events, by cause: `timeout`, `invalid`, `credentials`, `unreachable`, the HTTP status code, or `error`. */
  readonly failed: Readonly<Record<string, number>>;
  /** Publishes timed (created, patched and failed), and their total duration. */
  readonly publishDuration: {
    /** Publishes timed. */
    readonly count: number;
    /** Their durations added up, in seconds. */
    readonly sumSeconds: number;
  };
  /** Where API Priority and Fairness put the last answered Event request (`kube_events_writes_flow_info`); absent before one. */
  readonly writesFlow?: EventWritesFlow;
}

/** Where metric updates go besides the snapshot: prom-client when it is installed. */
export interface KubeEventsMetricsBackend {
  /** Applies one update; called synchronously for every outcome, so keep it cheap. */
  record(update: KubeEventsMetricUpdate): void;
  /** Takes the reader of every controller's writes flow, for a metric read when it is scraped. */
  readWritesFlows?(read: () => ReadonlyMap<string, EventWritesFlow>): void;
}
