/**
 * How long repeats of an Event keep folding into one series, in milliseconds,
 * counted from the series' last successful publish. The same window as
 * client-go's event correlator.
 */
export const SERIES_WINDOW_MS = 600_000;

/** The API server's limit on an Event's `note`, in UTF-8 bytes. */
export const MAX_NOTE_BYTES = 1024;

/** How long one publish may take, waiting included, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * How many series one recorder tracks before it evicts the least recently
 * used idle one. client-go keeps LRUs of 4096 entries per cache; a controller
 * reconciling tens of thousands of objects is common today, and a tracked
 * series costs a few hundred bytes, so 10,000 series stay within a few MB.
 */
export const DEFAULT_MAX_SERIES = 10_000;

/** Defaults of write control; see `WriteControlOptions` for what each bounds. */
export const DEFAULT_WRITE_CONTROL = Object.freeze({
  /** Writes one object may get in a burst. */
  objectBurst: 25,
  /** Milliseconds between writes an object's budget gains after its burst. */
  objectRefillMs: 300_000,
  /** The longest folded occurrences wait for their object's budget, in milliseconds. */
  maxDelay: 1_000,
  /** Writes per second for the whole recorder. */
  qps: 100,
  /** Writes the whole recorder may send in a burst. */
  burst: 500,
  /** Writes waiting, across the recorder, held at most. */
  maxPending: 10_000,
  /** Bytes of what the writes waiting across the recorder carry, held at most (32 MiB). */
  maxPendingBytes: 32 * 1024 * 1024,
});

/**
 * Annotation written on a series' Event when the series ends (a successful
 * reconcile, `forget`), so that a later process with `resumeSeries` starts a
 * new Event rather than continue it. Its value is when the series ended.
 */
export const SERIES_ENDED_ANNOTATION = 'nestjs-kube-events/series-ended';

/**
 * The annotation that marks the last writes to an Event: each write (a
 * create, or a series patch made on the version it read) puts its mark,
 * `<recorder>.<attempt>`, in front of those it read, and keeps the last
 * {@link MAX_WRITE_MARKS}. A write whose answer was lost is known to have
 * landed only when its mark is there: a count at or above its own may be
 * another replica's.
 */
export const WRITES_ANNOTATION = 'nestjs-kube-events/writes';

/** How many write marks an Event keeps. */
export const MAX_WRITE_MARKS = 8;

/** The prefix of the trace context annotations, `tracing.k8s.io/traceparent` (KEP-5915's key). */
export const DEFAULT_TRACE_CONTEXT_PREFIX = 'tracing.k8s.io';

/** Where Events about cluster-scoped objects go by default, as client-go writes them. */
export const DEFAULT_CLUSTER_SCOPED_NAMESPACE = 'default';

/**
 * How many Events one object gets, per series window, for one type, reason
 * and action whose notes keep changing, before the rest are counted on one
 * combined Event: client-go's `EventAggregator` default (10 within 10 minutes).
 */
export const DEFAULT_COMBINE_SIMILAR_EVENTS = 10;

/** What the note of a combined Event starts with, as client-go writes it. */
export const COMBINED_NOTE_PREFIX = '(combined from similar events): ';

/** The API server's limit on `reason`, `action` and `reportingInstance`. */
export const MAX_FIELD_LENGTH = 128;

/** Reason of the Warning events published for failed reconciles. */
export const RECONCILE_FAILED_REASON = 'ReconcileFailed';
/** Action of the Warning events published for failed reconciles. */
export const RECONCILE_ACTION = 'Reconcile';
/** Reason of the Normal event `@PublishesFailures({ recovery: true })` publishes when a success ends failures. */
export const RECOVERED_REASON = 'Recovered';

/**
 * The condition types that are good when `False`: "abnormal-true"
 * conditions, in the words of the API conventions (a `Degraded` that turns
 * `True` is bad news). Any other condition is good when `True`. A caller
 * declares its own with the `abnormalTrue` option (or in its Event catalog).
 */
export const ABNORMAL_TRUE_CONDITIONS: readonly string[] = Object.freeze([
  'Degraded',
  'Stalled',
  'Failed',
  // A Node's.
  'MemoryPressure',
  'DiskPressure',
  'PIDPressure',
  'NetworkUnavailable',
]);

/** Action of the Events that say a status condition changed, unless the caller or its catalog gives another. */
export const CONDITION_CHANGE_ACTION = 'UpdateStatus';

/** Metadata key under which `@PublishesConditionChanges` records its options. */
export const PUBLISHES_CONDITION_CHANGES_METADATA = 'KUBE_EVENTS:publishes-condition-changes';

/** Metadata key under which `@PublishesFailures` records its options. */
export const PUBLISHES_FAILURES_METADATA = 'KUBE_EVENTS:publishes-failures';

/** Metadata key under which `@KubeEventsSink` records its options. */
export const KUBE_EVENTS_SINK_METADATA = 'KUBE_EVENTS:sink';

/**
 * How many `handle()` calls of one sink may be unsettled at once; past it
 * the sink misses outcomes (counted and logged) rather than holding memory
 * for a sink that does not answer.
 */
export const DEFAULT_SINK_MAX_IN_FLIGHT = 100;

/** The least time between two log lines about one misbehaving sink, in milliseconds. */
export const SINK_LOG_INTERVAL_MS = 10_000;

/**
 * The longest `Retry-After` the recorder honours, in milliseconds (2 minutes).
 * kube-apiserver asks for 1 s when it throttles; proxies and load balancers
 * in maintenance ask for tens of seconds. A longer wait (a day, a date in
 * year 9999) would hold a series' count for most of its 10-minute window or
 * beyond it: the recorder waits this long at most (plus its jitter), then
 * tries again, and another 429 simply asks again.
 */
export const MAX_RETRY_AFTER_MS = 120_000;

/** The longest delay a Node.js timer holds (2^31 − 1 ms, about 24.8 days): a longer one fires at once, with a warning. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The metrics a recorder's outcomes are counted in, as named in Prometheus.
 * Every one is labelled `controller` (the reporter's controller).
 */
export const KUBE_EVENTS_METRICS = Object.freeze({
  /** Events created. */
  created: 'kube_events_created_total',
  /** Patches raising an Event's `series.count`. */
  patched: 'kube_events_patched_total',
  /** Occurrences counted locally and folded into their series' next write. */
  coalesced: 'kube_events_coalesced_total',
  /** Occurrences counted on a combined Event, their object's notes having changed too often (`combineSimilarEvents`). */
  combined: 'kube_events_combined_total',
  /** Occurrences given up (no room left for folded occurrences, or their write kept failing). */
  dropped: 'kube_events_dropped_total',
  /** Failed writes and invalid events, labelled `cause`: `timeout`, `invalid`, `unreachable`, the HTTP status code, or `error`. */
  failed: 'kube_events_failed_total',
  /** Seconds from a publish to the server's answer, labelled `outcome`: `created`, `patched` or `failed`. */
  publishDuration: 'kube_events_publish_duration_seconds',
  /** 1 for the FlowSchema and priority level (their uids) the controller's last answered Event request landed in. */
  writesFlow: 'kube_events_writes_flow_info',
} as const);

/** Buckets of `kube_events_publish_duration_seconds`: prom-client's defaults, which span the 5 s default timeout. */
export const PUBLISH_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The oldest Node.js the package's dependencies load on (`major.minor`). */
export const MINIMUM_NODE = '22.19';
