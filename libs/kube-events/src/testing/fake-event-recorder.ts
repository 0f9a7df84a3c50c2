import type { OnModuleInit } from '@nestjs/common';
import type { EventsV1Event, V1ObjectReference } from '@kubernetes/client-node';
import { EventRecorder } from '../recorder/event-recorder.js';
import type { EventType, KubeEventsModuleOptions, Reporter, WriteControlOptions } from '../kube-events.interfaces.js';
import {
  LOWER_COUNT_HINT,
  NO_MATCHING_EVENT,
  NOT_INITIALISED_HINT,
  NO_UID_HINT,
  UNEXPECTED_EVENT,
} from '../kube-events.messages.js';
import { InMemoryEventsWriter } from './in-memory-events-writer.js';

/** The reporter of a {@link FakeEventRecorder} given none. */
export const TEST_REPORTER: Readonly<Reporter> = Object.freeze({ controller: 'kube-events-test' });

/**
 * Write control of a {@link FakeEventRecorder}: budgets too large to matter
 * in a test, so that only a write of the same series in flight folds an
 * occurrence, and none is dropped for want of room (`maxPending`).
 */
export const TEST_WRITE_CONTROL: Readonly<Required<WriteControlOptions>> = Object.freeze({
  objectBurst: Number.MAX_SAFE_INTEGER,
  objectRefillMs: 1,
  maxDelay: 1,
  qps: 1e9,
  burst: Number.MAX_SAFE_INTEGER,
  maxPending: Number.MAX_SAFE_INTEGER,
  maxPendingBytes: Number.MAX_SAFE_INTEGER,
});

/** Options of a {@link FakeEventRecorder}: a recorder's, all optional, without a KubeConfig. */
export type FakeEventRecorderOptions = Partial<Omit<KubeEventsModuleOptions, 'kubeConfig'>>;

/** An Event as the API server would hold it after the publishes so far. */
export interface RecordedEvent {
  /** The Event's `metadata.name`, as the recorder chose it. */
  readonly name: string;
  /** The Event's namespace: the object's, or `clusterScopedNamespace` (`default`) for a cluster-scoped one. */
  readonly namespace: string;
  /** `Normal` or `Warning`. */
  readonly type: EventType;
  /** The Event's reason. */
  readonly reason: string;
  /** The Event's action. */
  readonly action: string;
  /** As written, truncated to `MAX_NOTE_BYTES`. */
  readonly note?: string;
  /** The object the Event is about. */
  readonly regarding: V1ObjectReference;
  /** The second object, when the publish named one. */
  readonly related?: V1ObjectReference;
  /** The Event's annotations, when it has any. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The Event's labels, when it has any. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The reporter's controller. */
  readonly reportingController: string;
  /** The reporter's instance. */
  readonly reportingInstance: string;
  /** The series count: 1 for an Event without a series. */
  readonly count: number;
  /** The Event itself. */
  readonly body: EventsV1Event;
}

/** What {@link FakeEventRecorder.expectEvent} looks for; every field given must match. */
export interface ExpectedEvent {
  /** The exact reason. */
  reason?: string;
  /** `Normal` or `Warning`. */
  type?: EventType;
  /** The exact action. */
  action?: string;
  /** The note as written (after truncation), or a pattern it matches. */
  note?: string | RegExp;
  /** The object's name, or the fields of its reference to compare. */
  regarding?: string | Pick<V1ObjectReference, 'kind' | 'name' | 'namespace' | 'uid'>;
  /** The exact series count. */
  count?: number;
}

/**
 * A real {@link EventRecorder} writing to memory instead of an API server,
 * for unit tests: validation, note truncation and aggregation into series
 * apply exactly as in production, and {@link events} shows what the server
 * would hold, with each Event's current count. Unlike client-go's
 * FakeRecorder (a bounded channel) it never blocks, and it drops only what
 * a production recorder would: past 8 distinct events waiting in one series
 * (say, 10 publishes with different notes about one object, not awaited).
 *
 * As in production, an awaited publish is written: assert right after it.
 * Only the failure of a synchronous `@PublishesFailures` method is
 * published in the background: `await recorder.flush()` before asserting
 * on it.
 *
 * @example
 * const recorder = new FakeEventRecorder();
 * await reconciler.reconcile(widget).catch(() => undefined);
 * recorder.expectEvent({ reason: 'ReconcileFailed', regarding: 'w1', count: 1 });
 */
export class FakeEventRecorder extends EventRecorder implements OnModuleInit {
  private readonly memory: InMemoryEventsWriter;
  private initialised = false;

