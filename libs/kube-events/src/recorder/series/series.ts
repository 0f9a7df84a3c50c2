import type { PublishError } from '../../errors.js';
import type { TraceContext } from '../../tracing/trace-context.js';
import type { AwaitedPublish, Occurrence } from '../publish/index.js';
import type { SeriesWriteState } from './series-state.js';
import type { NoteChanges } from './similar-events.js';
import type { WritePlan } from './write-plan.js';

/** The Event a series last wrote, which repeats patch. */
export interface SeriesEvent {
  readonly name: string;
  readonly namespace: string;
  /** What a repeat must match to raise it: a digest of fixed size (see `identityDigest`), however large the note and annotations. */
  readonly identity: string;
  /** The count on the server, as last seen. */
  count: number;
  /** The precondition of the next patch. */
  resourceVersion: string | undefined;
  /** The write marks it held at `resourceVersion` (see `WRITES_ANNOTATION`). */
  writes: readonly string[] | undefined;
  /** When it was last written (created or patched), on the monotonic clock. */
  publishedAt: number;
}

/** A create of a series that may have applied, under `name`, which its next create of the same Event reuses. */
export interface InDoubtCreate {
  readonly name: string;
  readonly namespace: string;
  readonly eventTime: number;
  readonly identity: string;
  /** When it was given up (monotonic ms): past the series window it no longer counts. */
  readonly at: number;
}

/**
 * Occurrences of one event in one series, written together by one write:
 * the one object that describes them on their way. The write queue owns
 * what it carries (how many, their waiters, the latest trace context); the
 * write ledger owns what its attempts did (`attempts`); the write
 * coordinator counts the publishes told it stays queued (`toldQueued`). It
 * holds only the publishes still awaiting it: one that settles (timed out,
 * or rejected while the server is unreachable) leaves at once, so an outage
 * of many publishes holds one count, not a list.
 */
export interface Batch {
  /** The digest of what the Event says (see `identityDigest`). */
  readonly identity: string;
  /** The first of them: what the Event says. */
  readonly first: Occurrence;
  occurrences: number;
  /** The UTF-8 bytes of what it carries (see `WriteQueue`), which `maxPendingBytes` bounds while it waits. */
  readonly bytes: number;
  /** The trace context of the latest of them, which the write puts on the Event. */
  trace: TraceContext | undefined;
  /** The publishes still awaiting this write; each leaves as it settles. */
  readonly waiters: Set<AwaitedPublish>;
  /** What its write's attempts did, which only `WriteLedger` changes. */
  readonly attempts: BatchAttempts;
  /**
   * How many of its publishes were told it stays queued (`queued: true`):
   * a promise that it is written or counted as dropped, so that a refusal
   * later drops it, counted and logged, rather than reports a failed write.
   * Only the write coordinator, which tells them, counts them.
   */
  toldQueued: number;
}

/** What a write's answers showed of its series' Event on the way, which the series takes when the write ends. */
export interface SeenEvent {
  /** The series' Event: found and resumed, or another replica's met by its name; `undefined` when it is gone or passed over. */
  readonly event: SeriesEvent | undefined;
}

/**
 * What the attempts of a batch's write did, and what that leaves: `WriteLedger` alone changes it, as it plans
 * each write and reads each answer; the write coordinator applies to the series what it decided.
 */
