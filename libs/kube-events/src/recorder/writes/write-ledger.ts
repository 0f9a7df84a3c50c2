import type { EventVerb } from '../../api/access-review.js';
import { PublishApiError, PublishTimeoutError, type PublishError } from '../../errors.js';
import { EVENT_KEPT_CHANGING } from '../../kube-events.messages.js';
import {
  type Batch,
  type BatchAttempts,
  type Series,
  type InDoubtCreate,
  type SeriesEvent,
  type RetryCause,
  type CreatePlan,
  type PatchPlan,
  type StoredEvent,
  type WritePlan,
  type WriteResult,
} from '../series/index.js';
import {
  connectionVerdict,
  type ConnectionVerdict,
  isOverloaded,
  isThrottled,
  isTransient,
  mayHaveApplied,
} from '../../api/error-verdicts.js';
import { contentionDelay, retryAt } from '../pacing/index.js';
import { countOf, withCount, type WritePlanner } from './write-planner.js';
import { PassedOverEvents } from './passed-over-events.js';
import { hasRoom, type NotOwnBecause } from './series-ownership.js';

/** The write goes on: `plan` is sent next, after `pauseMs` (0: at once). */
export interface Next {
  readonly kind: 'next';
  readonly plan: WritePlan;
  readonly pauseMs: number;
}

/** The batch is on the server: `event` is the series' Event as the answer shows it. */
export interface Written {
  readonly kind: 'written';
  readonly created: boolean;
  readonly event: SeriesEvent;
  /** The Event's uid, as the answer says it. */
  readonly uid: string | undefined;
}

/** The write failed with `error`, and what that calls for. */
export interface Failed {
  readonly kind: 'failed';
  readonly error: PublishError;
  /**
   * `retry`: the batch stays queued, tried again at `retry.at`; `refused`
   * or `expired` (past its series window): the batch is given up.
   */
  readonly then: 'retry' | 'refused' | 'expired';
  /** Set when `then` is `retry`: when, and why it waits. */
  readonly retry: { readonly at: number; readonly cause: RetryCause } | undefined;
  /** What it says of the server's load: the recorder-wide rate follows it. */
  readonly load: 'overloaded' | 'admitted' | undefined;
  /** What it says of the connection: an answer came, the credentials failed, or the server is unreachable. */
  readonly connection: 'answered' | 'credentials-failed' | 'unreachable' | undefined;
  /** An expired create that may have applied: the series' next create of its Event reuses its name. */
  readonly inDoubt: InDoubtCreate | undefined;
}

/**
 * What an answer (or a failure) of a write calls for: its next request, or
 * how the write ended. Reading it changed only the batch's `attempts`,
 * which also hold what the write saw of its series on the way (`seen`,
 * `lookedUp`, `passedOverInDoubt`); the write coordinator applies the rest.
 */
export type Decision = Next | Written | Failed;

/** What an answer did within the write: written, or the request to send next. */
type Read = Written | { readonly kind: 'again'; readonly plan: WritePlan };

/**
 * The one place that decides what each answer to a write means: which
 * write a batch goes out as (from its planner), what the server holds
 * after each answer (applied, landed by an earlier attempt, changed by
 * someone else, gone), and whether and when a failed write is tried again.
 * It reads answers and returns decisions, changing nothing but each
 * batch's `attempts`, which it owns, so that no occurrence is counted
 * twice or lost.
 */
export class WriteLedger {
  constructor(
    private readonly planner: WritePlanner,
    /** How long repeats fold into one series, from its last write (ms): a batch failing past it is given up. */
    private readonly window: number,
    /** How long one publish may take (ms): how long one write keeps going again at an Event that keeps changing. */
    private readonly timeout: number,
    /** Whether the recorder's own review confirms a 403 (see `EventsWriter.confirmsForbidden`): else it is retried. */
    private readonly confirmsForbidden: (namespace: string, verb: EventVerb) => boolean = () => true,
    /** Says which Events series passed over, once for each series. */
    private readonly passedOver = new PassedOverEvents(),
  ) {}

