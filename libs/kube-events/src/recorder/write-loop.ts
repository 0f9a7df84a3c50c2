import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { POOL_CONNECTIONS } from '../api/pooled-authentication.js';
import { PublishApiError, PublishCredentialError, PublishError, PublishUnreachableError } from '../errors.js';
import type { DropCause } from '../kube-events.interfaces.js';
import {
  EVENT_KEPT_CHANGING,
  OCCURRENCES_DROPPED,
  SERIES_LOOKUP_REFUSED,
  SERVER_UNREACHABLE,
} from '../kube-events.messages.js';
import type { AwaitedPublish } from './awaited-publish.js';
import { ConnectionHealth, type ConnectionDown } from './connection-health.js';
import { monotonicNow } from './monotonic-clock.js';
import type { Occurrence } from './occurrence.js';
import type { PublishDeadlines } from './publish-deadlines.js';
import type { OutcomeDetails, PublishOutcomeKind } from './publish-outcome.js';
import {
  connectionVerdict,
  contentionDelay,
  isOverloaded,
  isThrottled,
  mayHaveApplied,
  retryDelay,
} from './retry-backoff.js';
import type { Batch, Series } from './series.js';
import { heldByConnection, probe, retryNow, serverBack } from './series-write-state.js';
import type { SeriesWriter } from './series-writer.js';
import type { WriteAccounting } from './write-accounting.js';
import type { WriteBudget } from './write-budget.js';
import type { WritePlan, WriteResult } from './write-plan.js';
import type { WriteQueue } from './write-queue.js';
import type { WriteScheduler } from './write-scheduler.js';
import { timerDelay } from '../timer-delay.js';

/** How soon `flush()` tries a failed write again, unless the server said when. */
const FLUSH_RETRY_MS = 100;

/** Where the write loop tells what became of occurrences: the recorder's `outcomes$`. */
export type OutcomeReport = (kind: PublishOutcomeKind, occurrence: Occurrence, details: OutcomeDetails) => void;

/** What a {@link WriteLoop} works with. */
export interface WriteLoopParts {
  readonly queue: WriteQueue;
  readonly accounting: WriteAccounting;
  readonly scheduler: WriteScheduler;
  /** Told of every answer, so that the recorder-wide rate follows what the server admits. */
  readonly budget: WriteBudget;
  readonly writer: SeriesWriter;
  readonly deadlines: PublishDeadlines;
  readonly report: OutcomeReport;
  /** How long one publish may take (ms): how long one attempt keeps writing again an Event that keeps changing. */
  readonly timeout: number;
}

/**
 * Writes what is queued: takes each series the scheduler says is due,
 * sends its write and what the answer calls for, settles the publishes it
 * carried, and judges from every answer whether the server can be reached
 * (it owns the {@link ConnectionHealth}). Data comes in as queued series
 * and leaves as writes and outcomes; nothing calls back into it but the
 * scheduler's `due$`.
 */
export class WriteLoop {
  /** Whether the server can be reached, since when not, and the probes meanwhile. */
  private readonly health = new ConnectionHealth();
  /** What `flush()` is doing for each series it writes itself, whatever the budgets: one drain per series. */
  private readonly drains = new Map<Series, Promise<void>>();
  /**
   * Series whose write found every connection busy: they wait here, in order, rather than in the
   * connection pool, so that a rate lowered meanwhile (the server said it is overloaded) holds them too.
   */
  private readonly waitingForConnection = new Set<Series>();
  /** A drain waiting for the series' write in flight to end. */
  private readonly writeEnded = new Map<Series, () => void>();
  /** Said once: every new series would say it again. */
  private lookupRefusalLogged = false;
  private readonly logger = new Logger('EventRecorder');

  constructor(private readonly parts: WriteLoopParts) {
    parts.scheduler.due$.subscribe((series) => void this.write(series));
  }

  /** Writes in flight now, each holding a connection while it lasts. */
  get writesInFlight(): number {
    return this.health.inFlight;
  }

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get connectionDown(): ConnectionDown | undefined {
    return this.health.down;
  }

  /**
   * An occurrence was queued in `series`, awaited by `awaited`: its
   * deadline is watched and its write scheduled. While the server is
   * unreachable or the credentials fail, it is rejected at once as queued,
   * unless it probes the server with its series' write.
   */
  queued(series: Series, awaited: AwaitedPublish, now: number): void {
    const { deadlines, scheduler } = this.parts;
    const draining = this.drains.has(series);
    const down = this.health.down;
    if (!down) {
      deadlines.watch(awaited);
      // A write that timed out or lost its answer holds nothing that delays this one: its retry goes now, with both.
      if (retryNow(series)) scheduler.cancel(series);
    } else if (series.state !== 'writing' && !draining && this.health.tryProbe(now) && probe(series)) {
      // While the server is down, one publish now and then tries it itself, whatever the budgets (one write a
      // probe interval, or a credentials' backoff, at most): the first publish after the fault ends resolves.
      deadlines.watch(awaited);
      scheduler.cancel(series);
      void this.write(series);
    } else {
      heldByConnection(series, this.health.heldUntil(now) ?? now + retryDelay(1));
      awaited.reject(this.downError());
    }
    if (!draining && !this.waitingForConnection.has(series)) scheduler.schedule(series);
  }

