import { type AwaitedPublish, identityDigest, type Occurrence } from '../publish/index.js';
import type { Batch, Series } from '../series/index.js';

/** Queued writes one series may hold; past it the oldest waiting one is given up, so one noisy object cannot use up `maxPending`. */
const MAX_BATCHES_PER_SERIES = 8;

/** What became of an occurrence given to {@link WriteQueue.enqueue}. */
export interface Enqueued {
  /** The batch that carries it; `undefined` when there was no room (`maxPending`, or `maxPendingBytes`). */
  readonly batch: Batch | undefined;
  /** Which bound left no room: `full` (`maxPending`) or `full-bytes` (`maxPendingBytes`). */
  readonly refused?: 'full' | 'full-bytes';
  /** It joined occurrences already waiting: one write carries them all. */
  readonly joined: boolean;
  /** A batch given up to make room in its series (its waiters are not settled yet). */
  readonly evicted?: Batch;
}

/**
 * The occurrences waiting to be written, in batches per series, and the
 * bounds on them: `maxPending` batches waiting (not in flight) across every
 * series, carrying at most `maxPendingBytes` (see {@link heldBytes}). A
 * repeat joins the last batch of its series while that one is not on its
 * way, so one write carries them all, and costs no room. It holds batches
 * and their room only: it reads a series' write state (whether a write is
 * in flight), and the write coordinator, its one caller, moves that state.
 */
export class WriteQueue {
  /** Series with occurrences queued, forgotten ones and those of objects without a uid included. */
  readonly withWork = new Set<Series>();
  /** Batches waiting for a write (not in flight), which `maxPending` bounds. */
  private waiting = 0;
  /** What the waiting batches carry, in bytes, which `maxPendingBytes` bounds. */
  private waitingBytes = 0;