  /** The write a batch taken from its queue goes out as, starting now: a retry sends the same write. */
  plan(series: Series, batch: Batch, now: number): WritePlan {
    const { attempts } = batch;
    // What a write saw on its way speaks of that write; the series took it when the write ended.
    attempts.seen = undefined;
    attempts.lookedUp = false;
    attempts.passedOverInDoubt = undefined;
    const count = countOf(batch);
    // A patch that publishes joined while it waited would raise past the server's int32 is planned afresh, unless
    // an attempt of it may have landed: a read tells which (the server refuses the count, the batch is not counted).
    const fits = attempts.plan?.kind !== 'patch' || hasRoom(count, 0) || attempts.mayHaveLanded.length > 0;
    attempts.plan = attempts.plan && fits ? withCount(attempts.plan, count) : this.replan(series, batch, now);
    return attempts.plan;
  }

  /** Reads an answer to the `requests`-th request of a write that started at `startedAt`. */
  read(series: Series, batch: Batch, result: WriteResult, requests: number, startedAt: number, now: number): Decision {
    const read = this.apply(series, batch, result, now);
    if (read.kind === 'written') return read;
    // The Event changed under the write (another writer of it, our own late write) or went: read, it goes again at
    // once, then after a pause with jitter, so that writers in contention fall out of step. Past the timeout the
    // write backs off as after any transient failure, and its publishes time out queued: never refused for it.
    if (requests < 2) return { kind: 'next', plan: read.plan, pauseMs: 0 };
    if (now - startedAt >= this.timeout) {
      const error = new PublishApiError(EVENT_KEPT_CHANGING(requests), 409, 'Conflict');
      return this.readFailure(series, batch, error, true, now);
    }
    return { kind: 'next', plan: read.plan, pauseMs: contentionDelay(requests - 1) };
  }

  /**
   * Reads a failed request: a connection lost for the first time in this
   * write sends it again at once (`resent`: it was already); a transient
   * failure keeps the batch queued for a retry after a backoff.
   */
  readFailure(
    series: Series,
    batch: Batch,
    error: PublishError,
    resent: boolean,
    now: number,
    mark?: string,
  ): Next | Failed {
    const { attempts } = batch;
    attempts.lastError = error;
    const verdict = connectionVerdict(error);
    attempts.unanswered = verdict === 'lost' || verdict === 'unconnected' ? attempts.unanswered + 1 : 0;
    // A connection lost once (an idle timeout, a graceful shutdown) says nothing of the next: sent again, on a fresh one.
    const resend = !resent && verdict === 'lost';
    if (resend || mayHaveApplied(error)) mayHaveLanded(attempts, error, mark);
    if (resend) return { kind: 'next', plan: attempts.plan!, pauseMs: 0 };
    const load = isOverloaded(error) ? 'overloaded' : verdict === 'answered' ? 'admitted' : undefined;
    const connection =
      verdict === 'answered'
        ? 'answered'
        : verdict === 'unsent'
          ? 'credentials-failed'
          : verdict === 'unconnected' || (verdict === 'lost' && attempts.unanswered >= 2)
            ? 'unreachable'
            : undefined;
    return { kind: 'failed', error, ...this.failed(series, batch, error, verdict, now), load, connection };
  }

  /**
   * A batch given up before its write was done (`flush()` out of time, or
   * past its window): a create of it that may have applied leaves its name
   * to the series' next create (see `Series.inDoubt`).
   */
  givenUp(batch: Batch, now: number): InDoubtCreate | undefined {
    const { plan, mayHaveLanded } = batch.attempts;
    if (plan?.kind !== 'create' || !mayHaveLanded.length) return undefined;
    const { name, namespace, eventTime } = plan;
    return { name, namespace, eventTime, identity: batch.identity, at: now };
  }

  /** Plans the batch's write afresh and records the plan. */
  private replan(series: Series, batch: Batch, now: number): WritePlan {
    const { plan, base, reusesInDoubtName } = this.planner.plan(series, batch, now);
    const { attempts } = batch;
    if (plan.kind !== 'find') {
      attempts.mayHaveLanded.length = 0;
      attempts.inDoubtBecause = undefined;
    }
    attempts.base = base;
    attempts.reusesInDoubtName = reusesInDoubtName;
    attempts.plan = plan;
    return plan;
  }