  /**
   * Writes every queued occurrence now, whatever the budgets, retrying
   * failed writes (soon, or after the server's `Retry-After`) until
   * `deadline`, and waits for the writes in flight; drops what is left then.
   */
  async flush(deadline: number): Promise<void> {
    await Promise.all(
      [...this.parts.queue.withWork].map((series) => {
        const running = this.drains.get(series);
        if (running) return running;
        const drain = this.drain(series, deadline).finally(() => this.drains.delete(series));
        this.drains.set(series, drain);
        return drain;
      }),
    );
  }

  /** Gives up a batch: its occurrences are counted and logged, and its waiters told. */
  drop(batch: Batch, cause: DropCause, lastError: unknown = batch.lastError): void {
    const { first } = batch;
    // What a read showed on the server already is not given up; what an earlier attempt may have put there, the error says.
    const occurrences = batch.occurrences - batch.landed;
    const error = batch.uncertainBy && !mayHaveApplied(lastError) ? batch.uncertainBy : lastError;
    const message = OCCURRENCES_DROPPED(occurrences, first.resource, first.event, cause, error);
    this.logger.warn(message);
    this.parts.report('dropped', first, { count: occurrences, error, now: monotonicNow() });
    const dropped = new PublishError(message, { cause: error });
    for (const waiter of [...batch.waiters]) waiter.reject(dropped);
  }

  /** Sends the series' next write, and any the server's answer calls for, then schedules the next one. */
  private async write(series: Series): Promise<void> {
    const now = monotonicNow();
    const heldUntil = this.health.heldUntil(now);
    if (heldUntil !== undefined) {
      // The credentials failed: none of the recorder's writes tries them again before their backoff has passed.
      heldByConnection(series, heldUntil);
      if (!this.drains.has(series)) this.parts.scheduler.schedule(series);
      return;
    }
    if (this.health.inFlight >= POOL_CONNECTIONS && !this.drains.has(series)) {
      this.waitingForConnection.add(series);
      return;
    }
    const started = this.parts.accounting.start(series, now);
    if (!started) return;
    this.health.attemptStarted(now);
    await this.attempt(series, started.batch, started.plan);
    this.health.attemptEnded(monotonicNow());
    this.connectionFreed();
    const drain = this.writeEnded.get(series);
    if (drain) {
      this.writeEnded.delete(series);
      drain();
    }
    if (!this.drains.has(series)) this.parts.scheduler.schedule(series);
  }

  /** A connection is free: the first series waiting for one goes through the budgets again. */
  private connectionFreed(): void {
    const [next] = this.waitingForConnection;
    if (next === undefined) return;
    this.waitingForConnection.delete(next);
    if (!this.drains.has(next)) this.parts.scheduler.schedule(next);
  }

  private async attempt(series: Series, batch: Batch, plan: WritePlan): Promise<void> {
    const { writer, accounting, report, timeout } = this.parts;
    const startedAt = monotonicNow();
    let resent = false;
    for (let requests = 1; ; requests++) {
      let result: WriteResult;
      const sentAt = monotonicNow();
      try {
        result = await writer.send(batch.first, plan, batch.trace);
      } catch (error) {
        const failure = error instanceof PublishError ? error : new PublishError(String(error), { cause: error });
        // A connection lost once (an idle timeout, a graceful shutdown) says nothing of the next: send again, on a fresh one.
        if (!resent && connectionVerdict(failure) === 'lost') {
          resent = true;
          accounting.lost(batch, failure);
          continue;
        }
        this.failed(series, batch, failure, sentAt);
        return;
      }
      this.answered();
      this.parts.budget.admitted(monotonicNow());
      if (result.kind === 'found' && result.refused) this.warnLookupRefused(result.refused);
      const settled = accounting.settle(series, batch, result, monotonicNow());
      if (settled.kind === 'written') {
        const uid = 'state' in result ? result.state.uid : undefined;
        const written = { name: settled.event.name, namespace: settled.event.namespace, uid };
        report(settled.created ? 'created' : 'patched', batch.first, {
          count: settled.count,
          written,
          trace: batch.trace,
          now: monotonicNow(),
        });
        for (const waiter of [...batch.waiters]) waiter.resolve();
        return;
      }
      plan = settled.plan;
      // The Event changed under the write (another writer of it, our own late write) or went: read, it goes again at
      // once, then after a pause with jitter, so that writers in contention fall out of step. Past the timeout the
      // write backs off as after any transient failure, and its publishes time out queued: never refused for it.
      if (requests < 2) continue;
      if (monotonicNow() - startedAt >= timeout) {
        this.failed(series, batch, new PublishApiError(EVENT_KEPT_CHANGING(requests), 409, 'Conflict'), startedAt);
        return;
      }
      await sleep(contentionDelay(requests - 1));
    }
  }

