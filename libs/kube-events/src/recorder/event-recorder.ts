import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Subject, type Observable } from 'rxjs';
import { EventsApi, type EventsWriter } from '../api/events-api.js';
import { validatePublish } from '../api/event-validation.js';
import { PublishApiError, PublishError, PublishTimeoutError, PublishUnreachableError } from '../errors.js';
import type {
  DropCause,
  KubeEvent,
  KubeEventsModuleOptions,
  Reporter,
  ResolvedRecorderOptions,
} from '../kube-events.interfaces.js';
import { SERIES_ENDED_ANNOTATION } from '../kube-events.constants.js';
import {
  EVENT_KEPT_CHANGING,
  OCCURRENCES_DROPPED,
  SERIES_END_NOT_RECORDED,
  SERIES_LOOKUP_REFUSED,
  SERVER_UNREACHABLE,
} from '../kube-events.messages.js';
import { loadDefaultKubeConfig } from '../api/default-kube-config.js';
import { AwaitedPublish } from './awaited-publish.js';
import { monotonicNow } from './monotonic-clock.js';
import { PublishDeadlines } from './publish-deadlines.js';
import { resolveRecorderOptions } from './recorder-options.js';
import type { Occurrence } from './occurrence.js';
import {
  outcomeOf,
  refusedOccurrence,
  type OutcomeDetails,
  type PublishOutcome,
  type PublishOutcomeKind,
} from './publish-outcome.js';
import { ConnectionHealth } from './connection-health.js';
import { connectionVerdict, isThrottled, mayHaveApplied, retryDelay } from './retry-backoff.js';
import type { Batch, Series } from './series.js';
import { SeriesStore } from './series-store.js';
import { heldWhileUnreachable, probe, retryNow } from './series-write-state.js';
import { SimilarEvents } from './similar-events.js';
import { SeriesWriter } from './series-writer.js';
import { RecorderTracing } from '../tracing/recorder-tracing.js';
import { WriteBudget } from './write-budget.js';
import type { WritePlan, WriteResult } from './write-plan.js';
import { WriteScheduler } from './write-scheduler.js';

/** How soon `flush()` tries a failed write again, unless the server said when. */
const FLUSH_RETRY_MS = 100;

