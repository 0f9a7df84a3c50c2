import { PublishApiError, type PublishError } from '../errors.js';
import type { AwaitedPublish } from './awaited-publish.js';
import { EndedEvents } from './ended-events.js';
import { InsertionOrder } from './insertion-order.js';
import { identityDigest, type Occurrence } from './occurrence.js';
import type { Batch, Series, SeriesEvent, TrackedObject } from './series.js';
import { connectionVerdict, isThrottled, isTransient, mayHaveApplied, retryDelay } from './retry-backoff.js';
import { failedWrite, idleState, queued, serverBack, writing, written, type RetryCause } from './series-write-state.js';
import { StringPool } from './string-pool.js';
import type { CreatePlan, PatchPlan, StoredEvent, WritePlan, WriteResult } from './write-plan.js';
import { countOf, withCount, WritePlanner } from './write-planner.js';

/** Queued writes one series may hold; past it the oldest waiting one is given up, so one noisy object cannot use up `maxPending`. */
const MAX_BATCHES_PER_SERIES = 8;

/** What became of an occurrence given to {@link SeriesStore.enqueue}. */
export interface Enqueued {
  /** The batch that carries it; `undefined` when there was no room (`maxPending`). */
  readonly batch: Batch | undefined;
  /** It joined occurrences already waiting: one write carries them all. */
  readonly joined: boolean;
  /** A batch given up to make room in its series (its waiters are not settled yet). */
  readonly evicted?: Batch;
}

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

export interface SeriesStoreOptions {
  /** How long repeats fold into one series, from its last write (ms). */
  readonly window: number;
  readonly maxSeries: number;
  /** Batches waiting across every series. */
  readonly maxPending: number;
  /** Names Events about objects without a name. */
  readonly controller: string;
  /** Continue the series a previous process left on the server. */
  readonly resume: boolean;
  /** The wall clock that Event times and names read (epoch ms). @default Date.now */
  readonly wallClock?: () => number;
  /** Names a new Event. @default eventName */
  readonly namer?: (objectName: string | undefined, controller: string, at: number) => string;
}

/**
 * The series a recorder tracks, and the only code that changes them: what
 * an occurrence joins, which write goes out next, and what a write's answer
 * means for the count.
 *
 * Bounded in time and in number. Series are kept in the order they came
 * (a linked list, not a `Map`'s order; see `InsertionOrder`); a use only
 * marks a series as referenced, and expiry and eviction, which look at the
 * front only, move a referenced series to the end instead of dropping it
 * (the CLOCK approximation of least recently used). A repeat thus changes
 * no map, and each publish stays amortised O(1) however many series are
 * tracked. A series with queued occurrences is never dropped.
 */
export class SeriesStore {
  /** Series with occurrences queued, forgotten ones and those of objects without a uid included. */
  readonly withWork = new Set<Series>();
  /**
   * The objects with series, and those kept for their spent budget, by
   * uid: a series is found among its object's few, with no key string to
   * build per publish.
   */
  private readonly objects = new Map<string, TrackedObject>();
  /** Every tracked series, oldest first (or least recently given its second chance). */
  private readonly order = new InsertionOrder<Series>();
  private tracked = 0;
  /**
   * Objects whose series were all forgotten or dropped before their budget
   * refilled: a flapping object (failure, success, failure…) keeps its spent
   * budget. Bounded like the series, oldest dropped first, and a refilled
   * one is not kept. They stay in `objects`, so that a new series finds its
   * budget by the one lookup that finds its object.
   */
  private readonly spentOrder = new InsertionOrder<TrackedObject>();
  private spent = 0;
  /** With `resume`, the Events whose series `forget` ended (see {@link EndedEvents}). */
  private readonly ended: EndedEvents;
  /** Batches waiting for a write (not in flight), which `maxPending` bounds. */
  private waitingBatches = 0;
  /** Identities and namespaces, which series keep for their whole life and mostly share. */
  private readonly shared = new StringPool();

  private readonly planner: WritePlanner;

  constructor(private readonly options: SeriesStoreOptions) {
    this.ended = new EndedEvents(options.maxSeries);
    this.planner = new WritePlanner({
      window: options.window,
      controller: options.controller,
      ended: this.ended,
      intern: (value) => this.shared.intern(value),
      wallClock: options.wallClock,
      namer: options.namer,
    });
  }

  /** Series tracked for their next repeat. */
  get size(): number {
    return this.tracked;
  }

  /** Returns the series (failure?, `uid`, `reason`, `action`), creating it, and marks it used. */
  acquire(uid: string, failure: boolean, reason: string, action: string, now: number): Series {
    const object = this.objects.get(uid);
    const known = object && this.find(object, failure, reason, action);
    if (known) {
      known.referenced = true;
      this.dropStale(now, known);
      return known;
    }
    this.dropStale(now);
    const kind = { failure, reason: this.shared.intern(reason), action: this.shared.intern(action) };
    let series: Series;
    // An object left without series (before, or by the drops just now) is either kept for its spent budget or gone.
    if (object && (object.series.length || this.takeSpent(object))) {
      series = newSeries(object, kind, this.options.resume);
      object.series.push(series);
    } else {
      series = this.firstSeriesOf(uid, kind);
    }
    this.order.push(series);
    this.tracked++;
    return series;
  }