  /** Reads a write's answer: written, or the request to send next. */
  private apply(series: Series, batch: Batch, result: WriteResult, now: number): Read {
    const { attempts } = batch;
    const plan = attempts.plan!;
    if (result.kind === 'found') {
      attempts.lookedUp = true;
      const { latest } = result;
      // Only the series' own Event, with room for the batch, is continued; anything else is left as it is.
      if (latest && this.planner.continues(latest, batch) && !this.planner.whyNotContinue(latest, batch))
        attempts.seen = { event: this.planner.resumed(latest, batch, now) };
      return { kind: 'again', plan: this.replan(series, batch, now) };
    }
    attempts.unanswered = 0;
    if (result.kind === 'gone' && plan.kind === 'create') {
      // Refused as existing, then not found: created again under the same name, so that an earlier attempt of it
      // still on its way (applied late) meets this one and one of the two is refused, not both kept.
      return { kind: 'again', plan };
    }
    if (result.kind === 'gone') {
      // Expired on the server: the occurrences start a new Event.
      attempts.seen = { event: undefined };
      attempts.landed = 0;
      return { kind: 'again', plan: this.replan(series, batch, now) };
    }
    if ((result.kind === 'exists' && plan.kind === 'create') || (result.kind === 'conflict' && plan.kind === 'patch')) {
      // Anyone who may create Events in the namespace can put one under a name the series writes to first. One
      // not provably the series' own takes none of its occurrences, and none of them counts as landed there. One
      // that replaced the series' Event under its name (deleted, then created by someone else) took with it what
      // the batch had landed on it; what the batch landed on an Event before the create (one it left full) stays.
      const notOwn = this.planner.whyNotContinue(result.state, batch);
      if (notOwn && notOwn !== 'its count has no room left') {
        if (result.kind === 'conflict') batch.attempts.landed = 0;
        return this.passOver(series, batch, plan, notOwn);
      }
    }
    if (result.kind === 'exists' && plan.kind === 'create' && this.planner.takesNoRepeats(result.state)) {
      // The series' shared name holds an Event of a series that ended: this one starts an Event of its own, under
      // the name that replicas meeting the same ended Event take too.
      attempts.plan = { ...plan, name: this.planner.nameAfter(batch, plan) };
      attempts.passedOver += 1;
      return { kind: 'again', plan: attempts.plan };
    }
    if ((result.kind === 'conflict' && plan.kind === 'patch') || (result.kind === 'exists' && plan.kind === 'create')) {
      // Changed since last seen, or already there: by an earlier attempt of this batch, or by someone else. An
      // attempt landed when its mark is there; a count at or above its own may be another replica's. (Without
      // marks, where no other replica writes the Event, or on one written before there were marks, by its count.)
      const marks = result.state.writes;
      const landedCount = attempts.mayHaveLanded
        .filter((attempt) =>
          marks && attempt.mark !== undefined ? marks.includes(attempt.mark) : attempt.count <= result.state.count,
        )
        .map((attempt) => attempt.count)
        .reduce(max, -1);
      // A create found with no attempt that may have landed (none is known) is taken as landed whole, as before.
      if (landedCount >= 0) attempts.landed += landedCount - attempts.base;
      // Unless it took the name of a create given up in doubt (an Event under that name may hold that create's
      // occurrences, not these), or the Event has marks: then it is another replica's, under the series' shared name.
      else if (result.kind === 'exists' && !attempts.mayHaveLanded.length && !attempts.reusesInDoubtName && !marks)
        attempts.landed = batch.occurrences;
      // An Event the series' own, whose count the rest would raise past the server's int32: left as it is.
      if (attempts.landed < batch.occurrences && this.planner.whyNotContinue(result.state, batch))
        return this.passOver(series, batch, plan, 'its count has no room left');
      if (attempts.landed < batch.occurrences) {
        const { name, namespace } = plan;
        // Another replica's Event, met by its name: the series continues it, whatever becomes of this patch, so
        // that a retry planned afresh patches it too rather than creating one beside it.
        if (result.kind === 'exists')
          attempts.seen = { event: seriesEvent(name, namespace, batch.identity, result.state, now) };
        attempts.base = result.state.count;
        attempts.mayHaveLanded.length = 0;
        attempts.inDoubtBecause = undefined;
        attempts.plan = {
          kind: 'patch',
          namespace,
          name,
          resourceVersion: result.state.resourceVersion,
          count: countOf(batch),
          writes: result.state.writes,
        };
        return { kind: 'again', plan: attempts.plan };
      }
    }
    // Written: the series' Event, as a new value, whichever the write patched or created.
    const { name, namespace } = plan as CreatePlan | PatchPlan;
    const event = seriesEvent(name, namespace, batch.identity, result.state, now);
    return { kind: 'written', created: plan.kind === 'create', event, uid: result.state.uid };
  }

