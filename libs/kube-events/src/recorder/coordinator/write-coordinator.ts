import {
  PublishCredentialError,
  PublishUnreachableError,
  type PublishApiError,
  type PublishError,
} from '../../errors.js';
import { SERVER_UNREACHABLE } from '../../kube-events.messages.js';
import type { AwaitedPublish, Occurrence, RecorderOutcomes } from '../publish/index.js';
import { ConnectionHealth, type ConnectionDown } from './connection-health.js';
import type { DroppedOccurrences } from './dropped-occurrences.js';
import type { PublishDeadlines } from '../deadlines/index.js';
import { flushRetryAt, unreachableRetryAt, type WriteBudget, WriteScheduler, type DueWrites } from '../pacing/index.js';
import { type Batch, type Series, heldByConnection, probe, retryNow, serverBack } from '../series/index.js';
import type { WriteLedger, SentWrite, WriteSender, WriteQueue } from '../writes/index.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

/** What a {@link WriteCoordinator} works with. */
export interface WriteCoordinatorParts {
  readonly queue: WriteQueue;
  readonly ledger: WriteLedger;
  /** The recorder-wide rate, which follows what the server admits. */
  readonly budget: WriteBudget;
  readonly clock: KubeEventsClock;
  readonly sender: WriteSender;
  readonly deadlines: PublishDeadlines;
  readonly outcomes: RecorderOutcomes;
  readonly drops: DroppedOccurrences;
  /** How many writes the writer carries at once, as it says: the dispatcher sends no more at a time. */
  readonly writesAtOnce: number;
}

/**
 * Takes each occurrence into its series' queue, and each series' next
 * write to the {@link WriteSender} when its scheduler lets it go (at once, on
 * a timer, or whatever the budgets in `flush()`); then settles the
 * publishes the write carried, and applies what its answers said of the
 * server. It owns the scheduler, the {@link ConnectionHealth} and the
 * count of writes in flight.
 */
export class WriteCoordinator implements DueWrites {
  /** Whether the server can be reached, since when not, and the probes meanwhile. */
  private readonly health = new ConnectionHealth();
  /** When each series' next write may go. */
  private readonly scheduler: WriteScheduler;
  /** Writes in flight now, each holding one of the pool's connections while it lasts. */
  private writesInFlight = 0;
  /** What `flush()` is doing for each series it writes itself, whatever the budgets: one drain per series. */
  private readonly drains = new Map<Series, Promise<void>>();
  /**
   * Series whose write, let go by the budgets, found every connection busy, with the budget's mark
   * then: they wait here, in order, rather than in the connection pool, so that a rate lowered
   * meanwhile (the server said it is overloaded) holds them too.
   */
  private readonly waitingForConnection = new Map<Series, number>();
  /** A drain waiting for the series' write in flight to end. */
  private readonly writeEnded = new Map<Series, () => void>();

  constructor(private readonly parts: WriteCoordinatorParts) {
    this.scheduler = new WriteScheduler(parts.budget, parts.clock, this);
  }

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get connectionDown(): ConnectionDown | undefined {
    return this.health.down;
  }

  /** Occurrences queued now, not yet counted on the server. */
  get queuedOccurrences(): number {
    return this.parts.queue.occurrences;
  }

