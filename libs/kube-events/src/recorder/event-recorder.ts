import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Subject, type Observable } from 'rxjs';
import { loadDefaultKubeConfig } from '../module/default-kube-config.js';
import { validateEvent } from '../api/event-validation.js';
import { EventsApi, type EventsWriter } from '../api/events-api.js';
import { PublishApiError, PublishError, PublishTimeoutError } from '../errors.js';
import type { KubeEvent, KubeEventsModuleOptions, Reporter, ResolvedRecorderOptions } from '../kube-events.interfaces.js';
import { OCCURRENCES_DROPPED } from '../kube-events.messages.js';
import { resolveRecorderOptions } from '../module/options-validation.js';
import type { PublishOutcome, PublishOutcomeKind } from './publish-outcome.js';
import { SeriesStore, type EventIdentity, type FoldedOccurrences, type Series } from './series-store.js';
import { monotonicNow } from './monotonic-clock.js';
import { identityOf, sameIdentity, SeriesWriter, type Written } from './series-writer.js';
import { WriteBudget } from './write-budget.js';

/** How often the write of folded occurrences is tried before they are dropped. */
const FOLDED_WRITE_TRIES = 3;

/** Distinct events folded at most per series; past it the oldest is dropped, so one noisy object cannot use up `maxPending`. */
const MAX_FOLDED_PER_SERIES = 8;

/**
 * Publishes `events.k8s.io/v1` Events on behalf of one controller.
 *
 * Repeats fold into series: a publish equal to the series' last Event
 * (type, reason, action, note, related, annotations) within `seriesWindow`
 * of its last write raises `series.count` with a JSON merge patch instead of
 * creating an object. One write per series is in flight at a time.
 *
 * When a publish resolves: once its occurrence is written, when it can be
 * written at once; otherwise (a write of the same series is in flight, or
 * the object's or the recorder's write budget is spent) at once, with the
 * occurrence counted locally and folded into the series' next write, which
 * is sent as soon as the object's budget allows and at the latest
 * `maxDelay` later (then as the recorder-wide budget allows). Either way it
 * settles within `timeout`; a timed-out request is aborted. Folded
 * occurrences are dropped only past `maxPending` (or 8 distinct events in
 * one series), after their write failed three times, or when `flush()` runs
 * out of time, and are then counted and logged.
 *
 * `kubectl describe <object>` lists the Events under the object: `Type`,
 * `Reason`, `Age` (with the series count, `x3 over 2m`), `From`
 * (`reporter.controller`) and `Message` (the note).
 *
 * RBAC: `create` and `patch` on `events` in API group `events.k8s.io`, in
 * every namespace the controller publishes about, and in `default` for
 * cluster-scoped objects.
 *
 * @example
 * const recorder = new EventRecorder({ reporter: { controller: 'example.com/widget-controller' } });
 * await recorder.publish(widget, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'scaled to 3' });
 */
export class EventRecorder implements OnApplicationShutdown {
  /** Who publishes, as written to `reportingController` and `reportingInstance`. */
  readonly reporter: Readonly<Required<Reporter>>;
  /** Every publish outcome, for sinks and metrics. */
  readonly outcomes$: Observable<PublishOutcome>;
  private readonly outcomes = new Subject<PublishOutcome>();
  private readonly options: ResolvedRecorderOptions;
  private readonly store: SeriesStore;
  private readonly budget: WriteBudget;
  /** Series holding folded occurrences. */
  private readonly withFolded = new Set<Series>();
  private foldedEntries = 0;
  /** Series whose folded occurrences wait only for the recorder-wide budget, in order, behind one timer. */
  private readonly awaitingBudget = new Set<Series>();
  private budgetTimer: NodeJS.Timeout | undefined;
  private readonly writer: SeriesWriter;
  private readonly logger = new Logger('EventRecorder');