/** Requests one attempt may send when an Event changed or expired under it (read, then write again), before it counts as a failure. */
const MAX_REQUESTS_PER_ATTEMPT = 4;

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
  private readonly outcomes = new Subject<PublishOutcome>();
  private readonly options: ResolvedRecorderOptions;
  private readonly store: SeriesStore;
  /** Combines the Events of notes that keep changing; unset with `combineSimilarEvents: false`. */
  private readonly similar?: SimilarEvents;
  private readonly scheduler: WriteScheduler;
  /** Where Events go: the Events API of the API server, or what was given in its place. */
  private readonly eventsApi: EventsWriter;
  private readonly writer: SeriesWriter;
  private readonly deadlines: PublishDeadlines;
  /** Unset without OpenTelemetry, or with `traceContext` and `writeSpans` off. */
  private readonly tracing: RecorderTracing | undefined;
  /** The write in flight of each series that has one. */
  private readonly inFlight = new Map<Series, Promise<void>>();
  /** Series that `flush()` is writing itself, whatever the budgets. */
  private readonly draining = new Set<Series>();
  /** Whether the server can be reached, since when not, and the probes meanwhile. */
  private readonly health = new ConnectionHealth();
  /** The one shutdown, once begun. */
  private shutdown: Promise<void> | undefined;
  /** Said once: every new series would say it again. */
  private lookupRefusalLogged = false;
  private readonly logger = new Logger('EventRecorder');

  /**
   * @param options checked and completed with the defaults; options already resolved come out unchanged
   * @param eventsApi where Events go, closed on shutdown; unless given, the API server of `options.kubeConfig`,
   * else of the default KubeConfig (`KubeEventsModule` always gives one)
   * @throws Error naming the field when an option is invalid
   */
  constructor(options: KubeEventsModuleOptions, eventsApi?: EventsWriter) {
    this.options = resolveRecorderOptions(options);
    this.reporter = Object.freeze({ ...this.options.reporter });
    const { seriesWindow, maxSeries, writeControl, timeout, resumeSeries } = this.options;
    this.store = new SeriesStore({
      window: seriesWindow,
      maxSeries,
      maxPending: writeControl.maxPending,
      controller: this.reporter.controller,
      resume: resumeSeries,
    });
    const { combineSimilarEvents: limit } = this.options;
    if (limit) this.similar = new SimilarEvents(limit, seriesWindow, maxSeries);
    const budget = new WriteBudget(writeControl, monotonicNow());
    this.scheduler = new WriteScheduler(budget);
    this.scheduler.due$.subscribe((series) => void this.write(series));
    this.eventsApi = eventsApi ?? new EventsApi(options.kubeConfig ?? loadDefaultKubeConfig());
    this.tracing = RecorderTracing.create(this.options);
    this.writer = new SeriesWriter(this.eventsApi, this.options.reporter, timeout, this.tracing);
    this.deadlines = new PublishDeadlines((awaited) =>
      awaited.reject(new PublishTimeoutError(timeout, { queued: true, cause: awaited.carrier?.lastError })),
    );
    this.outcomes$ = this.outcomes.asObservable();
  }

  /** How long one publish may take, in milliseconds. */
  get timeout(): number {
    return this.options.timeout;
  }

  /** How many series the recorder tracks now. */
  get trackedSeries(): number {
    return this.store.size;
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
    return this.record(resource, event, false);
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
    return this.record(resource, event, true);
  }

  /** Forgets the failure series of `resource` only, as after a successful reconcile. */
  forgetFailures(resource: KubernetesObject): void {
    this.end(resource, true);
  }

  /**
   * Writes every queued occurrence now, whatever the budgets, retrying
   * failed writes (after their backoff) until `timeout` has passed, and
   * waits for the writes in flight. What is still queued then is dropped,
   * counted and logged; it takes at most about twice `timeout`. For
   * shutdown: an awaited publish is on the server already.
   */
  async flush(): Promise<void> {
    const deadline = monotonicNow() + this.options.timeout;
    await Promise.all([...this.store.withWork].map((series) => this.drain(series, deadline)));
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
      this.outcomes.complete();
      await this.eventsApi.close?.();
    });
    return this.shutdown;
  }

  /**
   * Ends the series of `resource` (all, or its failure ones). With
   * `resumeSeries`, their Events say so, in the background, so that no later
   * process continues them.
   */
  private end(resource: KubernetesObject, failure: true | undefined): void {
    const uid = resource?.metadata?.uid;
    if (typeof uid !== 'string' || !uid) return;
    this.similar?.forget(uid, failure);
    const ended = this.store.forget(uid, failure, monotonicNow());
    if (!this.options.resumeSeries) return;
    const annotations = { [SERIES_ENDED_ANNOTATION]: new Date().toISOString() };
    for (const event of ended) {
      this.writer.annotate(event.namespace, event.name, annotations).then(
        () => this.store.endShown(event),
        (error: unknown) => this.logger.warn(SERIES_END_NOT_RECORDED(event.namespace, event.name, error)),
      );
    }
  }

  private record(resource: KubernetesObject, event: KubeEvent, failure: boolean): Promise<void> {
    const publishedAt = monotonicNow();
    let occurrence: Occurrence;
    try {
      const validated = validatePublish(resource, event, this.options.redactNote);
      occurrence = {
        resource: validated.resource,
        event: validated.event,
        failure,
        publishedAt,
        trace: this.tracing?.capture(),
      };
    } catch (error) {
      this.emit('failed', refusedOccurrence(resource, event, failure, publishedAt, this.options.redactNote), {
        count: 1,
        error,
        now: publishedAt,
      });
      return Promise.reject(error);
    }
    const combined = this.similar?.combine(occurrence);
    if (combined) this.emit('combined', occurrence, { count: 1, now: publishedAt });
    occurrence = combined ?? occurrence;
    // An object without a uid gets an Event of its own every time.
    const uid = occurrence.resource.metadata?.uid;
    const { reason, action } = occurrence.event;
    const series = uid ? this.store.acquire(uid, failure, reason, action, publishedAt) : this.store.untracked(failure);
    const awaited = new AwaitedPublish(publishedAt + this.options.timeout);
    const { batch, joined, evicted } = this.store.enqueue(series, occurrence, awaited);
    if (evicted) this.drop(evicted, 'evicted');
    if (!batch) {
      this.dropOccurrence(occurrence, awaited, 'full');
      return awaited.promise;
    }
    awaited.carrier = batch;
    if (joined) this.emit('coalesced', occurrence, { count: batch.occurrences, now: publishedAt });
    if (!this.health.unreachable) {
      this.deadlines.watch(awaited);
      // A write that timed out or lost its answer holds nothing that delays this one: its retry goes now, with both.
      if (retryNow(series)) this.scheduler.cancel(series);
    } else if (
      series.state !== 'writing' &&
      !this.draining.has(series) &&
      this.health.tryProbe(publishedAt) &&
      probe(series)
    ) {
      // While the server is down, one publish now and then tries it itself, whatever the budgets (one write a
      // probe interval at most): the first publish after the server is back resolves.
      this.deadlines.watch(awaited);
      this.scheduler.cancel(series);
      void this.write(series);
    } else {
      heldWhileUnreachable(series, publishedAt + retryDelay(1));
      awaited.reject(this.unreachableError());
    }
    if (!this.draining.has(series)) this.scheduler.schedule(series);
    return awaited.promise;
  }

  /** Sends the series' next write, and any the server's answer calls for, then schedules the next one. */
  private async write(series: Series): Promise<void> {
    const now = monotonicNow();
    const started = this.store.startWrite(series, now);
    if (!started) return;
    this.health.attemptStarted(now);
    const run = this.attempt(series, started.batch, started.plan);
    this.inFlight.set(series, run);
    await run;
    this.health.attemptEnded(monotonicNow());
    this.inFlight.delete(series);
    if (!this.draining.has(series)) this.scheduler.schedule(series);
  }

  private async attempt(series: Series, batch: Batch, plan: WritePlan): Promise<void> {
    let resent = false;
    for (let requests = 1; ; requests++) {
      let result: WriteResult;
      try {
        result = await this.writer.send(batch.first, plan, batch.trace);
      } catch (error) {
        const failure = error instanceof PublishError ? error : new PublishError(String(error), { cause: error });
        // A connection lost once (an idle timeout, a graceful shutdown) says nothing of the next: send again, on a fresh one.
        if (!resent && connectionVerdict(failure) === 'lost') {
          resent = true;
          this.store.lost(batch, failure);
          continue;
        }
        this.failed(series, batch, failure);
        return;
      }
      this.answered();
      if (result.kind === 'found' && result.refused) this.warnLookupRefused(result.refused);
      const settled = this.store.settle(series, batch, result, monotonicNow());
      if (settled.kind === 'written') {
        const uid = 'state' in result ? result.state.uid : undefined;
        const written = { name: settled.event.name, namespace: settled.event.namespace, uid };
        this.emit(settled.created ? 'created' : 'patched', batch.first, {
          count: settled.count,
          written,
          trace: batch.trace,
          now: monotonicNow(),
        });
        for (const waiter of [...batch.waiters]) waiter.resolve();
        return;
      }
      if (requests >= MAX_REQUESTS_PER_ATTEMPT) {
        this.failed(series, batch, new PublishApiError(EVENT_KEPT_CHANGING(requests), 409, 'Conflict'));
        return;
      }
      plan = settled.plan;
    }
  }

  private failed(series: Series, batch: Batch, error: PublishError): void {
    const now = monotonicNow();
    this.emit('failed', batch.first, { count: batch.occurrences, error, now, trace: batch.trace });
    const verdict = this.store.fail(series, batch, error, now);
    this.judgeConnection(batch, error);
    if (verdict.kind === 'refused') for (const waiter of [...batch.waiters]) waiter.reject(error);
    else if (verdict.kind === 'expired') this.drop(batch, 'expired', error);
    else if (this.health.unreachable) for (const waiter of [...batch.waiters]) waiter.reject(this.unreachableError());
  }

  /**
   * What a failed write says of the server: a failed connection attempt
   * makes it unreachable, and so does a write that lost its connection
   * again on its retry (the server keeps closing connections unanswered);
   * a connection lost once, or a timeout, concerns that write alone; an
   * answer, of any status, makes it reachable.
   */
  private judgeConnection(batch: Batch, error: PublishError): void {
    const verdict = connectionVerdict(error);
    if (verdict === 'answered') this.answered();
    else if (verdict === 'unconnected' || (verdict === 'lost' && batch.unanswered >= 2))
      this.health.unreachableNow(error as PublishApiError);
  }

  private warnLookupRefused(error: PublishApiError): void {
    if (this.lookupRefusalLogged) return;
    this.lookupRefusalLogged = true;
    this.logger.warn(SERIES_LOOKUP_REFUSED(error));
  }

  /** The server answered: if it was unreachable, the series backing off may write at once. */
  private answered(): void {
    if (!this.health.answered()) return;
    for (const series of this.store.endBackoffs()) {
      if (this.draining.has(series)) continue;
      this.scheduler.cancel(series);
      this.scheduler.schedule(series);
    }
  }

  /** Writes what the series has queued, whatever the budgets, until `deadline`; drops what is left then. */
  private async drain(series: Series, deadline: number): Promise<void> {
    this.draining.add(series);
    this.scheduler.cancel(series);
    try {
      while (series.queue.length) {
        const inFlight = this.inFlight.get(series);
        const now = monotonicNow();
        if (inFlight) await inFlight;
        else if (now >= deadline) for (const batch of this.store.dropQueued(series)) this.drop(batch, 'flush');
        else if (this.retryAtWhileDraining(series) > now)
          await sleep(Math.min(this.retryAtWhileDraining(series), deadline) - now);
        else await this.write(series);
      }
    } finally {
      this.draining.delete(series);
    }
  }

  /**
   * When `flush()` tries a failed write again: soon, since its time is
   * short, but no sooner than the server's `Retry-After`.
   */
  private retryAtWhileDraining(series: Series): number {
    if (series.state === 'throttled' || isThrottled(series.queue[0]?.lastError)) return series.retryAt;
    return Math.min(series.retryAt, series.lastFailureAt + FLUSH_RETRY_MS);
  }

  /** Gives up a batch: its occurrences are counted and logged, and its waiters told. */
  private drop(batch: Batch, cause: DropCause, lastError: unknown = batch.lastError): void {
    const { first } = batch;
    // What a read showed on the server already is not given up; what an earlier attempt may have put there, the error says.
    const occurrences = batch.occurrences - batch.landed;
    const error = batch.uncertainBy && !mayHaveApplied(lastError) ? batch.uncertainBy : lastError;
    this.logger.warn(OCCURRENCES_DROPPED(occurrences, first.resource, first.event, cause, error));
    this.emit('dropped', first, { count: occurrences, error, now: monotonicNow() });
    const dropped = new PublishError(OCCURRENCES_DROPPED(occurrences, first.resource, first.event, cause, error), {
      cause: error,
    });
    for (const waiter of [...batch.waiters]) waiter.reject(dropped);
  }

  private dropOccurrence(occurrence: Occurrence, awaited: AwaitedPublish, cause: DropCause): void {
    const message = OCCURRENCES_DROPPED(1, occurrence.resource, occurrence.event, cause);
    this.logger.warn(message);
    this.emit('dropped', occurrence, { count: 1, now: occurrence.publishedAt });
    awaited.reject(new PublishError(message));
  }

  private unreachableError(): PublishUnreachableError {
    const { since, why } = this.health.unreachable!;
    return new PublishUnreachableError(SERVER_UNREACHABLE(new Date(since), why.message), new Date(since), {
      cause: why,
    });
  }

  private emit(kind: PublishOutcomeKind, occurrence: Occurrence, details: OutcomeDetails): void {
    if (this.outcomes.observed) this.outcomes.next(outcomeOf(kind, this.reporter, occurrence, details));
  }
}