  private find(object: TrackedObject, failure: boolean, reason: string, action: string): Series | undefined {
    for (const series of object.series) {
      if (series.failure === failure && series.reason === reason && series.action === action) return series;
    }
    return undefined;
  }

  /** A new tracked object with its first series. */
  private firstSeriesOf(uid: string, kind: SeriesKind): Series {
    // Room for one series: most objects have one, and a push into [] reserves room for 17.
    const seriesOfObject: Series[] = [undefined as unknown as Series];
    const object: TrackedObject = {
      uid,
      series: seriesOfObject,
      budget: undefined,
      previous: undefined,
      next: undefined,
    };
    seriesOfObject[0] = newSeries(object, kind, this.options.resume);
    this.objects.set(uid, object);
    return seriesOfObject[0];
  }

  /** A series of one Event about an object without a uid: never tracked, so never repeated. */
  untracked(failure: boolean): Series {
    return newSeries(undefined, { failure, reason: '', action: '' }, false);
  }

  /** Queues an occurrence in its series: with the last batch when it repeats it and is not sent yet, else in a batch of its own. */
  enqueue(series: Series, occurrence: Occurrence, waiter: AwaitedPublish): Enqueued {
    const identity = this.shared.intern(identityDigest(occurrence.event));
    const last = series.queue.at(-1);
    // Joins the last batch unless that one is in flight: one waiting to retry takes it along (its count follows).
    if (last?.identity === identity && !(series.state === 'writing' && last === series.queue[0])) {
      last.occurrences++;
      last.trace = occurrence.trace;
      last.waiters.add(waiter);
      return { batch: last, joined: true };
    }
    // A series' first write gets in while others back up, so that a new object is heard, but only up to
    // twice the room: a flood of new objects held back by the recorder-wide budget would queue without bound.
    const room = series.queue.length ? this.options.maxPending : 2 * this.options.maxPending;
    if (this.waitingBatches >= room) return { batch: undefined, joined: false };
    const evicted = series.queue.length >= MAX_BATCHES_PER_SERIES ? this.removeBatch(series, 1) : undefined;
    const batch: Batch = {
      identity,
      first: occurrence,
      occurrences: 1,
      trace: occurrence.trace,
      waiters: new Set([waiter]),
      plan: undefined,
      base: 0,
      landed: 0,
      mayHaveLanded: [],
      uncertainBy: undefined,
      unanswered: 0,
      lastError: undefined,
    };
    series.queue.push(batch);
    this.waitingBatches++;
    this.withWork.add(series);
    queued(series);
    return { batch, joined: false, evicted };
  }

  /** Takes the series' next write, unless one is in flight or nothing is queued. */
  startWrite(series: Series, now: number): { batch: Batch; plan: WritePlan } | undefined {
    const batch = series.queue[0];
    if (series.state === 'writing' || !batch) return undefined;
    batch.plan = batch.plan ? withCount(batch.plan, countOf(batch)) : this.planner.plan(series, batch, now);
    writing(series);
    this.waitingBatches--;
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
      else if (result.kind === 'exists' && !batch.mayHaveLanded.length) batch.landed = batch.occurrences;
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
    this.removeBatch(series, 0, true);
    written(series, series.queue.length > 0);
    return { kind: 'written', created: plan.kind === 'create', count: event.count, event };
  }

