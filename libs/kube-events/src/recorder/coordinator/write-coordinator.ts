import {
  PublishCredentialError,
  PublishError,
  PublishTimeoutError,
  PublishUnreachableError,
  type PublishApiError,
} from '../../errors.js';
import type { KubernetesObject } from '@kubernetes/client-node';
import { validatePublish } from '../../event-rules/event-validation.js';
import type {
  KubeEvent,
  KubeEventsClock,
  KubeEventsTimer,
  ResolvedRecorderOptions,
} from '../../kube-events.interfaces.js';
import type { RecorderTracing } from '../../tracing/recorder-tracing.js';
import { RECORDER_CLOSED, RECORDER_SHUT_DOWN, SERVER_UNREACHABLE } from '../../kube-events.messages.js';
import { PublishDeadlines } from '../deadlines/index.js';
import { unreachableRetryAt, type DueWrites, type WriteBudgets, WriteScheduler } from '../pacing/index.js';
import { AwaitedPublish, refusedOccurrence, type Occurrence, type RecorderOutcomes } from '../publish/index.js';
import {
  type Batch,
  type EndedEvents,
  failedWrite,
  heldByConnection,
  probe,
  queued,
  retryNow,
  serverBack,
  type Series,
  type SeriesIndex,
  writing,
  written,
} from '../series/index.js';
import type { EndedWrite, WriteLedger, WriteQueue, WriteSender } from '../writes/index.js';
import { CoordinatorState, type ConnectionDown } from './coordinator-state.js';
import { DroppedOccurrences } from './dropped-occurrences.js';
import { type AnnotateEvent, SeriesEndMarks } from './series-end-marks.js';

export type { ConnectionDown } from './coordinator-state.js';

/** What a {@link WriteCoordinator} works with. */
export interface WriteCoordinatorParts {
  /** The options it reads: how long a publish may take, and how a note is redacted. */
  readonly options: Pick<ResolvedRecorderOptions, 'timeout' | 'redactNote'>;
  /** The series of each publish, bounded in time and number. */
  readonly series: SeriesIndex;
  /** Unset without OpenTelemetry, or with `traceContext` off: the trace a publish is made in. */
  readonly tracing?: RecorderTracing;
  readonly queue: WriteQueue;
  readonly ledger: WriteLedger;
  /** Sends each write, start to end. */
  readonly sender: WriteSender;
  /** The recorder-wide rate, which follows what the server admits. */
  readonly budget: WriteBudgets;
  readonly clock: KubeEventsClock;
  readonly outcomes: RecorderOutcomes;
  /** How many writes the writer carries at once, as it says: the coordinator sends no more at a time. */
  readonly writesAtOnce: number;
  /**
   * With `resumeSeries`: the Events whose series ended here, and how the
   * annotation that marks one ended is sent. Unset, an ended series' Event
   * is left as it is.
   */
  readonly endedSeries?: { readonly ended: EndedEvents; readonly annotate: AnnotateEvent };
}

/** A publish as the coordinator takes it in. */
export interface ScheduledPublish {
  /** Settles once the occurrence is counted in its series and its write scheduled, or with its own write when that goes at once. */
  readonly scheduled: Promise<void>;
  /** Settles as `publish()` does: once the occurrence is counted on the API server, or with why not. */
  readonly written: Promise<void>;
}

/**
 * The one coordinator of the write path. It takes each publish in
 * ({@link takeIn}: validated, counted in its series, queued), lets the
 * scheduler say when the series' next write goes (the scheduler's timers
 * call it back), starts the write (the batch taken from the queue, its
 * series writing, its plan from the {@link WriteLedger}), has the
 * {@link WriteSender} send it (the sender has the ledger read each answer
 * into a decision), and applies how it ended in one place
 * ({@link settle}): the queue, the series' write state and Event, the
 * connection, the recorder-wide rate, the outcome, drops and the publishes
 * the write carried. It alone moves a series' write state. Its own state,
 * and every move of it, is the {@link CoordinatorState}; `flush()` is the
 * scheduler's draining mode.
 */
