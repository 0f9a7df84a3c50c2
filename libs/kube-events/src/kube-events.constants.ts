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
  objectBurst: 25,
  objectRefillMs: 300_000,
  maxDelay: 1_000,
  qps: 50,
  burst: 500,
  maxPending: 10_000,
});

/** The API server's limit on `reason`, `action` and `reportingInstance`. */
export const MAX_FIELD_LENGTH = 128;

/** Reason and action of the Warning events published for failed reconciles. */
export const RECONCILE_FAILED_REASON = 'ReconcileFailed';
export const RECONCILE_ACTION = 'Reconcile';

/** Metadata key under which `@PublishesFailures` records its options. */
export const PUBLISHES_FAILURES_METADATA = 'KUBE_EVENTS:publishes-failures';
