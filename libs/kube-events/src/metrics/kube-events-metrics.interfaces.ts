import type { KUBE_EVENTS_METRICS } from '../kube-events.constants.js';

/** The name of one of the library's metrics; see {@link KUBE_EVENTS_METRICS}. */
export type KubeEventsMetricName = (typeof KUBE_EVENTS_METRICS)[keyof typeof KUBE_EVENTS_METRICS];

/**
 * One change to a metric, as sent to Prometheus: a counter's increment, or
 * one observation (in seconds) of the publish duration histogram.
 */
export interface KubeEventsMetricUpdate {
  readonly metric: KubeEventsMetricName;
  /** Always `controller`; `cause` on the failed counter, `outcome` on the histogram. */
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One controller's metrics since the application started. */
export interface KubeEventsMetricsSnapshot {
  readonly controller: string;
  readonly created: number;
  readonly patched: number;
  readonly coalesced: number;
  readonly dropped: number;
  /** Failed writes and invalid events, by cause: `timeout`, `invalid`, `unreachable`, the HTTP status code, or `error`. */
  readonly failed: Readonly<Record<string, number>>;
  /** Publishes timed (created, patched and failed), and their total duration. */
  readonly publishDuration: { readonly count: number; readonly sumSeconds: number };
}

/** Where metric updates go besides the snapshot: prom-client when it is installed. */
export interface KubeEventsMetricsBackend {
  record(update: KubeEventsMetricUpdate): void;
}