  /** A write sent at `sentAt` failed with `error`. */
  private failed(series: Series, batch: Batch, error: PublishError, sentAt: number): void {
    const now = monotonicNow();
    this.parts.report('failed', batch.first, { count: batch.occurrences, error, now, trace: batch.trace });
    if (isOverloaded(error)) this.parts.budget.overloaded(sentAt, now);
    else if (connectionVerdict(error) === 'answered') this.parts.budget.admitted(now);
    const verdict = this.parts.accounting.fail(series, batch, error, now);
    const wasDown = this.health.down !== undefined;
    this.judgeConnection(batch, error, now);
    if (verdict.kind === 'refused') for (const waiter of [...batch.waiters]) waiter.reject(error);
    else if (verdict.kind === 'expired') this.drop(batch, 'expired', error);
    if (!this.health.down) return;
    // Publishes queued behind this write (a probe's occurrence joins the batch behind the one it sends) are told now.
    const downError = this.downError();
    this.rejectQueued(series, downError);
    // Just found down: what waits elsewhere (for a budget, a backoff) would wait for a server that is not there.
    if (!wasDown)
      for (const other of this.parts.queue.withWork) if (other !== series) this.rejectQueued(other, downError);
  }

  /** Rejects, as queued, the publishes awaiting the series' batches that are not on their way now. */
  private rejectQueued(series: Series, error: PublishError): void {
    const inFlight = series.state === 'writing' ? series.queue[0] : undefined;
    for (const batch of series.queue) {
      if (batch === inFlight || !batch.waiters.size) continue;
      for (const waiter of [...batch.waiters]) waiter.reject(error);
    }
  }

  /**
   * What a failed write says of the server: a failed connection attempt
   * makes it unreachable, and so does a write that lost its connection
   * again on its retry (the server keeps closing connections unanswered);
   * a connection lost once, or a timeout, concerns that write alone; an
   * answer, of any status, makes it reachable. Credentials that failed hold
   * every write back for a while.
   */
  private judgeConnection(batch: Batch, error: PublishError, now: number): void {
    const verdict = connectionVerdict(error);
    if (verdict === 'answered') this.answered();
    else if (verdict === 'unsent') this.credentialsFailed(error, now);
    else if (verdict === 'unconnected' || (verdict === 'lost' && batch.unanswered >= 2))
      this.health.unreachableNow(error as PublishApiError);
  }

  /** The credentials failed: every series with work waits out their backoff, rather than start them again. */
  private credentialsFailed(error: PublishCredentialError, now: number): void {
    this.health.credentialsFailed(error, now);
    const until = this.health.heldUntil(now)!;
    const { queue, scheduler } = this.parts;
    for (const series of queue.withWork) {
      heldByConnection(series, until);
      if (this.drains.has(series) || series.state === 'writing') continue;
      scheduler.cancel(series);
      scheduler.schedule(series);
    }
  }

  /** The server answered: if it was unreachable, the series backing off may write at once. */
  private answered(): void {
    if (!this.health.answered()) return;
    const { queue, scheduler } = this.parts;
    for (const series of queue.withWork) {
      if (!serverBack(series) || this.drains.has(series)) continue;
      scheduler.cancel(series);
      scheduler.schedule(series);
    }
  }

  private warnLookupRefused(error: PublishApiError): void {
    if (this.lookupRefusalLogged) return;
    this.lookupRefusalLogged = true;
    this.logger.warn(SERIES_LOOKUP_REFUSED(error));
  }

  /** Writes what the series has queued, whatever the budgets, until `deadline`; drops what is left then. */
  private async drain(series: Series, deadline: number): Promise<void> {
    this.parts.scheduler.cancel(series);
    while (series.queue.length) {
      const now = monotonicNow();
      if (series.state === 'writing') await new Promise<void>((ended) => this.writeEnded.set(series, ended));
      else if (now >= deadline)
        for (const batch of this.parts.accounting.dropQueued(series, now)) this.drop(batch, 'flush');
      else if (this.retryAtWhileDraining(series) > now)
        await sleep(timerDelay(Math.min(this.retryAtWhileDraining(series), deadline) - now));
      else await this.write(series);
    }
  }

  /**
   * When `flush()` tries a failed write again: soon, since its time is
   * short, but no sooner than the server's `Retry-After` or the
   * credentials' backoff.
   */
  private retryAtWhileDraining(series: Series): number {
    const held = this.health.heldUntil(monotonicNow()) ?? 0;
    if (series.state === 'throttled' || isThrottled(series.queue[0]?.lastError)) return Math.max(series.retryAt, held);
    return Math.max(Math.min(series.retryAt, series.lastFailureAt + FLUSH_RETRY_MS), held);
  }

  /** What a publish is rejected with at once while writes cannot reach the server: it stays queued. */
  private downError(): PublishError {
    const down = this.health.down!;
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