  /**
   * @param writer where Events go; the API server of `options.kubeConfig` unless given
   * @throws Error naming the field when an option is invalid
   */
  constructor(options: KubeEventsModuleOptions, writer?: EventsWriter) {
    this.options = resolveRecorderOptions(options);
    this.reporter = Object.freeze({ ...this.options.reporter });
    this.store = new SeriesStore(this.options.seriesWindow, this.options.maxSeries);
    this.budget = new WriteBudget(this.options.writeControl, monotonicNow());
    const api = writer ?? new EventsApi(options.kubeConfig ?? loadDefaultKubeConfig());
    this.writer = new SeriesWriter(api, this.store, this.options.reporter, this.options.timeout, (series) =>
      this.scheduleFolded(series),
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
   *
   * @throws InvalidEventError before any request, naming the bad field
   * @throws PublishTimeoutError when the write did not settle within `timeout`
   * @throws PublishApiError when the API server refused it or could not be reached
   */
  publish(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    return this.record(resource, event, false);
  }

  /** Forgets every series of `resource`: its next publish creates a new Event. */
  forget(resource: KubernetesObject): void {
    const uid = resource?.metadata?.uid;
    if (uid) this.store.forget(uid, undefined, monotonicNow());
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
    const uid = resource?.metadata?.uid;
    if (uid) this.store.forget(uid, true, monotonicNow());
  }

  /**
   * Writes every folded occurrence now, whatever the budgets, and waits for
   * the writes in flight. Bounded: occurrences still folded `timeout` after
   * the call are dropped (counted and logged), so it takes at most about
   * twice `timeout`.
   */
  async flush(): Promise<void> {
    const deadline = monotonicNow() + this.options.timeout;
    const settled = [...this.writer.inFlight].map((write) => write.catch(() => undefined));
    await Promise.all([...[...this.withFolded].map((series) => this.drain(series, deadline)), ...settled]);
  }

  /** Writes what is folded before the application exits, so that the counts on the server are exact. */
  async onApplicationShutdown(): Promise<void> {
    await this.flush();
    this.outcomes.complete();
  }

  private async record(resource: KubernetesObject, event: KubeEvent, failure: boolean): Promise<void> {
    const startedAt = monotonicNow();
    let valid: KubeEvent;
    try {
      valid = validateEvent(resource, event);
    } catch (error) {
      this.emit('failed', resource, event, failure, 1, startedAt, undefined, error);
      throw error;
    }
    const uid = resource.metadata?.uid;
    if (!uid) return this.writeUntracked(resource, valid, failure, startedAt);
    const key = `${failure ? 'failure' : 'publish'}\0${uid}\0${valid.reason}\0${valid.action}`;
    const series = this.store.acquire(key, uid, failure, startedAt);
    const identity = identityOf(valid);
    // Series already waiting in line for the recorder-wide budget go first.
    const writable = !series.writing && !series.folded.length && !this.awaitingBudget.size;
    if (writable && this.budget.tryTake(series.object, startedAt)) {
      return this.writeNow(series, resource, valid, identity, startedAt);
    }
    this.fold(series, resource, valid, identity, startedAt);
  }

  /** Writes one occurrence and settles with its write. */
  private async writeNow(series: Series, resource: KubernetesObject, event: KubeEvent, identity: EventIdentity, startedAt: number) {
    try {
      const written = await this.writer.run(series, (signal) => this.writer.write(series, resource, event, identity, 1, signal));
      this.emit(written.kind, resource, event, series.failure, written.count, startedAt, written);
    } catch (error) {
      this.emit('failed', resource, event, series.failure, 1, startedAt, undefined, error);
      throw error;
    }
  }

  /** Counts an occurrence that cannot be written now into the series' next write. */
  private fold(series: Series, resource: KubernetesObject, event: KubeEvent, identity: EventIdentity, now: number): void {
    const last = series.folded.at(-1);
    let entry: FoldedOccurrences;
    if (last && sameIdentity(last.identity, identity)) {
      entry = last;
      entry.occurrences++;
    } else {
      if (this.foldedEntries >= this.options.writeControl.maxPending) {
        this.drop(resource, event, series.failure, 1, now);
        return;
      }
      if (series.folded.length >= MAX_FOLDED_PER_SERIES) this.dropFolded(series, series.folded[0]);
      entry = { resource, event, identity, occurrences: 1, firstAt: now, tries: 0, notBefore: 0 };
      series.folded.push(entry);
      series.busy++;
      this.foldedEntries++;
      this.withFolded.add(series);
    }
    this.emit('coalesced', resource, event, series.failure, entry.occurrences, now);
    this.scheduleFolded(series);
  }

  /**
   * Writes the series' oldest folded entry as soon as the budgets allow: a
   * timer of its own while its object's budget holds it back, else a place
   * in the line for the recorder-wide budget, which one timer serves.
   */
  private scheduleFolded(series: Series, atHeadOfLine = false): void {
    if (series.writing || series.flushTimer || !series.folded.length || this.awaitingBudget.has(series)) return;
    const entry = series.folded[0];
    const now = monotonicNow();
    const waited = now - entry.firstAt;
    const objectWait = Math.max(entry.notBefore - now, this.budget.msUntilObjectWrite(series.object, waited, now));
    if (objectWait > 0) {
      series.flushTimer = setTimeout(() => {
        series.flushTimer = undefined;
        this.scheduleFolded(series);
      }, objectWait);
      series.flushTimer.unref();
    } else if ((atHeadOfLine || !this.awaitingBudget.size) && this.budget.tryTakeFolded(series.object, waited, now)) {
      void this.writeFolded(series);
    } else {
      this.awaitingBudget.add(series);
      this.armBudgetTimer();
    }
  }

  private armBudgetTimer(): void {
    if (this.budgetTimer || !this.awaitingBudget.size) return;
    const wait = Math.max(1, this.budget.msUntilRecorderWrite(monotonicNow()));
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = undefined;
      for (const series of this.awaitingBudget) {
        if (this.budget.msUntilRecorderWrite(monotonicNow()) > 0) break;
        this.awaitingBudget.delete(series);
        this.scheduleFolded(series, true);
      }
      this.armBudgetTimer();
    }, wait);
    this.budgetTimer.unref();
  }

