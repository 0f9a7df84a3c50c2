import { Subject, type Observable } from 'rxjs';
import type { KubernetesObject, V1ObjectReference } from '@kubernetes/client-node';
import { redactedNote, truncateText } from '../../event-rules/note-truncation.js';
import { errorMessage } from '../../text/describe-value.js';
import { PublishError } from '../../errors.js';
import { MAX_NOTE_BYTES } from '../../kube-events.constants.js';
import type { DropCause, KubeEvent, Reporter } from '../../kube-events.interfaces.js';
import type { TraceContext } from '../../tracing/trace-context.js';
import type { Occurrence } from './occurrence.js';

/**
 * What became of a publish:
 * - `created`: a new Event was written;
 * - `patched`: the series' Event was raised to `count`;
 * - `coalesced`: the occurrence joined others waiting for one write of its series;
 * - `combined`: the occurrence is counted on its object's combined Event, its notes having changed too often
 *   (`combineSimilarEvents`); `event` has the occurrence's own note, and its write's outcome follows;
 * - `failed`: a write was refused or failed (`error` says why; a transient failure is retried), or the event was invalid;
 * - `dropped`: `count` occurrences were given up: no room was left for queued occurrences,
 *   their write kept failing past the series window, or `flush()` ran out of time.
 */
export type PublishOutcomeKind = 'created' | 'patched' | 'coalesced' | 'combined' | 'failed' | 'dropped';

/** One outcome on a recorder's `outcomes$` stream, which sinks and metrics read. */
export interface PublishOutcome {
  /** What became of the publish; see {@link PublishOutcomeKind}. */
  readonly kind: PublishOutcomeKind;
  /** The recorder's reporter, instance resolved. */
  readonly reporter: Readonly<Required<Reporter>>;
  /** The object the Event is about. */
  readonly regarding: Readonly<Pick<NonNullable<KubernetesObject['metadata']>, 'name' | 'namespace' | 'uid'>> & {
    /** The object's `apiVersion`, as published. */
    readonly apiVersion?: string;
    /** The object's `kind`, as published. */
    readonly kind?: string;
  };
  /** The event as written (note truncated). */
  readonly event: KubeEvent;
  /** Whether `@PublishesFailures` published it. */
  readonly failure: boolean;
  /**
   * created/patched: the series count now on the server; coalesced: the
   * occurrences waiting to be written; combined: 1; dropped: the occurrences given up;
   * failed: the occurrences the failed write carried.
   */
  readonly count: number;
  /** The Event written to, when one was. */
  readonly eventName?: string;
  /** The namespace of the Event written to, when one was. */
  readonly namespace?: string;
  /** The uid of the Event written to, when the server's answer said it. */
  readonly eventUid?: string;
  /**
   * The W3C trace context of the span the latest occurrence it counts was
   * published in, as written on the Event; with OpenTelemetry installed and
   * a span active only.
   */
  readonly traceContext?: {
    /** The W3C `traceparent`. */
    readonly traceparent: string;
    /** The W3C `tracestate`, when the span has one. */
    readonly tracestate?: string;
  };
  /** failed and dropped: why, as the error the publish rejects with. */
  readonly error?: PublishError;
  /** dropped: why the occurrences were given up, as `kube_events_dropped_total` counts them. */
  readonly dropCause?: DropCause;
  /** Milliseconds from the publish (for folded occurrences, the first of them) to the server's answer. */
  readonly durationMs: number;
}

/**
 * The most of any other string from the caller (an object's name, kind or
 * uid, a reason, a related object's fields) that an outcome carries, in
 * UTF-8 bytes: more than any the API server accepts (names are at most
 * 253, `apiVersion` 317, reasons 128), so only values it would refuse are
 * cut, as a note is.
 */
const MAX_OUTCOME_FIELD_BYTES = 512;

/** What an outcome adds to the occurrence it is about. */
export interface OutcomeDetails {
  readonly count: number;
  /** The Event written to. */
  readonly written?: { readonly name: string; readonly namespace: string; readonly uid?: string };
  /** The trace context of the latest occurrence counted, when it is not `occurrence`'s. */
  readonly trace?: TraceContext;
  readonly error?: unknown;
  /** dropped: why. */
  readonly dropCause?: DropCause;
  /** Now, on the monotonic clock. */
  readonly now: number;
}

/**
 * Where a recorder tells what became of each occurrence, for its sinks and
 * metrics: the one owner of `outcomes$`. An outcome nobody observes is not
 * built.
 */
export class RecorderOutcomes {
  private readonly outcomes = new Subject<PublishOutcome>();
  /** Every publish outcome, in the order they happened. */
  readonly outcomes$: Observable<PublishOutcome> = this.outcomes.asObservable();