export class WriteCoordinator implements DueWrites {
  private readonly state: CoordinatorState;
  /** When each series' next write may go. */
  private readonly scheduler: WriteScheduler;
  /** Settles `flush()` once nothing is left queued. */
  private flushed: PromiseWithResolvers<void> | undefined;
  /** Gives up what will not be written: counted, logged, reported. */
  private readonly drops: DroppedOccurrences;
  /** Each publish's deadline: past it, its caller is told that it stays queued. */
  private readonly deadlines: PublishDeadlines;
  /** With `resumeSeries`, the annotations marking ended series' Events, paced as writes are. */
  private readonly endMarks: SeriesEndMarks | undefined;
  /** Set while end marks wait for the recorder-wide budget. */
  private endMarksTimer: KubeEventsTimer | undefined;

  constructor(private readonly parts: WriteCoordinatorParts) {
    this.state = new CoordinatorState(parts.writesAtOnce);
    this.drops = new DroppedOccurrences(parts.outcomes, parts.clock);
    this.scheduler = new WriteScheduler(parts.budget, parts.clock, this);
    const { endedSeries } = parts;
    this.endMarks = endedSeries && new SeriesEndMarks(endedSeries.ended, endedSeries.annotate);
    const { timeout } = parts.options;
    this.deadlines = new PublishDeadlines(parts.clock, (awaited) =>
      this.tellQueued(
        awaited,
        new PublishTimeoutError(timeout, { queued: true, cause: awaited.carrier?.attempts.lastError }),
      ),
    );
  }

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get connectionDown(): ConnectionDown | undefined {
    return this.state.down;
  }

  /** Occurrences queued now, not yet counted on the server. */
  get queuedOccurrences(): number {
    return this.parts.queue.occurrences;
  }

  /** Occurrences queued after a failed write, waiting to be retried. */
  get retryingOccurrences(): number {
    return this.parts.queue.retrying;
  }

  /** Whether the server's overload answers (`429`, `503`) hold the recorder's write rate down now. */
  get throttled(): boolean {
    return this.parts.budget.throttled(this.parts.clock.now());
  }

  /** While `flush()` runs, when it gives up what is still queued. */
  get drainingUntil(): number | undefined {
    return this.state.drainingUntil;
  }

  /** Takes a publish in ({@link takeIn}): settles once the occurrence is counted on the API server, or with why not. */
  publish(resource: KubernetesObject, event: KubeEvent, failure: boolean): Promise<void> {
    return this.awaitedPublish(resource, event, failure).awaited.promise;
  }

  /** Takes a publish in ({@link takeIn}), and says when the caller may go on: see {@link ScheduledPublish}. */
  schedulePublish(resource: KubernetesObject, event: KubeEvent, failure: boolean): ScheduledPublish {
    const { awaited, waitsForWrite } = this.awaitedPublish(resource, event, failure);
    return { scheduled: waitsForWrite ? awaited.promise : Promise.resolve(), written: awaited.promise };
  }

  /** A publish taken in ({@link takeIn}) now, awaited until its timeout: whether its caller waits for its write. */
  private awaitedPublish(resource: KubernetesObject, event: KubeEvent, failure: boolean) {
    const publishedAt = this.parts.clock.now();
    const awaited = new AwaitedPublish(publishedAt + this.parts.options.timeout);
    return { awaited, waitsForWrite: this.takeIn(resource, event, failure, publishedAt, awaited) };
  }