  /**
   * A fake with the recorder's options, all optional: reporter {@link TEST_REPORTER}, write control {@link TEST_WRITE_CONTROL} unless given.
   * @param providedByModule `true` from `KubeEventsTestingModule`, which Nest initialises with the
   * application: an empty fake that was never initialised then says that `app.init()` is missing. @internal
   */
  constructor(
    options: FakeEventRecorderOptions = {},
    private readonly providedByModule = false,
  ) {
    const memory = new InMemoryEventsWriter();
    super(
      {
        ...options,
        reporter: options.reporter ?? TEST_REPORTER,
        writeControl: { ...TEST_WRITE_CONTROL, ...options.writeControl },
      },
      memory,
    );
    this.memory = memory;
  }

  /**
   * Called by Nest on `app.init()`; lets {@link expectEvent} say that the
   * application was not initialised when nothing was recorded.
   */
  onModuleInit(): void {
    this.initialised = true;
  }

  /** The Events the API server would hold now, oldest first. */
  get events(): readonly RecordedEvent[] {
    return this.memory.events.map(recordedEvent);
  }

  /**
   * Returns the latest Event matching `expected`.
   * @throws Error listing the recorded Events when none matches, with a hint
   * when the fake came from `KubeEventsTestingModule` and `app.init()` was never called
   */
  expectEvent(expected: ExpectedEvent): RecordedEvent {
    const events = this.events;
    const match = events.findLast((event) => matches(event, expected));
    if (match) return match;
    const countAside =
      expected.count === undefined ? [] : events.filter((event) => matches(event, { ...expected, count: undefined }));
    // Without a uid every repeat starts a new Event at count 1: the missing uid, not a running publish, is the cause.
    const uidless = countAside.length > 0 && countAside.every((event) => !event.regarding.uid);
    const notInitialised = events.length === 0 && this.providedByModule && !this.initialised;
    const hints = [
      uidless ? NO_UID_HINT : countAside.length > 0 && LOWER_COUNT_HINT,
      notInitialised && NOT_INITIALISED_HINT,
    ]
      .filter(Boolean)
      .join('\n');
    throw new Error(NO_MATCHING_EVENT(describeExpected(expected), events.map(describeEvent), hints || undefined));
  }

  /** @throws Error naming the Event when one matches `expected` */
  expectNoEvent(expected: ExpectedEvent): void {
    const match = this.events.find((event) => matches(event, expected));
    if (match) throw new Error(UNEXPECTED_EVENT(describeExpected(expected), describeEvent(match)));
  }

  /**
   * Forgets the recorded Events. A later repeat of a series finds its Event
   * gone, as after the server's event TTL, and creates a new one with count 1.
   */
  clear(): void {
    this.memory.clear();
  }
}

function recordedEvent(body: EventsV1Event): RecordedEvent {
  return {
    name: body.metadata!.name!,
    namespace: body.metadata!.namespace!,
    type: body.type as EventType,
    reason: body.reason!,
    action: body.action!,
    note: body.note,
    regarding: body.regarding!,
    related: body.related,
    annotations: body.metadata?.annotations,
    labels: body.metadata?.labels,
    reportingController: body.reportingController!,
    reportingInstance: body.reportingInstance!,
    count: body.series?.count ?? 1,
    body,
  };
}

function matches(event: RecordedEvent, expected: ExpectedEvent): boolean {
  if (expected.reason !== undefined && event.reason !== expected.reason) return false;
  if (expected.type !== undefined && event.type !== expected.type) return false;
  if (expected.action !== undefined && event.action !== expected.action) return false;
  if (expected.count !== undefined && event.count !== expected.count) return false;
  if (expected.note !== undefined) {
    if (typeof expected.note === 'string' ? event.note !== expected.note : !expected.note.test(event.note ?? ''))
      return false;
  }
  if (expected.regarding !== undefined) {
    const wanted = typeof expected.regarding === 'string' ? { name: expected.regarding } : expected.regarding;
    for (const field of ['kind', 'name', 'namespace', 'uid'] as const) {
      if (wanted[field] !== undefined && event.regarding[field] !== wanted[field]) return false;
    }
  }
  return true;
}

function describeExpected(expected: ExpectedEvent): string {
  const fields = Object.entries(expected)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${value instanceof RegExp ? String(value) : JSON.stringify(value)}`);
  return `{ ${fields.join(', ')} }`;
}

function describeEvent(event: RecordedEvent): string {
  const { kind, namespace, name } = event.regarding;
  const object = [kind, [namespace, name].filter(Boolean).join('/')].filter(Boolean).join(' ');
  return (
    `${event.type} ${event.reason} (${event.action}) about ${object}, count ${event.count}` +
    (event.note === undefined ? '' : `: ${JSON.stringify(event.note)}`)
  );
}
