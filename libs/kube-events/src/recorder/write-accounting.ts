import { PublishApiError, PublishTimeoutError, type PublishError } from '../errors.js';
import type { Batch, Series, SeriesEvent } from './series.js';
import { connectionVerdict, isThrottled, isTransient, mayHaveApplied, retryDelay } from './retry-backoff.js';
import { failedWrite, retryNow, written, type RetryCause } from './series-write-state.js';
import type { CreatePlan, PatchPlan, StoredEvent, WritePlan, WriteResult } from './write-plan.js';
import { countOf, withCount, type WritePlanner } from './write-planner.js';
import type { WriteQueue } from './write-queue.js';

/** What a write did to its series. */
export type Settled =
  /** The batch is on the server: the series' Event holds `count`. */
  | { readonly kind: 'written'; readonly created: boolean; readonly count: number; readonly event: SeriesEvent }
  /** The Event changed or is gone: this write goes out next, at once. */
  | { readonly kind: 'again'; readonly plan: WritePlan };

/** What a failed write leaves. */
export type Failed =
  /** Queued still, tried again after `retryAt` (at once after a first lost answer). */
  | { readonly kind: 'retry' }
  /** Refused, or past its series window: the batch is given up. */
  | { readonly kind: 'refused' | 'expired' };

/**
 * Keeps a series' count exact across writes: which write a batch goes out
 * as, and what each answer means for the count on the server (applied,
 * landed by an earlier attempt, changed by someone else, gone), so that no
 * occurrence is counted twice or lost.
 */
export class WriteAccounting {
  constructor(
    private readonly queue: WriteQueue,
    private readonly planner: WritePlanner,
    /** How long repeats fold into one series, from its last write (ms): a batch failing past it is given up. */
    private readonly window: number,
  ) {}

  /** Takes the series' next write, unless one is in flight or nothing is queued: a retry sends the same write. */
  start(series: Series, now: number): { batch: Batch; plan: WritePlan } | undefined {
    const batch = this.queue.take(series);
    if (!batch) return undefined;
    batch.plan = batch.plan ? withCount(batch.plan, countOf(batch)) : this.planner.plan(series, batch, now);
    return { batch, plan: batch.plan };
  }

  /** Applies a write's answer to the series. */
  settle(series: Series, batch: Batch, result: WriteResult, now: number): Settled {
    const plan = batch.plan!;
    if (result.kind === 'found') {
      series.unexplored = false;
      if (result.latest && this.planner.continues(result.latest, batch))
        series.event = this.planner.resumed(result.latest, batch, now);
      batch.plan = this.planner.plan(series, batch, now);
      return { kind: 'again', plan: batch.plan };
    }
    batch.unanswered = 0;
    if (result.kind === 'gone' && plan.kind === 'create') {
      // Refused as existing, then not found: created again under the same name, so that an earlier attempt of it
      // still on its way (applied late) meets this one and one of the two is refused, not both kept.
      return { kind: 'again', plan };
    }
    if (result.kind === 'gone') {
      // Expired on the server: the occurrences start a new Event.
      series.event = undefined;
      batch.landed = 0;
      batch.plan = this.planner.plan(series, batch, now);
      return { kind: 'again', plan: batch.plan };
    }
    if ((result.kind === 'conflict' && plan.kind === 'patch') || (result.kind === 'exists' && plan.kind === 'create')) {
      // Changed since last seen, or already there: by an earlier attempt of this batch, or by someone else.
      const landedCount = batch.mayHaveLanded.filter((count) => count <= result.state.count).reduce(max, -1);
      // A create found with no attempt that may have landed (none is known) is taken as landed whole, as before.
      if (landedCount >= 0) batch.landed += landedCount - batch.base;
      // Unless it took the name of a create given up in doubt: an Event found under it holds those, not these.
      else if (result.kind === 'exists' && !batch.mayHaveLanded.length && !batch.adoptsInDoubt)
        batch.landed = batch.occurrences;
      if (batch.landed < batch.occurrences) {
        const { name, namespace } = plan;
        batch.base = result.state.count;
        batch.mayHaveLanded.length = 0;
        batch.uncertainBy = undefined;
        batch.plan = {
          kind: 'patch',
          namespace,
          name,
          resourceVersion: result.state.resourceVersion,
          count: countOf(batch),
        };
        return { kind: 'again', plan: batch.plan };
      }
    }
    const event = this.written(series, batch, result.state, now);
    if (series.inDoubt?.name === event.name) series.inDoubt = undefined;
    this.queue.done(series);
    written(series, series.queue.length > 0);
    return { kind: 'written', created: plan.kind === 'create', count: event.count, event };
  }