  /**
   * Takes a publish in, `awaited` by its caller: `resource` and `event`
   * become the copies `validatePublish` checked (the note redacted and
   * cut), which is all the recorder reads of them from here on; refused,
   * the publish fails at once. Counted in its series, the occurrence is
   * queued and its write scheduled. Returns whether `awaited` is settled
   * already or its own write is on the wire: that write is the answer.
   */
  private takeIn(
    resource: KubernetesObject,
    event: KubeEvent,
    failure: boolean,
    publishedAt: number,
    awaited: AwaitedPublish,
  ): boolean {
    const { options, outcomes } = this.parts;
    try {
      ({ resource, event } = validatePublish(resource, event, options.redactNote));
    } catch (error) {
      return this.refuse(refusedOccurrence(resource, event, failure, publishedAt, options.redactNote), awaited, error);
    }
    const published = { resource, event, failure, publishedAt, trace: this.parts.tracing?.capture() };
    if (this.state.closed)
      return this.refuse(published, awaited, new PublishError(RECORDER_SHUT_DOWN(resource, event)));
    const { series, occurrence, combined } = this.parts.series.count(published);
    if (combined) outcomes.report('combined', published, { count: 1, now: publishedAt });
    return this.dispatch(series, occurrence, awaited);
  }

  /** A publish refused before it is counted in a series: its outcome says why, and its caller is told. */
  private refuse(occurrence: Occurrence, awaited: AwaitedPublish, error: unknown): true {
    this.parts.outcomes.report('failed', occurrence, { count: 1, error, now: occurrence.publishedAt });
    awaited.reject(error);
    return true;
  }

  /**
   * Ends the series of the object `uid` (all, or its failure ones). With
   * `resumeSeries`, their Events are marked ended on the server, each mark
   * sent as a write is: on a connection of the writer's, within the
   * recorder-wide budget, and awaited by `flush()`.
   */
  end(uid: string, failure: true | undefined): void {
    const ended = this.parts.series.forget(uid, failure, this.parts.clock.now());
    if (!this.endMarks || !ended.length) return;
    this.endMarks.add(ended);
    if (this.state.closed) this.endMarks.abandon(new PublishError(RECORDER_CLOSED));
    else this.sendEndMarks();
  }

  /**
   * Sends the waiting end marks that a connection and the recorder-wide
   * budget let go now (while `flush()` runs, every one); the rest wait for a
   * connection to be freed, or for the budget's next write.
   */
  private sendEndMarks(): void {
    const marks = this.endMarks;
    // Called as every write ends: nothing to read when no mark waits.
    if (!marks?.hasWaiting) return;
    const { budget, clock } = this.parts;
    const now = clock.now();
    while (marks.hasWaiting && this.state.mayTakeConnection()) {
      if (this.state.drainingUntil === undefined && !budget.tryTake(undefined, now)) {
        this.endMarksTimer ??= clock.setTimer(budget.msUntilRecorderWrite(now), () => {
          this.endMarksTimer = undefined;
          this.sendEndMarks();
        });
        return;
      }
      this.state.writeStarted(now);
      void marks.sendNext().then(() => this.endMarkSent());
    }
  }

  /** An end mark was answered (or failed, logged): its connection is free. */
  private endMarkSent(): void {
    this.state.writeEnded(this.parts.clock.now());
    this.connectionFreed();
    this.checkDrained();
  }

  /**
   * Queues an occurrence of `series`, awaited by `awaited`, and schedules
   * its write. Returns whether the caller waits for that write: it went on
   * the wire at once, or the publish is settled already (refused for room,
   * or while the server is unreachable); otherwise the
   * write waits for a budget, a backoff, a write of the series on its way,
   * or a connection.
   */
  private dispatch(series: Series, occurrence: Occurrence, awaited: AwaitedPublish): boolean {
    const now = occurrence.publishedAt;
    const { batch, joined, evicted, refused } = this.parts.queue.enqueue(series, occurrence, awaited);
    if (batch && !joined) queued(series);
    if (evicted) rejectAll(evicted, this.drops.drop(evicted, 'evicted'));
    if (!batch) {
      this.drops.refuse(occurrence, awaited, refused ?? 'full');
      return true;
    }
    if (joined) this.parts.outcomes.report('coalesced', occurrence, { count: batch.occurrences, now });
    this.admit(series, awaited, now);
    // A write past the writer's connections waits for the writes on their way, as one behind a budget does.
    const sentNow = series.state === 'writing' && series.queue[0] === batch && this.state.carriesAtOnce();
    return awaited.isSettled || sentNow;
  }