export interface BatchAttempts {
  /**
   * The write it goes out as, fixed at its first attempt so that a retry is
   * the same write (name, precondition); its count follows the batch's
   * `occurrences`, which a publish joining a batch that waits to retry raises.
   */
  plan: WritePlan | undefined;
  /** The count the plan builds on: 0 for a create, the Event's count as last read for a patch. */
  base: number;
  /** Occurrences of the batch an earlier attempt put on the server already, as a read showed. */
  landed: number;
  /**
   * The attempts sent under the plan's name or precondition that got no
   * answer that could be read, each with the count it set and its write
   * mark (with `resumeSeries`): at most one of them applied (the name or
   * precondition refuses the others), and a read tells which.
   */
  readonly mayHaveLanded: { readonly count: number; readonly mark: string | undefined }[];
  /** The failure of the latest of those attempts: what a drop of the batch reports, as it may be on the server. */
  inDoubtBecause: PublishError | undefined;
  /** Attempts in a row that got no answer at all. */
  unanswered: number;
  /** Why its last attempt failed. */
  lastError: PublishError | undefined;
  /** Its create reuses the name of a create given up in doubt: an Event found under that name may hold the occurrences of that create, not this batch's. */
  reusesInDoubtName: boolean;
  /**
   * Names it found holding an Event not its series' own, or one whose
   * count is full, and passed over: the name of its next create follows
   * from the last of them, so that replicas passing over the same ones meet
   * on the next.
   */
  passedOver: number;
  /**
   * What the write on its way saw of the series' Event, which planning
   * reads before the series' own (unset: nothing yet). The series itself
   * changes only when the write ends, whatever becomes of it: a retry
   * planned afresh follows what was seen. Cleared as each write starts.
   */
  seen: SeenEvent | undefined;
  /** The write on its way got an answer to its series' lookup (see `Series.lookupPending`). Cleared as each write starts. */
  lookedUp: boolean;
  /** The series' create in doubt, as the write on its way found its name holding an Event not the series' own: passed over. */
  passedOverInDoubt: InDoubtCreate | undefined;
}

/** An object's write budget, as the series see it: made and spent by the recorder's pacing. */
export interface ObjectBudget {
  /** Whether the budget is full again at `now`: an object left without series is then forgotten. */
  isFull(now: number): boolean;
}

/**
 * The objects left without series that are kept for their spent budget, so
 * that a flapping object does not get a full budget back: bounded, oldest
 * given up first.
 */
export interface KeptObjects {
  /** Keeps an object left without series if its budget is spent; returns the object to forget, if any. */
  keep(object: TrackedObject, now: number): TrackedObject | undefined;
  /** Takes an object back for a new series; false when it is not kept (it is gone). */
  take(object: TrackedObject): boolean;
}

/**
 * What is tracked about one object: its series, and its write budget. An
 * object whose series are all gone stays while its budget is spent, linked
 * among the kept objects ({@link KeptObjects}), so that it gets that budget back.
 */
export interface TrackedObject {
  readonly uid: string;
  /** Its first series; the others follow through `sibling`. */
  series: Series | undefined;
  /** The writes the object may still send, made on its first write. */
  budget: ObjectBudget | undefined;
  /** How its notes changed, for combining similar events (`SimilarEvents`, which alone reads and changes it). */
  notes: NoteChanges | undefined;
  /** Its neighbours among the objects kept only for their spent budget, which the {@link KeptObjects} own. */
  previous: TrackedObject | undefined;
  next: TrackedObject | undefined;
}

/**
 * One series: repeats of one Event about one object, written one at a time.
 * A series is (failure?, object uid, reason, action). Its write state and
 * its Event (`event`, `inDoubt`, `lookupPending`) change only in the write
 * coordinator, as writes start and end; its `queue` only in the write
 * queue; the rest in the series index.
 */
export interface Series extends SeriesWriteState {
  /** `undefined` for the Event of an object without a uid, which no later publish repeats. */
  readonly object: TrackedObject | undefined;
  readonly failure: boolean;
  readonly reason: string;
  readonly action: string;
  event: SeriesEvent | undefined;
  /** Occurrences published in it since it began, whatever their Events: what a recovery Event counts. */
  occurrences: number;
  /** When its first occurrence was published (monotonic ms). */
  readonly openedAt: number;
  /**
   * A create given up (dropped, expired) after an attempt that may have
   * applied: its Event may be on the server, or land there late. The
   * series' next create of the same Event goes out under its name, so that
   * the server keeps one of the two (the other is refused as existing).
   */
  inDoubt: InDoubtCreate | undefined;
  /** Occurrences waiting to be written, oldest first; the first may be in flight. */
  queue: Batch[];
  /** A previous process may have left its Event on the server (`resumeSeries`): look for it before the first write. */
  lookupPending: boolean;
  /** Used again since it last took its place in the index's order: it gets a second chance before it is dropped. */
  referenced: boolean;
  /** Its neighbours in the index's order, which the index owns. */
  previous: Series | undefined;
  next: Series | undefined;
  /** The next series of the same object: most objects have one. */
  sibling: Series | undefined;
}