  /**
   * Leaves the Event under `taken`'s name as it is (not the series' own, or
   * its count full, `why`): the series no longer writes to it, and the
   * batch's occurrences not on the server yet go out as a create under a
   * fresh name; said once for the series.
   */
  private passOver(series: Series, batch: Batch, taken: CreatePlan | PatchPlan, why: NotOwnBecause): Read {
    const { attempts } = batch;
    const { namespace, name } = taken;
    const known = attempts.seen ? attempts.seen.event : series.event;
    if (known?.name === name && known.namespace === namespace) attempts.seen = { event: undefined };
    const doubt = series.inDoubt;
    if (doubt?.name === name && doubt.namespace === namespace) attempts.passedOverInDoubt = doubt;
    const next = this.planner.createAfter(batch, taken);
    attempts.passedOver += 1;
    attempts.base = 0;
    attempts.mayHaveLanded.length = 0;
    attempts.inDoubtBecause = undefined;
    attempts.reusesInDoubtName = false;
    attempts.plan = next;
    this.passedOver.said(series, namespace, name, why, next.name);
    return { kind: 'again', plan: next };
  }

  /** A failed write that was not sent again: retried later, or given up. */
  private failed(
    series: Series,
    batch: Batch,
    error: PublishError,
    verdict: ConnectionVerdict,
    now: number,
  ): Pick<Failed, 'then' | 'retry' | 'inDoubt'> {
    if (!isTransient(error) && !this.forbiddenInDoubt(batch, error))
      return { then: 'refused', retry: undefined, inDoubt: undefined };
    if (now - batch.first.publishedAt > this.window)
      return { then: 'expired', retry: undefined, inDoubt: this.givenUp(batch, now) };
    // A timeout or a lost answer (an unreadable 2xx too) holds nothing that delays a new publish; a 5xx keeps
    // its backoff, a Retry-After its time.
    const lostAnswer =
      verdict === 'timed-out' ||
      verdict === 'lost' ||
      (error instanceof PublishApiError && error.mayHaveApplied && (error.statusCode ?? 0) < 300);
    const cause: RetryCause = isThrottled(error) ? 'throttled' : lostAnswer ? 'may-have-applied' : 'failed';
    return { then: 'retry', retry: { at: retryAt(series.failures + 1, error, now), cause }, inDoubt: undefined };
  }

  /** A 403 that the recorder's own review does not confirm for the verb the write used: retried, not refused. */
  private forbiddenInDoubt(batch: Batch, error: PublishError): boolean {
    const plan = batch.attempts.plan;
    if (!(error instanceof PublishApiError) || error.statusCode !== 403 || !plan) return false;
    // A lookup's 403 was asked about once already: `EventRequests` answers a confirmed one as "found nothing".
    if (plan.kind === 'find') return true;
    return !this.confirmsForbidden(plan.namespace, plan.kind);
  }
}

const max = (a: number, b: number) => Math.max(a, b);

/**
 * What the series keeps of its Event `namespace/name` as the server's
 * answer `state` shows it, written or met at `now`.
 */
function seriesEvent(name: string, namespace: string, identity: string, state: StoredEvent, now: number): SeriesEvent {
  return {
    name,
    namespace,
    identity,
    count: state.count,
    resourceVersion: state.resourceVersion,
    writes: state.writes,
    publishedAt: now,
  };
}

/** The attempt sent under the plan may have applied: a read of the Event tells. */
function mayHaveLanded(attempts: BatchAttempts, error: PublishError, mark: string | undefined): void {
  if (!attempts.plan || attempts.plan.kind === 'find') return;
  attempts.mayHaveLanded.push({ count: attempts.plan.count, mark });
  // What a drop reports: an attempt whose error says it may have applied, not a later 5xx that does not say so.
  if (!saysMayHaveApplied(attempts.inDoubtBecause)) attempts.inDoubtBecause = error;
}

/** Whether the error tells its reader the write may have applied (a timeout, a lost or unreadable answer). */
function saysMayHaveApplied(error: PublishError | undefined): boolean {
  return error instanceof PublishTimeoutError || (error instanceof PublishApiError && error.mayHaveApplied);
}
