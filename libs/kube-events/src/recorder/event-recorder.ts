import { type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { EventsApi, type EventsWriter } from '../api/events-api.js';
import type {
  KubeEvent,
  KubeEventsClock,
  KubeEventsModuleOptions,
  Reporter,
  ResolvedRecorderOptions,
} from '../kube-events.interfaces.js';
import { loadDefaultKubeConfig } from '../api/default-kube-config.js';
import { type PublishOutcome, RecorderOutcomes } from './publish/index.js';
import { type ConnectionDown, type ScheduledPublish, WriteCoordinator } from './coordinator/write-coordinator.js';
import { EndedEvents, SeriesIndex, SimilarEvents } from './series/index.js';
import { resolveRecorderOptions } from './recorder-options.js';
import { EventRequests, WriteLedger, WriteMarks, WriteSender, WritePlanner, WriteQueue } from './writes/index.js';
import { RecorderTracing } from '../tracing/recorder-tracing.js';
import { SpentBudgets, WriteBudgets } from './pacing/index.js';
import type { StatusCondition } from '../conditions/condition-changes.js';
import { conditionChangeEvents, type ConditionChangeEventsOptions } from '../conditions/condition-change-events.js';

/** What a writer that does not say how many writes it carries at once is given: one per connection of the default pool. */
const DEFAULT_WRITES_AT_ONCE = 8;

/** How many writes `writer` carries at once, as it says: a whole number of at least one, else the default. */
const writesAtOnce = ({ writesAtOnce: said }: EventsWriter): number =>
  said !== undefined && Number.isSafeInteger(said) && said >= 1 ? said : DEFAULT_WRITES_AT_ONCE;

/** What the failure series a success ended had counted. */
export interface EndedFailures {
  /** Failures published in them. */
  readonly failures: number;
  /** From the first of them to the success, in milliseconds. */
  readonly durationMs: number;
}

/**
 * Publishes `events.k8s.io/v1` Events on behalf of one controller.
 *
 * Repeats fold into series: a publish equal to the series' last Event
 * (type, reason, action, note, related, annotations) within `seriesWindow`
 * of its last write raises `series.count` with a JSON merge patch instead of
 * creating an object. One write per series is in flight at a time;
 * occurrences that arrive meanwhile, or while a write budget is spent, are
 * written together by the series' next write.
 *
 * **When a publish settles.** It resolves once its occurrence is counted on
 * the API server, by its own write or by the write that carried it with
 * others. It rejects with the error of that write when the server refused
 * it, or with {@link PublishTimeoutError} once `timeout` has passed; an
 * occurrence still queued then stays queued and is written later (the
 * error's `queued` says so). While the server is unreachable, publishes are
 * queued and rejected at once with an error that says since when.
 *
 * **Writes are idempotent.** Creates carry a name chosen by the client, so a
 * retried create that had landed answers 409 AlreadyExists and is read back;
 * patches carry the `resourceVersion` last seen as a precondition, so a late
 * or foreign write makes the next one read the Event and count from it. A
 * failed write is retried with a doubling backoff (no sooner than the
 * server's `Retry-After`) while its series is current.
 *
 * `kubectl describe <object>` lists the Events under the object: `Type`,
 * `Reason`, `Age` (with the series count, `x3 over 2m`), `From`
 * (`reporter.controller`) and `Message` (the note).
 *
 * RBAC: `create`, `get` and `patch` on `events` in API group
 * `events.k8s.io`, in every namespace the controller publishes about, and
 * in `default` for cluster-scoped objects.
 *
 * @example
 * const recorder = new EventRecorder({ reporter: { controller: 'example.com/widget-controller' } });
 * await recorder.publish(widget, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'scaled to 3' });
 */
export class EventRecorder implements BeforeApplicationShutdown, OnApplicationShutdown {
  /** Who publishes, as written to `reportingController` and `reportingInstance`. */
  readonly reporter: Readonly<Required<Reporter>>;
  /** Every publish outcome, for sinks and metrics. */
  readonly outcomes$: Observable<PublishOutcome>;
  private readonly outcomes: RecorderOutcomes;
  private readonly options: ResolvedRecorderOptions;
  /** The series of each publish, bounded in time and number. */
  private readonly series: SeriesIndex;
  /** Where Events go: the Events API of the API server, or what was given in its place. */
  private readonly eventsApi: EventsWriter;
  /** Takes each publish in, and its writes to the server. */
  private readonly coordinator: WriteCoordinator;
  /** The one clock of series windows, budgets and timers: `options.clock`, else the real one. */
  private readonly clock: KubeEventsClock;
  /** The one shutdown, once begun. */
  private shutdown: Promise<void> | undefined;

  /**
   * @param options checked and completed with the defaults; options already resolved come out unchanged
   * @param eventsApi where Events go, closed on shutdown; unless given, the API server of `options.kubeConfig`,
   * else of the default KubeConfig (`KubeEventsModule` always gives one)
   * @throws Error naming the field when an option is invalid
   */
  constructor(options: KubeEventsModuleOptions, eventsApi?: EventsWriter) {
    this.options = resolveRecorderOptions(options);
    this.clock = this.options.clock;
    this.reporter = Object.freeze({ ...this.options.reporter });
    this.outcomes = new RecorderOutcomes(this.reporter);
    this.outcomes$ = this.outcomes.outcomes$;
    const { seriesWindow: window, maxSeries, writeControl, timeout, resumeSeries: resume } = this.options;
    const limit = this.options.combineSimilarEvents;
    const similar = limit ? new SimilarEvents(limit, window) : undefined;
    this.series = new SeriesIndex({ window, maxSeries, resume, similar, kept: new SpentBudgets(maxSeries) });
    // With `resumeSeries`, the Events whose series `forget` ended, which no series continues.
    const ended = new EndedEvents(maxSeries);
    this.eventsApi =
      eventsApi ??
      new EventsApi(this.options.kubeConfig ?? loadDefaultKubeConfig(), { controller: this.reporter.controller });
    const tracing = RecorderTracing.create(this.options);
    const requests = new EventRequests(this.eventsApi, this.options.reporter, timeout, this.clock, tracing);
    const planner = new WritePlanner({
      window,
      controller: this.reporter.controller,
      clusterScopedNamespace: this.options.clusterScopedNamespace,
      ended,
      sharedSeries: this.options.resumeSeries,
    });
    const queue = new WriteQueue(writeControl.maxPending, writeControl.maxPendingBytes);
    const confirmsForbidden = this.eventsApi.confirmsForbidden?.bind(this.eventsApi);
    const ledger = new WriteLedger(planner, window, timeout, confirmsForbidden);
    this.coordinator = new WriteCoordinator({
      options: this.options,
      series: this.series,
      tracing,
      queue,
      ledger,
      budget: new WriteBudgets(writeControl, this.clock.now()),
      clock: this.clock,
      sender: new WriteSender({
        ledger,
        requests,
        clock: this.clock,
        marks: resume ? new WriteMarks() : undefined,
      }),
      outcomes: this.outcomes,
      writesAtOnce: writesAtOnce(this.eventsApi),
      endedSeries: resume
        ? { ended, annotate: (namespace, name, annotations) => requests.annotate(namespace, name, annotations) }
        : undefined,
    });
  }

  /** How long one publish may take, in milliseconds. */
  get timeout(): number {
    return this.options.timeout;
  }

  /**
   * Why and since when writes cannot reach the server (unreachable, or the
   * credentials failing); undefined while they can. `KubeEventsHealth` reads it.
   * @internal
   */
  get connectionDown(): ConnectionDown | undefined {
    return this.coordinator.connectionDown;
  }

  /**
   * Occurrences queued now, not yet counted on the server. `KubeEventsHealth` reads it.
   * @internal
   */
  get queuedOccurrences(): number {
    return this.coordinator.queuedOccurrences;
  }

  /**
   * Occurrences queued after a failed write, waiting to be retried. `KubeEventsHealth` reads it.
   * @internal
   */
  get retryingOccurrences(): number {
    return this.coordinator.retryingOccurrences;
  }

  /**
   * Whether the server's overload answers (`429`, `503`) hold the write rate down now. `KubeEventsHealth` reads it.
   * @internal
   */
  get throttled(): boolean {
    return this.coordinator.throttled;
  }

  /** How many series the recorder tracks now. */
  get trackedSeries(): number {
    return this.series.size;
  }

  /**
   * Publishes an Event about `resource`, or raises the count of its series.
   * Resolves once the occurrence is counted on the API server.
   *
   * @throws InvalidEventError before any request, naming the bad field
   * @throws PublishTimeoutError when it was not written within `timeout` (`queued`: it will be)
   * @throws PublishApiError when the API server refused it, or is unreachable (`queued`: it will be written when it answers)
   */
  publish(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    return this.coordinator.publish(resource, event, false);
  }

  /**
   * Publishes one Event per condition whose `status` or `reason` changed
   * between `before` and `after` (`conditionChanges` finds them): Normal when
   * the condition reached its good state (`True`, or `False` for
   * `Degraded`, `Stalled`, `Failed` and the `abnormalTrue` ones), Warning
   * when it is bad or left its good state; reason the condition's, note
   * `Ready False → True: copied 3 keys`. Repeats fold as any Event's. Call
   * it once the status write succeeded, so that no Event claims a state the
   * server did not take (`@PublishesConditionChanges` does). Resolves once
   * every one is counted on the API server.
   *
   * @example
   * const written = await writeStatus(mirror, status);
   * await recorder.publishConditionChanges(written, mirror.status?.conditions, written.status?.conditions);
   * @throws as {@link publish} does; InvalidEventError when `options.events` holds what no catalog declared
   */
  async publishConditionChanges(
    resource: KubernetesObject,
    before: readonly StatusCondition[] | null | undefined,
    after: readonly StatusCondition[] | null | undefined,
    options?: ConditionChangeEventsOptions,
  ): Promise<void> {
    const events = conditionChangeEvents(before, after, options);
    await Promise.all(events.map((event) => this.publish(resource, event)));
  }

  /** Forgets every series of `resource`: its next publish creates a new Event. */
  forget(resource: KubernetesObject): void {
    this.end(resource, undefined);
  }

  /**
   * Publishes a failure Event: like {@link publish}, in a series of its own
   * that {@link forgetFailures} resets. `@PublishesFailures` calls these two.
   */
  publishFailure(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    return this.coordinator.publish(resource, event, true);
  }

  /**
   * Publishes as {@link publish} (a failure with `failure`), for a caller
   * that must not be held by a write that waits: `scheduled` settles as
   * `written` does when the occurrence's own write goes on the wire at
   * once, and resolves at once when that write waits for a budget, a
   * backoff, a write of its series already on its way, or a connection
   * (every one of the pool's is busy): the occurrence is counted in its
   * series, and its write will carry it. `written` keeps
   * {@link publish}'s promise; whoever calls this must observe it.
   * `@PublishesFailures` calls it.
   * @internal
   */
  schedulePublish(resource: KubernetesObject, event: KubeEvent, failure: boolean): ScheduledPublish {
    return this.coordinator.schedulePublish(resource, event, failure);
  }

  /** Forgets the failure series of `resource` only, as after a successful reconcile. */
  forgetFailures(resource: KubernetesObject): void {
    this.end(resource, true);
  }

  /**
   * Forgets the failure series of `resource`, as {@link forgetFailures}, and
   * says how many failures they had counted since when, for a recovery Event;
   * `undefined` when there were none. `@PublishesFailures` calls it.
   * @internal
   */
  endFailures(resource: KubernetesObject): EndedFailures | undefined {
    const uid = resource?.metadata?.uid;
    const now = this.clock.now();
    const counted = typeof uid === 'string' && uid ? this.series.countedIn(uid, true) : undefined;
    this.end(resource, true);
    return counted && { failures: counted.occurrences, durationMs: now - counted.since };
  }

  /**
   * Writes every queued occurrence now, whatever the budgets, retrying
   * failed writes (after their backoff) until `timeout` has passed, and
   * waits for the writes in flight. What is still queued then is dropped,
   * counted and logged; it takes at most about twice `timeout`. For
   * shutdown: an awaited publish is on the server already.
   */
  async flush(): Promise<void> {
    await this.coordinator.flush(this.clock.now() + this.options.timeout);
  }

  /**
   * In an application, the recorder shuts down here: once every module is
   * destroyed (controllers have drained their reconciles), and before the
   * application-shutdown hooks, so that what those release (a Lease, a
   * tracer) outlives the last write.
   */
  beforeApplicationShutdown(): Promise<void> {
    return this.onApplicationShutdown();
  }

  /**
   * Shuts the recorder down, once: writes what is queued ({@link flush}), so
   * that the counts on the server are exact, then completes `outcomes$` and
   * closes the writer. A later call waits for the same shutdown: the
   * module's sinks call it first, so that they see the final writes, and
   * Nest's own calls come after.
   */
  onApplicationShutdown(): Promise<void> {
    this.shutdown ??= this.flush().then(async () => {
      this.coordinator.close();
      this.outcomes.complete();
      await this.eventsApi.close?.();
    });
    return this.shutdown;
  }

  /**
   * Ends the series of `resource` (all, or its failure ones). With
   * `resumeSeries`, the coordinator marks their Events ended on the server,
   * so that no later process continues them.
   */
  private end(resource: KubernetesObject, failure: true | undefined): void {
    const uid = resource?.metadata?.uid;
    if (typeof uid !== 'string' || !uid) return;
    this.coordinator.end(uid, failure);
  }
}
