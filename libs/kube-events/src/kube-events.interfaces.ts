import type { KubeConfig, V1ObjectReference } from '@kubernetes/client-node';

/** `Normal` for progress, `Warning` for something a person should look at. */
export type EventType = 'Normal' | 'Warning';

/** Who publishes: `kubectl describe` shows it in the `From` column. */
export interface Reporter {
  /**
   * The controller's name, written to `reportingController`. A qualified name:
   * an optional DNS-subdomain prefix and `/`, then at most 63 characters of
   * letters, digits, `-`, `_` and `.`, starting and ending alphanumeric.
   * @example 'mirror.example.com/configmirror-controller'
   */
  controller: string;
  /**
   * This replica's identity, written to `reportingInstance` (≤ 128 chars),
   * typically the pod name. An empty string counts as unset (`POD_NAME`
   * set but empty, say).
   * @default the controller name
   */
  instance?: string;
}

/**
 * A namespace an Event about a cluster-scoped object (a Node, a Namespace,
 * a ClusterRole) may be written to: the API server takes no other for an
 * Event whose object has no namespace.
 */
export type ClusterScopedEventNamespace = 'default' | 'kube-system';

/** An Event to publish about an object. */
export interface KubeEvent {
  /** Shown as `Type` by `kubectl describe`. */
  type: EventType;
  /** Why this happened, PascalCase, ≤ 128 chars; shown as `Reason`. @example 'ReconcileFailed' */
  reason: string;
  /** What the controller did or failed to do, PascalCase, ≤ 128 chars. @example 'Reconcile' */
  action: string;
  /** Human-readable text shown as `Message`; cut to {@link MAX_NOTE_BYTES} UTF-8 bytes. */
  note?: string;
  /** A second object involved, for instance the Pod a Deployment created. */
  related?: V1ObjectReference;
  /** Written to the Event's `metadata.annotations`, as client-go's `AnnotatedEventf`. */
  annotations?: Record<string, string>;
  /**
   * Written to the Event's `metadata.labels`, so that a label selector
   * (`kubectl get events -l app.kubernetes.io/part-of=shop`, a collector's
   * `k8s_events` receiver) finds the Event. Keys are qualified names (an
   * optional DNS-subdomain prefix of at most 253 characters and `/`, then at
   * most 63 characters of `[A-Za-z0-9_.-]`, alphanumeric at both ends);
   * values at most 63 such characters, alphanumeric at both ends, or empty.
   * As with annotations, a repeat must carry the same labels: different
   * labels make a different Event.
   * @example { 'app.kubernetes.io/part-of': 'shop' }
   */
  labels?: Record<string, string>;
}

/**
 * How a recorder spaces its writes. Occurrences that cannot be written at
 * once (a write of the same series is in flight, or a budget is spent) wait
 * for the series' next write, which carries them all; their publishes
 * resolve with it. They are never dropped while there is room for them.
 */
export interface WriteControlOptions {
  /**
   * Writes one object may get in a burst (client-go's spam filter burst).
   * @default 25
   */
  objectBurst?: number;
  /**
   * After the burst, the object's budget gains one write every this many
   * milliseconds (client-go's refill: one every 5 minutes). Until it has
   * one, the object's occurrences are folded and written together, at most
   * once per `maxDelay`.
   * @default 300000
   */
  objectRefillMs?: number;
  /**
   * The longest folded occurrences wait for their object's budget, in
   * milliseconds: then they are written anyway, so a count on the server is
   * never staler than this (client-go's events API: 30 minutes).
   * @default 1000
   */
  maxDelay?: number;
  /**
   * Writes per second for the whole recorder, across all objects. Writes it
   * holds back go out together, at most every 100 ms (sooner when a small
   * `burst` fills), rather than one per wake-up.
   * @default 100
   */
  qps?: number;
  /**
   * Writes the whole recorder may send in a burst.
   * @default 500
   */
  burst?: number;
  /**
   * How many writes may wait, across the recorder: behind another write of
   * their series, for a write budget or for a retry (one per distinct event;
   * repeats of it join it). Past it, a publish that would need one more is
   * rejected, and its occurrence dropped, counted and logged. The first write
   * of a series still gets in until twice as many wait, so that a new object
   * is heard while others back up, and a flood of new objects held back by
   * `qps` stays bounded. A series holds at most 8, so one noisy object
   * cannot use up the room of the others.
   * @default 10000
   */
  maxPending?: number;
  /**
   * How many bytes the writes waiting across the recorder may carry (the
   * UTF-8 bytes of each one's object reference, note, related object,
   * annotations and labels): an outage with large annotations is bounded in
   * memory too, not only in count. Reached, it is as `maxPending` reached: a
   * publish that needs one more waiting write is rejected and dropped
   * (counted and logged), a series' first write still gets in until twice
   * as many bytes wait, and repeats joining a waiting write take no room.
   * @default 33554432 (32 MiB)
   */
  maxPendingBytes?: number;
}