  /** Applies a failed write: a transient failure keeps the batch queued for a retry after a backoff. */
  fail(series: Series, batch: Batch, error: PublishError, now: number): Failed {
    batch.lastError = error;
    const verdict = connectionVerdict(error);
    batch.unanswered = verdict === 'lost' || verdict === 'unconnected' ? batch.unanswered + 1 : 0;
    if (!isTransient(error)) {
      this.removeBatch(series, 0, true);
      failedWrite(series, now, undefined, series.queue.length > 0);
      return { kind: 'refused' };
    }
    const applied = mayHaveApplied(error);
    if (applied && batch.plan && batch.plan.kind !== 'find') {
      batch.mayHaveLanded.push(batch.plan.count);
      batch.uncertainBy = error;
    }
    if (now - batch.first.publishedAt > this.options.window) {
      this.removeBatch(series, 0, true);
      failedWrite(series, now, undefined, series.queue.length > 0);
      return { kind: 'expired' };
    }
    this.waitingBatches++;
    // A timeout or a lost answer (an unreadable 2xx too) holds nothing that delays a new publish; a 5xx keeps
    // its backoff, a Retry-After its time.
    const lostAnswer =
      verdict === 'timed-out' ||
      verdict === 'lost' ||
      (error instanceof PublishApiError && error.mayHaveApplied && (error.statusCode ?? 0) < 300);
    const cause: RetryCause = isThrottled(error) ? 'throttled' : lostAnswer ? 'may-have-applied' : 'failed';
    const at = now + retryDelay(series.failures + 1, error instanceof PublishApiError ? error.retryAfterMs : undefined);
    failedWrite(series, now, { at, cause }, true);
    return { kind: 'retry' };
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
      batch.uncertainBy = error;
    }
  }

  /**
   * Ends the backoff of every series, as when the server answers again after
   * an outage: their retries may go now. A series the server itself told to
   * wait (`Retry-After`) still waits: that was an answer, not the outage.
   * Returns the series that may write now.
   */
  endBackoffs(): Series[] {
    const moved: Series[] = [];
    for (const series of this.withWork) if (serverBack(series)) moved.push(series);
    return moved;
  }

  /** Gives up every batch of the series that is not in flight, as when `flush()` runs out of time. */
  dropQueued(series: Series): Batch[] {
    const dropped: Batch[] = [];
    while (series.queue.length > (series.state === 'writing' ? 1 : 0))
      dropped.push(this.removeBatch(series, series.queue.length - 1)!);
    if (!series.queue.length) written(series, false);
    return dropped.reverse();
  }

  /**
   * Forgets the series of one object: all of them, or only its failure or
   * publish series. Occurrences they hold are still written, to their Event.
   */
  forget(uid: string, failure: boolean | undefined, now: number): SeriesEvent[] {
    const object = this.objects.get(uid);
    if (!object) return [];
    const ended: SeriesEvent[] = [];
    for (const series of [...object.series]) {
      if (failure !== undefined && series.failure !== failure) continue;
      this.remove(series, now);
      if (series.event) ended.push(series.event);
    }
    if (this.options.resume) for (const event of ended) this.ended.add(event.namespace, event.name);
    return ended;
  }

  /** The server now shows that the Event's series ended (`resume`): its annotation says so. */
  endShown(event: Pick<SeriesEvent, 'namespace' | 'name'>): void {
    this.ended.shown(event.namespace, event.name);
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

  /** Removes a batch from its series; `wasInFlight` when its write just settled, so it took no waiting room. */
  private removeBatch(series: Series, index: number, wasInFlight = false): Batch | undefined {
    const [batch] = series.queue.splice(index, 1);
    if (!batch) return undefined;
    if (!wasInFlight) this.waitingBatches--;
    if (!series.queue.length) this.withWork.delete(series);
    return batch;
  }

  /**
   * Drops expired series from the front, stopping at the first live or busy
   * one (a referenced live one moves to the end first), then, when a new
   * series is coming (`using` is unset), evicts idle unreferenced series
   * until there is room for it. `using` is never dropped.
   */
  private dropStale(now: number, using?: Series): void {
    // Each step reads its next series before it moves or drops the one it is on.
    for (let series = this.order.first, next: Series | undefined; series; series = next) {
      next = series.next;
      if (series === using) continue;
      if (series.queue.length) break;
      if (series.event && this.planner.isCurrent(series.event, now)) {
        if (!series.referenced) break;
        this.moveToEnd(series);
        continue;
      }
      this.remove(series, now);
    }
    if (using || this.tracked < this.options.maxSeries) return;
    for (let series = this.order.first, next: Series | undefined; series; series = next) {
      next = series.next;
      if (series.queue.length) continue;
      if (series.referenced) this.moveToEnd(series);
      else this.remove(series, now);
      if (this.tracked < this.options.maxSeries) return;
    }
  }

  /** Gives a referenced series its second chance: to the end of the order, unreferenced. */
  private moveToEnd(series: Series): void {
    series.referenced = false;
    this.order.moveToEnd(series);
  }

  private remove(series: Series, now: number): void {
    this.order.remove(series);
    this.tracked--;
    const object = series.object!;
    removeItem(object.series, series);
    if (object.series.length) return;
    if (!object.budget || object.budget.isFull(now)) {
      this.objects.delete(object.uid);
      return;
    }
    this.spentOrder.push(object);
    if (++this.spent > this.options.maxSeries) {
      const oldest = this.spentOrder.first!;
      this.takeSpent(oldest);
      this.objects.delete(oldest.uid);
    }
  }

  /** Takes an object out of those kept for their spent budget; false when it is not one of them (it is gone). */
  private takeSpent(object: TrackedObject): boolean {
    if (!this.spentOrder.has(object)) return false;
    this.spentOrder.remove(object);
    this.spent--;
    return true;
  }
}

const max = (a: number, b: number) => Math.max(a, b);

/** Removes `item` from `items`, whose order does not matter, without the array `splice` returns. */
function removeItem<T>(items: T[], item: T): void {
  const last = items.pop()!;
  if (last === item) return;
  items[items.indexOf(item)] = last;
}

/** What tells the series of one object apart. */
type SeriesKind = Pick<Series, 'failure' | 'reason' | 'action'>;

function newSeries(
  object: TrackedObject | undefined,
  { failure, reason, action }: SeriesKind,
  unexplored: boolean,
): Series {
  return {
    object,
    failure,
    reason,
    action,
    event: undefined,
    queue: [],
    ...idleState(),
    unexplored,
    referenced: false,
    previous: undefined,
    next: undefined,
  };
}