  /** Applies a failed write: a transient failure keeps the batch queued for a retry after a backoff. */
  fail(series: Series, batch: Batch, error: PublishError, now: number): Failed {
    batch.lastError = error;
    const verdict = connectionVerdict(error);
    batch.unanswered = verdict === 'lost' || verdict === 'unconnected' ? batch.unanswered + 1 : 0;
    if (!isTransient(error)) {
      this.queue.done(series);
      failedWrite(series, now, undefined, series.queue.length > 0);
      return { kind: 'refused' };
    }
    const applied = mayHaveApplied(error);
    if (applied && batch.plan && batch.plan.kind !== 'find') {
      batch.mayHaveLanded.push(batch.plan.count);
      // What a drop reports: an attempt whose error says it may have applied, not a later 5xx that does not say so.
      if (!saysMayHaveApplied(batch.uncertainBy)) batch.uncertainBy = error;
    }
    if (now - batch.first.publishedAt > this.window) {
      keepInDoubt(series, batch, now);
      this.queue.done(series);
      failedWrite(series, now, undefined, series.queue.length > 0);
      return { kind: 'expired' };
    }
    this.queue.putBack(series);
    // A timeout or a lost answer (an unreadable 2xx too) holds nothing that delays a new publish; a 5xx keeps
    // its backoff, a Retry-After its time.
    const lostAnswer =
      verdict === 'timed-out' ||
      verdict === 'lost' ||
      (error instanceof PublishApiError && error.mayHaveApplied && (error.statusCode ?? 0) < 300);
    const cause: RetryCause = isThrottled(error) ? 'throttled' : lostAnswer ? 'may-have-applied' : 'failed';
    const at = now + retryDelay(series.failures + 1, error instanceof PublishApiError ? error.retryAfterMs : undefined);
    failedWrite(series, now, { at, cause }, true);
    // A publish that came while the write was on its way is new: the retry goes now, and carries it.
    if (cause === 'may-have-applied' && this.queue.joinRetry(series)) retryNow(series);
    return { kind: 'retry' };
  }

  /**
   * Gives up every batch of the series that is not in flight, as when
   * `flush()` runs out of time; a create among them that may have applied
   * leaves its name to the series' next create (see `Series.inDoubt`).
   */
  dropQueued(series: Series, now: number): Batch[] {
    const dropped = this.queue.dropQueued(series);
    for (const batch of dropped) keepInDoubt(series, batch, now);
    return dropped;
  }

  /**
   * The write in flight lost its connection before any answer, and goes
   * again at once on a fresh one: it may have applied, so the retry is the
   * same write (name, precondition), and a read settles which landed.
   */
  lost(batch: Batch, error: PublishError): void {
    batch.lastError = error;
    batch.unanswered++;
    if (batch.plan && batch.plan.kind !== 'find') {
      batch.mayHaveLanded.push(batch.plan.count);
      if (!saysMayHaveApplied(batch.uncertainBy)) batch.uncertainBy = error;
    }
  }

  private written(series: Series, batch: Batch, state: StoredEvent, now: number): SeriesEvent {
    const plan = batch.plan as CreatePlan | PatchPlan;
    const event =
      plan.kind === 'patch' && series.event?.name === plan.name
        ? series.event
        : {
            name: plan.name,
            namespace: plan.namespace,
            identity: batch.identity,
            count: 0,
            resourceVersion: undefined,
            publishedAt: now,
          };
    event.count = state.count;
    event.resourceVersion = state.resourceVersion;
    event.publishedAt = now;
    series.event = event;
    return event;
  }
}

const max = (a: number, b: number) => Math.max(a, b);

/** Whether the error tells its reader the write may have applied (a timeout, a lost or unreadable answer). */
function saysMayHaveApplied(error: PublishError | undefined): boolean {
  return error instanceof PublishTimeoutError || (error instanceof PublishApiError && error.mayHaveApplied);
}

/** A create given up after an attempt that may have applied: the series' next create of its Event reuses its name. */
function keepInDoubt(series: Series, batch: Batch, now: number): void {
  const plan = batch.plan;
  if (plan?.kind !== 'create' || !batch.mayHaveLanded.length) return;
  const { name, namespace, eventTime } = plan;
  series.inDoubt = { name, namespace, eventTime, identity: batch.identity, at: now };
}