  /**
   * Queues an occurrence of `series`, awaited by `awaited`, and schedules
   * its write. Returns whether the caller waits for that write: it went on
   * the wire at once, or the publish is settled already (refused for room,
   * or while the server is unreachable); otherwise the write waits for a
   * budget, a backoff, a write of the series on its way, or a connection.
   */
  dispatch(series: Series, occurrence: Occurrence, awaited: AwaitedPublish): boolean {
    const now = occurrence.publishedAt;
    const { batch, joined, evicted, refused } = this.parts.queue.enqueue(series, occurrence, awaited);
    if (evicted) this.parts.drops.drop(evicted, 'evicted');
    if (!batch) {
      this.parts.drops.refuse(occurrence, awaited, refused ?? 'full');
      return true;
    }
    if (joined) this.parts.outcomes.report('coalesced', occurrence, { count: batch.occurrences, now });
    this.admit(series, awaited, now);
    // A write past the pool's connections waits for the writes on their way, as one behind a budget does.
    const sentNow =
      series.state === 'writing' && series.queue[0] === batch && this.writesInFlight <= this.parts.writesAtOnce;
    return awaited.isSettled || sentNow;
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

  /** A timer of the scheduler let the series' next write go. */
  sendDue(series: Series): void {
    void this.sendNext(series);
  }

  /**
   * The occurrence queued in `series` is watched for its deadline. While
   * the server is unreachable or the credentials fail, it is rejected at
   * once as queued, unless it probes the server with its series' write.
   */
  private admit(series: Series, awaited: AwaitedPublish, now: number): void {
    const { deadlines } = this.parts;
    const draining = this.drains.has(series);
    if (!this.health.down) {
      deadlines.watch(awaited);
      // A write that timed out or lost its answer holds nothing that delays this one: its retry goes now, with both.
      if (retryNow(series)) this.scheduler.cancel(series);
    } else if (
      series.state !== 'writing' &&
      !draining &&
      this.health.tryProbe(now, this.writesInFlight) &&
      probe(series)
    ) {
      // While the server is down, one publish now and then tries it itself, whatever the budgets (one write a
      // probe interval, or a credentials' backoff, at most): the first publish after the fault ends resolves.
      deadlines.watch(awaited);
      this.scheduler.cancel(series);
      void this.sendNext(series);
    } else {
      heldByConnection(series, this.health.heldUntil(now) ?? unreachableRetryAt(now));
      awaited.reject(this.downError());
    }
    if (!draining && !this.waitingForConnection.has(series)) this.schedule(series);
  }

  /** Sends the series' next write now if the scheduler lets it go; else the scheduler sends it when it may. */
  private schedule(series: Series): void {
    if (this.scheduler.schedule(series)) void this.sendNext(series);
  }

  /** Sends the series' next write through the write loop, settles its publishes, then schedules the next one. */
  private async sendNext(series: Series): Promise<void> {
    const { clock, ledger } = this.parts;
    const now = clock.now();
    const heldUntil = this.health.heldUntil(now);
    if (heldUntil !== undefined) {
      // The credentials failed: none of the recorder's writes tries them again before their backoff has passed.
      heldByConnection(series, heldUntil);
      if (!this.drains.has(series)) this.schedule(series);
      return;
    }
    if (this.writesInFlight >= this.parts.writesAtOnce && !this.drains.has(series)) {
      this.waitingForConnection.set(series, this.parts.budget.mark);
      return;
    }
    const started = ledger.takeWrite(series, now);
    if (!started) return;
    this.writesInFlight++;
    this.health.attempted(now);
    const sent = await this.parts.sender.send(series, started.batch, started.plan);
    this.writesInFlight--;
    this.health.attempted(clock.now());
    this.settleWrite(series, started.batch, sent);
    this.connectionFreed();
    const drain = this.writeEnded.get(series);
    if (drain) {
      this.writeEnded.delete(series);
      drain();
    }
    if (!this.drains.has(series)) this.schedule(series);
  }

  /** Applies what the write's answers said of the server, then settles the publishes it carried. */
  private settleWrite(series: Series, batch: Batch, sent: SentWrite): void {
    const { outcomes, budget, clock } = this.parts;
    const now = clock.now();
    if (sent.kind === 'written' || sent.answered) this.answered();
    if (sent.kind === 'written') {
      budget.admitted(now);
      const written = { name: sent.event.name, namespace: sent.event.namespace, uid: sent.uid };
      const details = { count: sent.count, written, trace: batch.trace, now };
      outcomes.report(sent.created ? 'created' : 'patched', batch.first, details);
      for (const waiter of [...batch.waiters]) waiter.resolve();
      return;
    }
    const { error, failed, sentAt } = sent;
    // Refused after some of its publishes were told it stays queued: it is dropped, counted, not failed.
    const promisedQueued = failed.kind === 'refused' && batch.attempts.toldQueued > 0;
    if (!promisedQueued)
      outcomes.report('failed', batch.first, { count: batch.occurrences, error, now, trace: batch.trace });
    if (failed.load === 'overloaded') budget.overloaded(sentAt, now);
    else if (failed.load === 'admitted') budget.admitted(now);
    const wasDown = this.health.down !== undefined;
    if (failed.connection === 'answered') this.answered();
    else if (failed.connection === 'credentials-failed') this.credentialsFailed(error, now);
    else if (failed.connection === 'unreachable') this.health.unreachableNow(error as PublishApiError);
    if (promisedQueued) this.parts.drops.drop(batch, 'refused', error);
    else if (failed.kind === 'refused') for (const waiter of [...batch.waiters]) waiter.reject(error);
    else if (failed.kind === 'expired') this.parts.drops.drop(batch, 'expired', error);
    if (!this.health.down) return;
    // Publishes queued behind this write (a probe's occurrence joins the batch behind the one it sends) are told now.
    const downError = this.downError();
    this.rejectQueued(series, downError);
    // Just found down: what waits elsewhere (for a budget, a backoff) would wait for a server that is not there.
    if (!wasDown)
      for (const other of this.parts.queue.withWork) if (other !== series) this.rejectQueued(other, downError);
  }

  /**
   * A connection is free: the first series waiting for one goes, on the budget it took, unless the
   * recorder-wide rate was lowered since; then it goes through the budgets again.
   */
  private connectionFreed(): void {
    // While `flush()` writes, whatever the pool, more than its connections may be in flight: then none is free.
    while (this.writesInFlight < this.parts.writesAtOnce) {
      const waiting = this.waitingForConnection.entries().next();
      if (waiting.done) return;
      const [next, mark] = waiting.value;
      this.waitingForConnection.delete(next);
      if (this.drains.has(next)) continue;
      const inFlight = this.writesInFlight;
      if (this.parts.budget.loweredSince(mark)) this.schedule(next);
      else void this.sendNext(next);
      // One that had nothing left to send (written meanwhile) leaves the connection to the next.
      if (this.writesInFlight > inFlight) return;
    }
  }

  /** Rejects, as queued, the publishes awaiting the series' batches that are not on their way now. */
  private rejectQueued(series: Series, error: PublishError): void {
    const inFlight = series.state === 'writing' ? series.queue[0] : undefined;
    for (const batch of series.queue) {
      if (batch === inFlight || !batch.waiters.size) continue;
      for (const waiter of [...batch.waiters]) waiter.reject(error);
    }
  }

  /** The credentials failed: every series with work waits out their backoff, rather than start them again. */
  private credentialsFailed(error: PublishCredentialError, now: number): void {
    this.health.credentialsFailed(error, now);
    const until = this.health.heldUntil(now)!;
    for (const series of this.parts.queue.withWork) {
      heldByConnection(series, until);
      if (this.drains.has(series) || series.state === 'writing') continue;
      this.scheduler.cancel(series);
      this.schedule(series);
    }
  }

  /** The server answered: if it was unreachable, the series backing off may write at once. */
  private answered(): void {
    if (!this.health.answered()) return;
    for (const series of this.parts.queue.withWork) {
      if (!serverBack(series) || this.drains.has(series)) continue;
      this.scheduler.cancel(series);
      this.schedule(series);
    }
  }

  /** Writes what the series has queued, whatever the budgets, until `deadline`; drops what is left then. */
  private async drain(series: Series, deadline: number): Promise<void> {
    const { clock, ledger, drops } = this.parts;
    this.scheduler.cancel(series);
    while (series.queue.length) {
      const now = clock.now();
      const retryAt = flushRetryAt(series, this.health.heldUntil(now) ?? 0);
      if (series.state === 'writing') await new Promise<void>((ended) => this.writeEnded.set(series, ended));
      else if (now >= deadline) for (const batch of ledger.dropQueued(series, now)) drops.drop(batch, 'flush');
      else if (retryAt > now) await clock.sleep(Math.min(retryAt, deadline) - now);
      else await this.sendNext(series);
    }
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