  /**
   * Writes every queued occurrence now, whatever the budgets, retrying
   * failed writes (soon, or after the server's `Retry-After`) until
   * `deadline`, and waits for the writes in flight; drops what is left then.
   * The scheduler does it, in its draining mode.
   */
  flush(deadline: number): Promise<void> {
    this.state.drainUntil(deadline);
    this.scheduler.cancelAll();
    const flushed = (this.flushed ??= Promise.withResolvers<void>());
    this.parts.clock.clearTimer(this.endMarksTimer);
    this.endMarksTimer = undefined;
    this.sendEndMarks();
    for (const series of [...this.parts.queue.withWork]) this.schedule(series);
    this.checkDrained();
    return flushed.promise;
  }

  /** Shut down (after the last `flush()`): a publish from now on is refused at once. */
  close(): void {
    this.state.close();
    this.parts.clock.clearTimer(this.endMarksTimer);
    this.endMarksTimer = undefined;
    this.endMarks?.abandon(new PublishError(RECORDER_CLOSED));
  }

  /** A timer of the scheduler let the series' next write go. */
  sendDue(series: Series): void {
    this.sendNext(series);
  }

  /**
   * `flush()` ran out of time: what the series has queued, not in flight, is
   * given up; a create among them that may have applied leaves its name to
   * the series' next create (see `Series.inDoubt`).
   */
  dropDue(series: Series): void {
    const { ledger, queue, clock } = this.parts;
    const now = clock.now();
    for (const batch of queue.dropQueued(series)) {
      series.inDoubt = ledger.givenUp(batch, now) ?? series.inDoubt;
      rejectAll(batch, this.drops.drop(batch, 'flush'));
    }
    if (!series.queue.length) written(series, false);
    this.checkDrained();
  }

  heldUntil(now: number): number | undefined {
    return this.state.heldUntil(now);
  }

  /**
   * The occurrence queued in `series` is watched for its deadline. While
   * the server is unreachable or the credentials fail, it is rejected at
   * once as queued, unless it probes the server with its series' write.
   */
  private admit(series: Series, awaited: AwaitedPublish, now: number): void {
    const { deadlines } = this;
    if (!this.state.down) {
      deadlines.watch(awaited);
      // A write that timed out or lost its answer holds nothing that delays this one: its retry goes now, with both.
      if (retryNow(series)) this.scheduler.cancel(series);
    } else if (series.state !== 'writing' && this.state.tryProbe(now) && probe(series)) {
      // While the server is down, one publish now and then tries it itself, whatever the budgets (one write a
      // probe interval, or a credentials' backoff, at most): the first publish after the fault ends resolves.
      deadlines.watch(awaited);
      this.scheduler.cancel(series);
      this.sendNext(series);
    } else {
      heldByConnection(series, this.state.heldUntil(now) ?? unreachableRetryAt(now));
      this.tellQueued(awaited, this.downError());
    }
    if (!this.state.isWaiting(series)) this.schedule(series);
  }

  /** Sends the series' next write now if the scheduler lets it go; else the scheduler sends it when it may. */
  private schedule(series: Series): void {
    if (this.scheduler.schedule(series)) this.sendNext(series);
  }

  /** Sends the series' next write, then {@link writeEnded} settles how it ended. */
  private sendNext(series: Series): void {
    const { clock } = this.parts;
    const now = clock.now();
    const heldUntil = this.state.heldUntil(now);
    if (heldUntil !== undefined) {
      // The credentials failed: none of the recorder's writes tries them again before their backoff has passed.
      heldByConnection(series, heldUntil);
      this.schedule(series);
      return;
    }
    if (!this.state.mayTakeConnection()) {
      this.state.waitForConnection(series, this.parts.budget.mark);
      return;
    }
    const batch = this.parts.queue.take(series);
    if (!batch) return;
    writing(series);
    this.state.writeStarted(now);
    void this.parts.sender
      .send(series, batch, this.parts.ledger.plan(series, batch, now), now)
      .then((ended) => this.writeEnded(series, ended));
  }

