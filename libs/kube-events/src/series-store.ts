/** The Event a series last wrote, which repeats patch. */
export interface SeriesEvent {
  readonly name: string;
  readonly namespace: string;
  count: number;
  /** When the series was last written (created or patched), in epoch ms. */
  publishedAt: number;
}

/** One series: repeats of one Event about one object, published one at a time. */
export interface Series {
  readonly key: string;
  readonly uid: string;
  readonly failure: boolean;
  event: SeriesEvent | undefined;
  /** Settles when the last queued publish of this series has finished. */
  tail: Promise<void>;
  /** Publishes queued or running; a busy series is never dropped. */
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
  private readonly byUid = new Map<string, Series[]>();

  constructor(
    private readonly window: number,
    private readonly maxSeries: number,
  ) {}

  get size(): number {
    return this.series.size;
  }

  /** Returns the series for `key`, creating it, and marks it busy and most recently used. */
  acquire(key: string, uid: string, failure: boolean, now: number): Series {
    let series = this.series.get(key);
    if (series) {
      this.series.delete(key);
    } else {
      series = { key, uid, failure, event: undefined, tail: Promise.resolve(), busy: 0 };
      const siblings = this.byUid.get(uid);
      if (siblings) siblings.push(series);
      else this.byUid.set(uid, [series]);
    }
    series.busy++;
    this.series.set(key, series);
    this.dropStale(now);
    return series;
  }

  /** Marks a publish of the series finished. */
  release(series: Series): void {
    series.busy--;
  }

  /** Whether a repeat published now may patch the series' last Event. */
  isCurrent(event: SeriesEvent, now: number): boolean {
    return now - event.publishedAt <= this.window;
  }

  /** Forgets the series of one object: all of them, or only its failure or publish series. */
  forget(uid: string, failure?: boolean): void {
    const siblings = this.byUid.get(uid);
    if (!siblings) return;
    const kept = siblings.filter((series) => {
      const drop = failure === undefined || series.failure === failure;
      if (drop) this.series.delete(series.key);
      return !drop;
    });
    if (kept.length) this.byUid.set(uid, kept);
    else this.byUid.delete(uid);
  }

  /**
   * Drops expired series from the least recently used end, stopping at the
   * first live or busy one, then evicts idle series while over the cap.
   */
  private dropStale(now: number): void {
    for (const series of this.series.values()) {
      if (series.busy || (series.event && this.isCurrent(series.event, now))) break;
      this.remove(series);
    }
    if (this.series.size <= this.maxSeries) return;
    for (const series of this.series.values()) {
      if (!series.busy) this.remove(series);
      if (this.series.size <= this.maxSeries) return;
    }
  }

  private remove(series: Series): void {
    this.series.delete(series.key);
    const siblings = this.byUid.get(series.uid);
    if (!siblings) return;
    if (siblings.length === 1) this.byUid.delete(series.uid);
    else siblings.splice(siblings.indexOf(series), 1);
  }
}