  /**
   * Writes the series' oldest folded entry. A failed write is tried again
   * later (at most three times, on errors that may pass), then dropped; when
   * `final`, as on shutdown, it is dropped at once.
   */
  private async writeFolded(series: Series, final = false): Promise<void> {
    const entry = series.folded.shift();
    if (!entry) return;
    // The bookkeeping runs inside the write, so that it is done before the next write is scheduled.
    await this.writer.run(series, async (signal) => {
      try {
        const written = await this.writer.write(series, entry.resource, entry.event, entry.identity, entry.occurrences, signal);
        this.foldedDone(series);
        this.emit(written.kind, entry.resource, entry.event, series.failure, written.count, entry.firstAt, written);
      } catch (error) {
        this.emit('failed', entry.resource, entry.event, series.failure, entry.occurrences, entry.firstAt, undefined, error);
        if (!final && isWorthRetrying(error) && ++entry.tries < FOLDED_WRITE_TRIES) {
          entry.notBefore = monotonicNow() + this.options.writeControl.maxDelay;
          series.folded.unshift(entry);
        } else {
          this.foldedDone(series);
          this.drop(entry.resource, entry.event, series.failure, entry.occurrences, entry.firstAt, error);
        }
      }
    }).catch(() => undefined);
  }

  /** Writes what the series has folded, whatever the budgets, until `deadline`; drops what is left then. */
  private async drain(series: Series, deadline: number): Promise<void> {
    clearTimeout(series.flushTimer);
    series.flushTimer = undefined;
    this.awaitingBudget.delete(series);
    // A write that settles may start the next folded one itself: wait for that too.
    while (series.folded.length || series.writing) {
      if (series.writing) await series.writing.catch(() => undefined);
      else if (monotonicNow() < deadline) await this.writeFolded(series, true);
      else for (const entry of [...series.folded]) this.dropFolded(series, entry);
    }
  }

  /** Gives up a folded entry that is not being written. */
  private dropFolded(series: Series, entry: FoldedOccurrences): void {
    series.folded.splice(series.folded.indexOf(entry), 1);
    this.foldedDone(series);
    this.drop(entry.resource, entry.event, series.failure, entry.occurrences, entry.firstAt);
  }

  /** Accounts for a folded entry that was written or given up. */
  private foldedDone(series: Series): void {
    series.busy--;
    this.foldedEntries--;
    if (!series.folded.length) {
      this.withFolded.delete(series);
      this.awaitingBudget.delete(series);
    }
  }

  /** Creates an Event about an object without a uid: no series, so it waits for the recorder's budget instead of folding. */
  private async writeUntracked(resource: KubernetesObject, event: KubeEvent, failure: boolean, startedAt: number): Promise<void> {
    try {
      const written = await this.writer.run(undefined, async (signal) => {
        while (!this.budget.tryTake(undefined, monotonicNow())) {
          await sleep(this.budget.msUntilRecorderWrite(monotonicNow()), undefined, { signal });
        }
        return this.writer.create(resource, event, 1, signal);
      });
      this.emit('created', resource, event, failure, 1, startedAt, written);
    } catch (error) {
      this.emit('failed', resource, event, failure, 1, startedAt, undefined, error);
      throw error;
    }
  }

  private drop(resource: KubernetesObject, event: KubeEvent, failure: boolean, count: number, since: number, error?: unknown) {
    this.logger.warn(OCCURRENCES_DROPPED(count, resource, event, error));
    this.emit('dropped', resource, event, failure, count, since, undefined, error);
  }

  private emit(
    kind: PublishOutcomeKind,
    resource: KubernetesObject,
    event: KubeEvent,
    failure: boolean,
    count: number,
    since: number,
    written?: Written,
    error?: unknown,
  ): void {
    if (!this.outcomes.observed) return;
    const metadata = resource?.metadata;
    this.outcomes.next({
      kind,
      reporter: this.reporter,
      regarding: {
        apiVersion: resource?.apiVersion,
        kind: resource?.kind,
        name: metadata?.name,
        namespace: metadata?.namespace,
        uid: metadata?.uid,
      },
      event,
      failure,
      count,
      eventName: written?.name,
      namespace: written?.namespace,
      error: error === undefined ? undefined : asPublishError(error),
      durationMs: Math.round(monotonicNow() - since),
    });
  }
}

/** Server errors, throttling, timeouts and unreachable servers may pass; refusals will not. */
function isWorthRetrying(error: unknown): boolean {
  if (error instanceof PublishTimeoutError) return true;
  if (!(error instanceof PublishApiError)) return false;
  const status = error.statusCode;
  return status === undefined || status === 429 || status >= 500;
}

function asPublishError(error: unknown): PublishError {
  if (error instanceof PublishError) return error;
  return new PublishError(error instanceof Error ? error.message : String(error), { cause: error });
}