  /** A write ended: settles how, frees its connection, then schedules the series' next one. One function for every write. */
  private writeEnded(series: Series, ended: EndedWrite): void {
    const now = this.parts.clock.now();
    this.state.writeEnded(now);
    this.settle(series, ended, now);
    this.connectionFreed();
    if (series.queue.length) this.schedule(series);
    this.checkDrained();
  }

  /**
   * Applies how a write ended at `now`, the one place that does: the
   * batch's queue, its series' write state and Event ({@link settleSeries}),
   * then what the write said of the server's load and the connection, its
   * outcome (observers see the connection as the write left it), a drop,
   * and the publishes it carried.
   */
  private settle(series: Series, ended: EndedWrite, now: number): void {
    const { outcomes, budget } = this.parts;
    const { batch, decision } = ended;
    settleSeries(series, this.parts.queue, ended, now);
    if (decision.kind === 'written' || ended.answered) this.answered();
    if (decision.kind === 'written') {
      budget.admitted(now);
      const { name, namespace, count } = decision.event;
      const details = { count, written: { name, namespace, uid: decision.uid }, trace: batch.trace, now };
      outcomes.report(decision.created ? 'created' : 'patched', batch.first, details);
      for (const waiter of [...batch.waiters]) waiter.resolve();
      return;
    }
    const { error, then, load, connection } = decision;
    // The rate first: series the connection's verdict lets go again are scheduled at the rate the answer set.
    if (load === 'overloaded') budget.overloaded(ended.sentAt, now);
    else if (load === 'admitted') budget.admitted(now);
    const wasDown = this.state.down !== undefined;
    if (connection === 'answered') this.answered();
    else if (connection === 'credentials-failed') this.credentialsFailed(error, now);
    else if (connection === 'unreachable') this.state.unreachable(error as PublishApiError, now);
    // Refused after some of its publishes were told it stays queued: it is dropped, counted, not failed.
    const promisedQueued = then === 'refused' && batch.toldQueued > 0;
    if (!promisedQueued)
      outcomes.report('failed', batch.first, { count: batch.occurrences, error, now, trace: batch.trace });
    if (promisedQueued) rejectAll(batch, this.drops.drop(batch, 'refused', error));
    else if (then === 'refused') rejectAll(batch, error);
    else if (then === 'expired') rejectAll(batch, this.drops.drop(batch, 'expired', error));
    if (!this.state.down) return;
    // Publishes queued behind this write (a probe's occurrence joins the batch behind the one it sends) are told now.
    const downError = this.downError();
    this.rejectQueued(series, downError);
    // Just found down: what waits elsewhere (for a budget, a backoff) would wait for a server that is not there.
    if (!wasDown)
      for (const other of this.parts.queue.withWork) if (other !== series) this.rejectQueued(other, downError);
  }

  /**
   * A connection is free: an end mark waiting for one goes first (there are few, and each is one short
   * request); else the first series waiting for one goes, on the budget it took, unless the
   * recorder-wide rate was lowered since; then it goes through the budgets again.
   */
  private connectionFreed(): void {
    const inFlightBefore = this.state.writesInFlight;
    this.sendEndMarks();
    if (this.state.writesInFlight > inFlightBefore) return;
    for (let waiting = this.state.nextWaiting(); waiting; waiting = this.state.nextWaiting()) {
      const { series: next, mark } = waiting;
      const inFlight = this.state.writesInFlight;
      if (this.parts.budget.loweredSince(mark)) this.schedule(next);
      else this.sendNext(next);
      // One that had nothing left to send (written meanwhile) leaves the connection to the next.
      if (this.state.writesInFlight > inFlight) return;
    }
  }

  /** While `flush()` runs: once nothing is queued or in flight, end marks included, it is done. */
  private checkDrained(): void {
    if (!this.flushed || this.parts.queue.withWork.size || this.endMarks?.settled === false) return;
    this.state.drained();
    this.flushed.resolve();
    this.flushed = undefined;
  }

