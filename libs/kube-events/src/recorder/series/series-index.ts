import { InsertionOrder } from '../../values/insertion-order.js';
import type { Occurrence } from '../publish/index.js';
import type { KeptObjects, Series, SeriesEvent, TrackedObject } from './series.js';
import type { SimilarEvents } from './similar-events.js';

/** What an {@link SeriesIndex} is bounded by. */
export interface SeriesIndexOptions {
  /** How long repeats fold into one series, from its last write (ms). */
  readonly window: number;
  readonly maxSeries: number;
  /** A new series looks for the Event a previous process left before its first write (`resumeSeries`). */
  readonly resume: boolean;
  /** The objects left without series kept for their spent budget (the pacing's `SpentBudgets`). */
  readonly kept: KeptObjects;
  /** Combines the Events of notes that keep changing; unset with `combineSimilarEvents: false`. */
  readonly similar?: SimilarEvents;
}

/** The series an occurrence is counted in, and the occurrence as it is written there. */
export interface Counted {
  readonly series: Series;
  /** The occurrence, or its copy with its combined Event's note. */
  readonly occurrence: Occurrence;
  /** Whether its note was combined with those of similar events. */
  readonly combined: boolean;
}

/**
 * Finds the series of a publish, and bounds how many are tracked, in time
 * and in number.
 *
 * Series are kept in the order they came (a linked list, not a `Map`'s
 * order; see `InsertionOrder`); a use only marks a series as referenced,
 * and expiry and eviction, which look at the front only, move a referenced
 * series to the end instead of dropping it (the CLOCK approximation of
 * least recently used). A repeat thus changes no map, and each publish
 * stays amortised O(1) however many series are tracked. A series with
 * queued occurrences is never dropped.
 */
export class SeriesIndex {
  /**
   * The objects with series, and those kept for their spent budget, by
   * uid: a series is found among its object's few, with no key string to
   * build per publish.
   */
  private readonly objects = new Map<string, TrackedObject>();
  /** Every tracked series, oldest first (or least recently given its second chance). */
  private readonly order = new InsertionOrder<Series>();
  private tracked = 0;

  constructor(private readonly options: SeriesIndexOptions) {}

  /** Series tracked for their next repeat. */
  get size(): number {
    return this.tracked;
  }

  /**
   * Counts a valid occurrence in its series, its note combined when the
   * object's notes keep changing; an object without a uid gets an Event of
   * its own every time.
   */
  count(occurrence: Occurrence): Counted {
    const { failure, publishedAt } = occurrence;
    const uid = occurrence.resource.metadata?.uid;
    if (!uid) return { series: this.untracked(failure, publishedAt), occurrence, combined: false };
    const { reason, action } = occurrence.event;
    // The series' key leaves the note out, so the series is found before the note is combined.
    const series = this.acquire(uid, failure, reason, action, publishedAt);
    const combined = this.options.similar?.combine(series.object!, occurrence);
    return { series, occurrence: combined ?? occurrence, combined: combined !== undefined };
  }

  /** Returns the series (failure?, `uid`, `reason`, `action`), creating it, marks it used and counts the occurrence. */
  acquire(uid: string, failure: boolean, reason: string, action: string, now: number): Series {
    const object = this.objects.get(uid);
    const known = object && find(object, failure, reason, action);
    if (known) {
      known.referenced = true;
      known.occurrences++;
      this.dropStale(now, known);
      return known;
    }
    this.dropStale(now);
    const kind = { failure, reason, action };
    let series: Series;
    // An object left without series (before, or by the drops just now) is either kept for its spent budget or gone.
    if (object && (object.series || this.options.kept.take(object))) {
      series = newSeries(object, kind, this.options.resume, now);
      series.sibling = object.series;
      object.series = series;
    } else {
      series = this.firstSeriesOf(uid, kind, now);
    }
    series.occurrences = 1;
    this.order.push(series);
    this.tracked++;
    return series;
  }

  /** A series of one Event about an object without a uid: never tracked, so never repeated. */
  untracked(failure: boolean, now: number): Series {
    return newSeries(undefined, { failure, reason: '', action: '' }, false, now);
  }

  /**
   * The occurrences the failure or publish series of one object have
   * counted, and when the earliest of them began; `undefined` when it has none.
   */
  countedIn(uid: string, failure: boolean): { readonly occurrences: number; readonly since: number } | undefined {
    let occurrences = 0;
    let since = Infinity;
    for (let series = this.objects.get(uid)?.series; series; series = series.sibling) {
      if (series.failure !== failure) continue;
      occurrences += series.occurrences;
      since = Math.min(since, series.openedAt);
    }
    return occurrences ? { occurrences, since } : undefined;
  }

  /**
   * Stops tracking the series of one object: all of them, or only its
   * failure or publish series. Returns the Events they had written.
   * Occurrences they hold are still written, to their Event.
   */
  forget(uid: string, failure: true | undefined, now: number): SeriesEvent[] {
    const object = this.objects.get(uid);
    if (!object) return [];
    this.options.similar?.forget(object, failure);
    const ended: SeriesEvent[] = [];
    // Read before any is removed: a removal unlinks its series.
    const all: Series[] = [];
    for (let series = object.series; series; series = series.sibling) all.push(series);
    for (const series of all) {
      if (failure !== undefined && series.failure !== failure) continue;
      this.remove(series, now);
      if (series.event) ended.push(series.event);
    }
    return ended;
  }

  /** A new tracked object with its first series. */
  private firstSeriesOf(uid: string, kind: SeriesKind, now: number): Series {
    const object: TrackedObject = {
      uid,
      series: undefined,
      budget: undefined,
      notes: undefined,
      previous: undefined,
      next: undefined,
    };
    const series = newSeries(object, kind, this.options.resume, now);
    object.series = series;
    this.objects.set(uid, object);
    return series;
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
      // A create given up in doubt keeps its series, so that the next create of its Event reuses its name.
      const doubted = series.inDoubt !== undefined && now - series.inDoubt.at <= this.options.window;
      if ((series.event && now - series.event.publishedAt <= this.options.window) || doubted) {
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
    unlink(object, series);
    if (object.series) return;
    const forgotten = this.options.kept.keep(object, now);
    if (forgotten) this.objects.delete(forgotten.uid);
  }
}

/** What tells the series of one object apart. */
type SeriesKind = Pick<Series, 'failure' | 'reason' | 'action'>;

function find(object: TrackedObject, failure: boolean, reason: string, action: string): Series | undefined {
  for (let series = object.series; series; series = series.sibling) {
    if (series.failure === failure && series.reason === reason && series.action === action) return series;
  }
  return undefined;
}

/** Takes a series out of its object's chain. */
function unlink(object: TrackedObject, series: Series): void {
  if (object.series === series) object.series = series.sibling;
  else {
    let before = object.series!;
    while (before.sibling !== series) before = before.sibling!;
    before.sibling = series.sibling;
  }
  series.sibling = undefined;
}

function newSeries(
  object: TrackedObject | undefined,
  { failure, reason, action }: SeriesKind,
  lookupPending: boolean,
  openedAt: number,
): Series {
  return {
    object,
    failure,
    reason,
    action,
    event: undefined,
    occurrences: 0,
    openedAt,
    inDoubt: undefined,
    queue: [],
    // The write state of a series that never wrote.
    state: 'idle',
    retryAt: 0,
    failures: 0,
    lastFailureAt: 0,
    lookupPending,
    referenced: false,
    previous: undefined,
    next: undefined,
    sibling: undefined,
  };
}