export type ResolvedWriteControl = Required<WriteControlOptions>;

/** A timer set by a {@link KubeEventsClock}; a Node.js `Timeout` is one. */
export interface KubeEventsTimer {
  /** The process waits for the timer to fire. */
  ref(): unknown;
  /** The process no longer waits for the timer: it may exit before it fires. */
  unref(): unknown;
}

/**
 * The recorder's time: series windows, write budgets (`maxDelay`,
 * `objectRefillMs`, `qps`), retry backoffs, publish deadlines (`timeout`)
 * and request timeouts all read {@link now} and wait through it. The real
 * one (monotonic `performance.now()` and Node.js timers) is the default; a
 * test gives `FakeClock` from `nestjs-kube-events/testing` to move time
 * itself. Event times (`eventTime`, `lastObservedTime`) and Event names
 * read the wall clock, not this one.
 */
export interface KubeEventsClock {
  /** Monotonic milliseconds: a step of the wall clock moves no window, budget or timer. */
  now(): number;
  /**
   * Calls `fire` once `ms` have passed. The process need not wait for it
   * unless `holdsProcess`. A timer may fire early (the real one caps how
   * far off it is set): whoever set it reads {@link now} and sets it again.
   */
  setTimer(ms: number, fire: () => void, holdsProcess?: boolean): KubeEventsTimer;
  /** Stops a timer set with {@link setTimer}; does nothing for one that fired, or none. */
  clearTimer(timer: KubeEventsTimer | undefined): void;
  /** Settles once `ms` have passed; the process waits for it. */
  sleep(ms: number): Promise<void>;
}

