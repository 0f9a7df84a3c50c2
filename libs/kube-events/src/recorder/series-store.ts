import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from '../kube-events.interfaces.js';
import type { TokenBucket } from './token-bucket.js';

/** What a repeat must match, besides the series key, to raise the series' Event. */
export interface EventIdentity {
  readonly type: string;
  readonly note: string | undefined;
  /** `related` and `annotations` as JSON, compared as strings. */
  readonly related: string | undefined;
  readonly annotations: string | undefined;
}

/** The Event a series last wrote, which repeats patch. */
export interface SeriesEvent extends EventIdentity {
  readonly name: string;
  readonly namespace: string;
  count: number;
  /** When the series was last written (created or patched), in epoch ms. */
  publishedAt: number;
}

/** Occurrences counted locally, to be written together in the series' next write. */
export interface FoldedOccurrences {
  readonly resource: KubernetesObject;
  readonly event: KubeEvent;
  readonly identity: EventIdentity;
  occurrences: number;
  /** When the first of them was published, in epoch ms. */
  readonly firstAt: number;
  /** Failed writes of these occurrences so far. */
  tries: number;
  /** No write before this time, after a failed one (epoch ms). */
  notBefore: number;
}

/** What is tracked about one object: its series, and its write budget. */
export interface TrackedObject {
  readonly uid: string;
  readonly series: Series[];
  /** The writes the object may still send, made on its first write. */
  budget: TokenBucket | undefined;
}

/** One series: repeats of one Event about one object, written one at a time. */
export interface Series {
  readonly key: string;
  readonly object: TrackedObject;
  readonly failure: boolean;
  event: SeriesEvent | undefined;
  /** Occurrences waiting to be written, oldest first; one entry per distinct event. */
  readonly folded: FoldedOccurrences[];
  /** The write in flight, if any: at most one per series. */
  writing: Promise<unknown> | undefined;
  /** When the folded occurrences are next looked at. */
  flushTimer: NodeJS.Timeout | undefined;
  /** Writes in flight and folded entries; a busy series is never dropped. */
  busy: number;
}

/**
 * The series a recorder tracks, bounded in time and in number. A `Map` keeps
 * insertion order, and every use moves a series to the end, so the front
 * holds the least recently used ones: expiry and eviction only look there,
 * which keeps each publish amortised O(1) however many series are tracked.
 */
export class SeriesStore {
  private readonly series = new Map<string, Series>();
  private readonly objects = new Map<string, TrackedObject>();
  /**
   * Budgets of objects whose series were all forgotten before the budget
   * refilled: a flapping object (failure, success, failure…) keeps its spent
   * budget. Bounded like the series, and a refilled one is not kept.
   */
  private readonly spentBudgets = new Map<string, TokenBucket>();

  constructor(
    private readonly window: number,
    private readonly maxSeries: number,
  ) {}

  get size(): number {
    return this.series.size;
  }

  /** Returns the series for `key`, creating it, and marks it most recently used. */
  acquire(key: string, uid: string, failure: boolean, now: number): Series {
    let series = this.series.get(key);
    if (series) this.series.delete(key);
    this.dropStale(now);
    if (!series) {
      let object = this.objects.get(uid);
      if (!object) {
        object = { uid, series: [], budget: this.spentBudgets.get(uid) };
        this.spentBudgets.delete(uid);
        this.objects.set(uid, object);
      }
      series = { key, object, failure, event: undefined, folded: [], writing: undefined, flushTimer: undefined, busy: 0 };
      object.series.push(series);
    }
    this.series.set(key, series);
    return series;
  }

  /** Whether a repeat published now may patch the series' last Event. */
  isCurrent(event: SeriesEvent, now: number): boolean {
    return now - event.publishedAt <= this.window;
  }

  /**
   * Forgets the series of one object: all of them, or only its failure or
   * publish series.
   */
  forget(uid: string, failure: boolean | undefined, now: number): void {
    const object = this.objects.get(uid);
    if (!object) return;
    for (const series of [...object.series]) {
      if (failure === undefined || series.failure === failure) this.remove(series, now);
    }
  }

  /**
   * Drops expired series from the least recently used end, stopping at the
   * first live or busy one, then evicts idle series until there is room for
   * the series being acquired (which is out of the map meanwhile).
   */
  private dropStale(now: number): void {
    for (const series of this.series.values()) {
      if (series.busy || (series.event && this.isCurrent(series.event, now))) break;
      this.remove(series, now);
    }
    if (this.series.size < this.maxSeries) return;
    for (const series of this.series.values()) {
      if (!series.busy) this.remove(series, now);
      if (this.series.size < this.maxSeries) return;
    }
  }

  private remove(series: Series, now: number): void {
    this.series.delete(series.key);
    const { object } = series;
    object.series.splice(object.series.indexOf(series), 1);
    if (object.series.length) return;
    this.objects.delete(object.uid);
    if (!object.budget || object.budget.isFull(now)) return;
    this.spentBudgets.set(object.uid, object.budget);
    if (this.spentBudgets.size > this.maxSeries) this.spentBudgets.delete(this.spentBudgets.keys().next().value!);
  }
}