  constructor(
    private readonly maxPending: number,
    private readonly maxPendingBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Occurrences not on the server yet, those of writes in flight included. */
  get occurrences(): number {
    let occurrences = 0;
    for (const series of this.withWork)
      for (const batch of series.queue) occurrences += batch.occurrences - batch.attempts.landed;
    return occurrences;
  }

  /** Occurrences whose last write failed, waiting to be retried (or on their way again). */
  get retrying(): number {
    let occurrences = 0;
    for (const series of this.withWork)
      for (const batch of series.queue)
        if (batch.attempts.lastError) occurrences += batch.occurrences - batch.attempts.landed;
    return occurrences;
  }

  /**
   * Queues an occurrence in its series: with the last batch when it repeats
   * it and is not sent yet, else in a batch of its own (`joined` false), so
   * that its series has work.
   */
  enqueue(series: Series, occurrence: Occurrence, waiter: AwaitedPublish): Enqueued {
    const identity = identityDigest(occurrence.event);
    const last = series.queue.at(-1);
    // Joins the last batch unless that one is in flight: one waiting to retry takes it along (its count follows).
    if (last?.identity === identity && !(series.state === 'writing' && last === series.queue[0])) {
      last.occurrences++;
      last.trace = occurrence.trace;
      last.waiters.add(waiter);
      waiter.carrier = last;
      return { batch: last, joined: true };
    }
    // A series' first write gets in while others back up, so that a new object is heard, but only up to
    // twice the room: a flood of new objects held back by the recorder-wide budget would queue without bound.
    const share = series.queue.length ? 1 : 2;
    const bytes = heldBytes(occurrence);
    if (this.waiting >= share * this.maxPending) return { batch: undefined, joined: false, refused: 'full' };
    if (this.waitingBytes + bytes > share * this.maxPendingBytes)
      return { batch: undefined, joined: false, refused: 'full-bytes' };
    const evicted = series.queue.length >= MAX_BATCHES_PER_SERIES ? this.remove(series, 1) : undefined;
    const batch: Batch = {
      identity,
      first: occurrence,
      bytes,
      occurrences: 1,
      trace: occurrence.trace,
      waiters: new Set<AwaitedPublish>().add(waiter),
      attempts: {
        plan: undefined,
        base: 0,
        landed: 0,
        mayHaveLanded: [],
        inDoubtBecause: undefined,
        unanswered: 0,
        lastError: undefined,
        reusesInDoubtName: false,
        passedOver: 0,
        seen: undefined,
        lookedUp: false,
        passedOverInDoubt: undefined,
      },
      toldQueued: 0,
    };
    waiter.carrier = batch;
    series.queue.push(batch);
    this.waiting++;
    this.waitingBytes += bytes;
    this.withWork.add(series);
    return { batch, joined: false, evicted };
  }

  /** Takes the series' next batch for a write, unless one is in flight or nothing is queued: it leaves the waiting room. */
  take(series: Series): Batch | undefined {
    const batch = series.queue[0];
    if (series.state === 'writing' || !batch) return undefined;
    this.waiting--;
    this.waitingBytes -= batch.bytes;
    return batch;
  }

  /** The batch in flight failed and waits for a retry: it takes its room again. */
  putBack(series: Series): void {
    this.waiting++;
    this.waitingBytes += series.queue[0]?.bytes ?? 0;
  }

  /**
   * The batch in flight failed and is retried: a repeat queued behind it
   * meanwhile joins it, so that its retry carries both. Returns whether
   * anything was queued behind it.
   */
  joinRetry(series: Series): boolean {
    const [retried, next] = series.queue;
    if (!retried || !next) return false;
    if (next.identity !== retried.identity) return true;
    retried.occurrences += next.occurrences;
    retried.trace = next.trace;
    for (const waiter of next.waiters) {
      waiter.carrier = retried;
      retried.waiters.add(waiter);
    }
    this.remove(series, 1);
    return true;
  }

  /** The batch in flight is done with (written, refused, or past its window): it leaves its series. */
  done(series: Series): void {
    this.remove(series, 0, true);
  }

  /** Gives up every batch of the series that is not in flight, as when `flush()` runs out of time: returns them, oldest first. */
  dropQueued(series: Series): Batch[] {
    const dropped: Batch[] = [];
    while (series.queue.length > (series.state === 'writing' ? 1 : 0))
      dropped.push(this.remove(series, series.queue.length - 1)!);
    return dropped.reverse();
  }

  /** Removes a batch from its series; `wasInFlight` when its write just settled, so it took no waiting room. */
  private remove(series: Series, index: number, wasInFlight = false): Batch | undefined {
    if (index >= series.queue.length) return undefined;
    const batch = index === 0 ? series.queue.shift()! : series.queue.splice(index, 1)[0];
    if (!wasInFlight) {
      this.waiting--;
      this.waitingBytes -= batch.bytes;
    }
    if (!series.queue.length) this.withWork.delete(series);
    return batch;
  }
}

/**
 * The UTF-8 bytes of what a batch keeps of its first occurrence while it
 * waits: the object's reference and every string of the event (note,
 * related object, annotations, labels). Its own fields and the repeats
 * that join it (a count) are small and bounded by `maxPending`.
 */
function heldBytes({ resource, event }: Occurrence): number {
  const { metadata } = resource;
  let bytes =
    stringBytes(resource.apiVersion) +
    stringBytes(resource.kind) +
    stringBytes(event.type) +
    stringBytes(event.reason) +
    stringBytes(event.action) +
    stringBytes(event.note) +
    recordBytes(event.related) +
    recordBytes(event.annotations) +
    recordBytes(event.labels);
  if (metadata)
    bytes +=
      stringBytes(metadata.name) +
      stringBytes(metadata.namespace) +
      stringBytes(metadata.uid) +
      stringBytes(metadata.resourceVersion);
  return bytes;
}

/** The keys and string values of a validated record (the related object, annotations, labels), read in place. */
function recordBytes(record: object | undefined): number {
  let bytes = 0;
  if (record) for (const [key, value] of Object.entries(record)) bytes += stringBytes(key) + stringBytes(value);
  return bytes;
}

function stringBytes(value: unknown): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : 0;
}