/** Options of one recorder, given to `KubeEventsModule.forRoot` or returned by `forRootAsync`'s factory. */
export interface KubeEventsModuleOptions {
  /** Who publishes; required. */
  reporter: Reporter;
  /**
   * How long one publish may take, waiting for an earlier publish of the
   * same series included, in milliseconds.
   * @default 5000
   */
  timeout?: number;
  /**
   * How long repeats fold into one series, in milliseconds, counted from the
   * series' last successful publish.
   * @default 600000
   */
  seriesWindow?: number;
  /**
   * How many series the recorder tracks at most; past it the least recently
   * used idle series is forgotten.
   * @default 10000
   */
  maxSeries?: number;
  /**
   * Continues, after a restart or a change of leader, the series a previous
   * process of the same controller left on the server: before the first
   * write of a series it does not know, the recorder reads the latest Event
   * about the object with the same reason, action and `reportingController`
   * (one list request, field-selected) and raises its count when it is the
   * same event, still within `seriesWindow`, and was not ended by a success.
   * A series that ends (`forget`, or a successful reconcile) gets the
   * annotation {@link nestjs-kube-events!SERIES_ENDED_ANNOTATION} on its Event, so that no later
   * process continues it. Costs one list per new series and one patch per
   * ended one, and RBAC `list` on events; without it (the shipped Role has
   * none) the recorder logs the refusal once and starts new Events, as
   * without this option.
   * @default false
   */
  resumeSeries?: boolean;
  /** How writes are spaced and folded; see {@link WriteControlOptions}. */
  writeControl?: WriteControlOptions;
  /**
   * The namespace Events about cluster-scoped objects (Nodes, Namespaces,
   * ClusterRoles, cluster-scoped custom resources) are written to: `default`
   * or `kube-system`, the only two the API server accepts for an Event whose
   * object has no namespace. `kubectl describe` and `kubectl events --for`
   * of such an object look in every namespace, so they find it in either.
   * The recorder needs its RBAC rights in that namespace.
   * @default 'default'
   */
  clusterScopedNamespace?: ClusterScopedEventNamespace;
  /**
   * Combines Events whose notes keep changing, as client-go's
   * `EventAggregator` does, so that they do not bury their object: once an
   * object's events of one type, reason and action have opened this many
   * Events with different notes within `seriesWindow` (counted from the
   * latest of them), the next different note opens one Event
   * `(combined from similar events): <that note>`, and every later
   * occurrence of them is counted on it, whatever its note, until
   * `seriesWindow` passes without one or the object's series are forgotten
   * (a successful reconcile, for failures). An Event's note cannot change,
   * so the combined Event keeps the note that opened it; each occurrence
   * counted on it is on `outcomes$` with its own note (kind `combined`) and
   * in `kube_events_combined_total`. An integer of at least 2, or `false`
   * to create an Event for every different note.
   * @default 10
   */
  combineSimilarEvents?: number | false;
  /**
   * Removes credentials from every note before anything else sees it: the
   * API server, `outcomes$`, the log sink and every other sink. A note is
   * readable by anyone with `view` on its namespace, and error texts quote
   * URLs and headers. `true` removes what {@link nestjs-kube-events!redactCredentials} finds
   * (URL userinfo, `Authorization`, `Bearer` and cookie values, token,
   * secret, password and key fields and query parameters, JSON Web Tokens,
   * private keys and well-known token forms), replacing each with
   * `[redacted]`; a function replaces that rule (compose with
   * `redactCredentials` to add your own); `false` publishes notes as given.
   * It runs before the note is cut to {@link nestjs-kube-events!MAX_NOTE_BYTES}, so a cut never
   * leaves part of a credential behind.
   * @default true
   * @example
   * redactNotes: (note) => redactCredentials(note).replace(/customer-\d+/g, 'customer-…')
   */
  redactNotes?: boolean | ((note: string) => string);
  /**
   * Logs one line per publish outcome through Nest's `Logger` (object, type,
   * reason, note, count).
   * @default false
   */
  logEvents?: boolean;
  /**
   * Where to publish.
   * @default the default KubeConfig: in-cluster service account, else `$KUBECONFIG` or `~/.kube/config`
   */
  kubeConfig?: KubeConfig;
  /**
   * Counts this recorder's outcomes in `KubeEventsMetrics` and, when
   * prom-client is installed, in its default registry (`kube_events_*`,
   * see `KUBE_EVENTS_METRICS`).
   * @default true
   */
  metrics?: boolean;
  /**
   * With `@opentelemetry/api` installed, writes the W3C trace context of the
   * span a publish runs in on its Event, as the annotations
   * `tracing.k8s.io/traceparent` (and `tracing.k8s.io/tracestate` when the
   * span has one; never baggage, which may carry what a cluster reader
   * should not see). A repeat moves them to its own trace in the patch that
   * raises the count, so the Event names the trace of its latest
   * occurrence (a repeat published in no span leaves them as they are);
   * they are not part of what makes a repeat. `false` writes
   * none; an object sets the annotations' prefix.
   * @default true
   * @example { traceContext: { prefix: 'tracing.example.com' } }
   */
  traceContext?: boolean | TraceContextOptions;
  /**
   * With `@opentelemetry/api` installed, runs each write in a span
   * (`create Event`, `patch Event`, `find Event`), a child of the span its
   * latest occurrence was published in, with the Event's identity as
   * `k8s.event.*`, `k8s.namespace.name` and `k8s.object.*` attributes.
   * @default true
   */
  writeSpans?: boolean;
  /**
   * Emits each publish outcome as an OpenTelemetry log record through
   * `@opentelemetry/api-logs` (which must then be installed), with the
   * Event's identity and its true series count as attributes.
   * @default false
   */
  logRecords?: boolean;
  /**
   * Checks at start-up, with `SelfSubjectAccessReview`s (no RBAC of their
   * own), whether the recorder may `create`, `get` and `patch` Events of
   * `events.k8s.io` (and `list` with `resumeSeries`): in every namespace,
   * else in its kubeconfig's namespace, and then in each namespace the first
   * time it writes there, beside that write. `'warn'` says each finding once
   * in one warn line (the missing verbs, the namespace, the shipped manifest
   * that grants them); `'fail'` fails start-up on a start-up finding with
   * the same message (later ones are warned); `'off'` checks nothing. A
   * review that fails is unknown, never missing, and never delays a
   * publish. Runs in `KubeEventsModule` only.
   * @default 'warn'
   */
  permissionCheck?: 'warn' | 'fail' | 'off';
  /**
   * The recorder's time (see {@link KubeEventsClock}). A test gives
   * `FakeClock` from `nestjs-kube-events/testing` to pass a window, a
   * budget's `maxDelay`, a backoff or a `timeout` without waiting for it.
   * @default the real clock: `performance.now()` and Node.js timers
   */
  clock?: KubeEventsClock;
}