  /** Rejects, as queued, the publishes awaiting the series' batches that are not on their way now. */
  private rejectQueued(series: Series, error: PublishError): void {
    const inFlight = series.state === 'writing' ? series.queue[0] : undefined;
    for (const batch of series.queue) {
      if (batch === inFlight || !batch.waiters.size) continue;
      for (const waiter of [...batch.waiters]) this.tellQueued(waiter, error);
    }
  }

  /**
   * Rejects a publish with `error`, which says its occurrence stays queued:
   * a promise that it is written or counted as dropped, which its batch
   * counts (see `Batch.toldQueued`).
   */
  private tellQueued(awaited: AwaitedPublish, error: PublishError): void {
    if (awaited.isSettled) return;
    if (awaited.carrier) awaited.carrier.toldQueued++;
    awaited.reject(error);
  }

  /** The credentials failed: every series with work waits out their backoff, rather than start them again. */
  private credentialsFailed(error: PublishCredentialError, now: number): void {
    this.state.credentialsFailed(error, now);
    const until = this.state.heldUntil(now)!;
    for (const series of this.parts.queue.withWork) {
      heldByConnection(series, until);
      if (series.state === 'writing') continue;
      this.scheduler.cancel(series);
      this.schedule(series);
    }
  }

  /** The server answered: if it was unreachable, the series backing off may write at once. */
  private answered(): void {
    if (!this.state.answered()) return;
    for (const series of this.parts.queue.withWork) {
      if (!serverBack(series)) continue;
      this.scheduler.cancel(series);
      this.schedule(series);
    }
  }

  /** What a publish is rejected with at once while writes cannot reach the server: it stays queued. */
  private downError(): PublishError {
    const down = this.state.down!;
    if (down.kind === 'unauthenticated')
      return new PublishCredentialError(down.why.message, down.why.plugin, { queued: true, cause: down.why });
    return new PublishUnreachableError(
      SERVER_UNREACHABLE(new Date(down.since), down.why.message),
      new Date(down.since),
      {
        cause: down.why,
      },
    );
  }
}

/**
 * Applies to a series how its write ended, as the write coordinator does
 * first: the batch leaves the queue, or takes its room again for a retry
 * (a repeat queued behind it meanwhile joins it); the series' write state
 * moves; the series takes what the write saw of its Event (found, resumed,
 * another replica's, gone, passed over), its lookup answered, the Event
 * written, or the create it leaves in doubt.
 */
export function settleSeries(
  series: Series,
  queue: WriteQueue,
  ended: Pick<EndedWrite, 'batch' | 'decision'>,
  now: number,
): void {
  const { batch, decision } = ended;
  const retry = decision.kind === 'failed' ? decision.retry : undefined;
  if (retry) {
    queue.putBack(series);
    // A publish that came while the write was on its way is new: the retry goes now, and carries it.
    const joined = retry.cause === 'may-have-applied' && queue.joinRetry(series);
    failedWrite(series, now, retry, true);
    if (joined) retryNow(series);
  } else {
    queue.done(series);
    if (decision.kind === 'written') written(series, series.queue.length > 0);
    else failedWrite(series, now, undefined, series.queue.length > 0);
  }
  const { seen, lookedUp, passedOverInDoubt } = batch.attempts;
  if (lookedUp) series.lookupPending = false;
  if (seen) series.event = seen.event;
  if (passedOverInDoubt && series.inDoubt === passedOverInDoubt) series.inDoubt = undefined;
  if (decision.kind === 'written') {
    series.event = decision.event;
    if (series.inDoubt?.name === decision.event.name) series.inDoubt = undefined;
  } else if (decision.inDoubt) series.inDoubt = decision.inDoubt;
}

/** Rejects every publish still awaiting a batch that is given up, with `error`. */
function rejectAll(batch: Batch, error: unknown): void {
  for (const waiter of [...batch.waiters]) waiter.reject(error);
}