  constructor(private readonly reporter: Readonly<Required<Reporter>>) {}

  /** Tells the observers what became of `occurrence`. */
  report(kind: PublishOutcomeKind, occurrence: Occurrence, details: OutcomeDetails): void {
    if (this.outcomes.observed) this.outcomes.next(outcomeOf(kind, this.reporter, occurrence, details));
  }

  /** No outcome follows: the recorder has shut down. */
  complete(): void {
    this.outcomes.complete();
  }
}

/** Builds the outcome of `kind` for an occurrence (for a batch, its first). */
function outcomeOf(
  kind: PublishOutcomeKind,
  reporter: Readonly<Required<Reporter>>,
  occurrence: Occurrence,
  { count, written, error, dropCause, now, trace = occurrence.trace }: OutcomeDetails,
): PublishOutcome {
  const { resource, event, failure, publishedAt } = occurrence;
  const metadata = resource?.metadata;
  return {
    kind,
    reporter,
    regarding: {
      apiVersion: bounded(resource?.apiVersion),
      kind: bounded(resource?.kind),
      name: bounded(metadata?.name),
      namespace: bounded(metadata?.namespace),
      uid: bounded(metadata?.uid),
    },
    event: event.related ? { ...event, related: boundedReference(event.related) } : event,
    failure,
    count,
    eventName: written?.name,
    namespace: written?.namespace,
    eventUid: written?.uid,
    traceContext: trace && { traceparent: trace.traceparent, tracestate: trace.tracestate },
    error: error === undefined ? undefined : asPublishError(error),
    ...(dropCause === undefined ? {} : { dropCause }),
    durationMs: Math.round(now - publishedAt),
  };
}

function asPublishError(error: unknown): PublishError {
  if (error instanceof PublishError) return error;
  return new PublishError(truncateText(errorMessage(error), MAX_NOTE_BYTES), { cause: error });
}

/** A string from the caller cut to {@link MAX_OUTCOME_FIELD_BYTES}. */
function bounded<T extends string | undefined>(value: T): T {
  return (value === undefined ? value : truncateText(value, MAX_OUTCOME_FIELD_BYTES)) as T;
}

/** `related` with each field bounded; the same object when none needs it. */
function boundedReference(related: V1ObjectReference): V1ObjectReference {
  const fields = Object.entries(related) as [keyof V1ObjectReference, string | undefined][];
  if (fields.every(([, value]) => value === undefined || value.length * 3 <= MAX_OUTCOME_FIELD_BYTES)) return related;
  return Object.fromEntries(fields.map(([key, value]) => [key, bounded(value)]));
}

/**
 * A publish refused as invalid, as its outcome shows it: of the caller's
 * object and event, only the fields that are strings, read so that nothing
 * throws, and bounded as a valid publish's are: the note redacted and cut
 * to {@link MAX_NOTE_BYTES}, every other field to
 * {@link MAX_OUTCOME_FIELD_BYTES}. Sinks and metrics then never meet a
 * `null` event, a Symbol, a getter that throws or a 10 MB note, whatever
 * the caller passed.
 */
export function refusedOccurrence(
  resource: unknown,
  event: unknown,
  failure: boolean,
  publishedAt: number,
  redactNote: (note: string) => string,
): Occurrence {
  const metadata = fieldOf(resource, 'metadata');
  return {
    resource: {
      apiVersion: bounded(textOf(resource, 'apiVersion')),
      kind: bounded(textOf(resource, 'kind')),
      metadata: {
        name: bounded(textOf(metadata, 'name')),
        namespace: bounded(textOf(metadata, 'namespace')),
        uid: bounded(textOf(metadata, 'uid')),
      },
    },
    event: {
      type: bounded(textOf(event, 'type')) as KubeEvent['type'],
      reason: bounded(textOf(event, 'reason') ?? ''),
      action: bounded(textOf(event, 'action') ?? ''),
      note: refusedNote(textOf(event, 'note'), redactNote),
    },
    failure,
    publishedAt,
  };
}

/**
 * A refused note as sinks may see it: redacted, then cut as a valid note
 * is (only its start is redacted: the rest would be cut anyway), or left
 * out when the redaction fails.
 */
function refusedNote(note: string | undefined, redactNote: (note: string) => string): string | undefined {
  if (note === undefined) return undefined;
  try {
    const redacted = redactedNote(note, redactNote);
    return typeof redacted === 'string' ? redacted : undefined;
  } catch {
    return undefined;
  }
}

function fieldOf(value: unknown, key: string): unknown {
  try {
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

function textOf(value: unknown, key: string): string | undefined {
  const field = fieldOf(value, key);
  return typeof field === 'string' ? field : undefined;
}