/** Where the trace context of a publish goes on its Event. */
export interface TraceContextOptions {
  /**
   * The prefix of the annotation keys, `<prefix>/traceparent` and
   * `<prefix>/tracestate`: a DNS subdomain.
   * @default 'tracing.k8s.io'
   */
  prefix?: string;
}

/** A recorder's tracing options, defaults applied. */
export interface ResolvedTracingOptions {
  /** The annotations' prefix; `false`: no trace context on Events. */
  traceContext: { prefix: string } | false;
  writeSpans: boolean;
}

/** The options a recorder runs with, defaults applied. */
export interface ResolvedRecorderOptions {
  reporter: Required<Reporter>;
  timeout: number;
  seriesWindow: number;
  maxSeries: number;
  writeControl: ResolvedWriteControl;
  resumeSeries: boolean;
  /** Where Events about cluster-scoped objects go. */
  clusterScopedNamespace: ClusterScopedEventNamespace;
  /** The annotations' prefix; `false`: no trace context on Events. Named as the option, so that resolving again changes nothing. */
  traceContext: ResolvedTracingOptions['traceContext'];
  writeSpans: boolean;
  /** Events with different notes before the rest are combined, or `false`. */
  combineSimilarEvents: number | false;
  /** What every note goes through before it is cut and written: `redactNotes` resolved. */
  redactNote: (note: string) => string;
  /** The recorder's time: the one given, or the real one. */
  clock: KubeEventsClock;
  /** The kubeconfig given; unset: the default one is looked for when the recorder connects. */
  kubeConfig: KubeConfig | undefined;
  /** When the recorder's permissions are reviewed: `'warn'` unless given. */
  permissionCheck: 'warn' | 'fail' | 'off';
  /** One log line per outcome. */
  logEvents: boolean;
  /** One OpenTelemetry log record per outcome. */
  logRecords: boolean;
  /** Outcomes counted in `KubeEventsMetrics`. */
  metrics: boolean;
}

/** A class given to `forRootAsync({ useClass })` that makes the recorder's options. */
export interface KubeEventsOptionsFactory {
  /** Returns the recorder's options; called once, when the module starts. */
  createKubeEventsOptions(): KubeEventsModuleOptions | Promise<KubeEventsModuleOptions>;
}

/**
 * Why queued occurrences were given up: no room by count (`full`,
 * `writeControl.maxPending`) or by bytes (`full-bytes`, `maxPendingBytes`),
 * the oldest of 8 distinct events waiting in a series (`evicted`), past the
 * series window (`expired`), `flush()` out of time (`flush`), or refused for
 * good after they were queued for a retry (`refused`).
 */
export type DropCause = 'full' | 'full-bytes' | 'evicted' | 'expired' | 'flush' | 'refused';

/** Where the default KubeConfig was looked for, for the error that says none was found. */
export interface KubeConfigSearch {
  /** The service account token path of a pod. */
  serviceAccountToken: string;
  /** Whether `$KUBERNETES_SERVICE_HOST` is set, which in-cluster configuration also needs. */
  serviceHostSet: boolean;
  /** `$KUBECONFIG` as found, `undefined` when unset. */
  kubeconfigEnv: string | undefined;
  /** `~/.kube/config` resolved, `undefined` when there is no home directory. */
  homeConfig: string | undefined;
}
