import { LibraryLogger } from '../../text/library-logger.js';
import type { PublishApiError, PublishError } from '../../errors.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';
import { SERIES_LOOKUP_REFUSED } from '../../kube-events.messages.js';
import type { Batch, Series, WritePlan, WriteResult } from '../series/index.js';
import type { EventRequests } from './event-requests.js';
import type { Failed, WriteLedger, Written } from './write-ledger.js';
import type { WriteMarks } from './write-marks.js';

/** What a {@link WriteSender} works with. */
export interface WriteSenderParts {
  readonly ledger: WriteLedger;
  /** Each request of a write, to the Events API. */
  readonly requests: EventRequests;
  readonly clock: KubeEventsClock;
  /** With `resumeSeries`, where other replicas write the same Events: the marks each attempt leaves on its Event. */
  readonly marks?: WriteMarks;
}

/** How a write ended, and what its requests said of the server. */
export interface EndedWrite {
  readonly batch: Batch;
  /** What the ledger decided of its last answer or failure. */
  readonly decision: Written | Failed;
  /** When its last request was sent (the write's start, when its answers kept changing the Event). */
  readonly sentAt: number;
  /** An earlier request of it got an answer: the server can be reached. */
  readonly answered: boolean;
}

/** A write between its requests: what the next one needs to know of those before it. */
interface WriteInProgress {
  readonly series: Series;
  readonly batch: Batch;
  /** When the write started, on the monotonic clock. */
  readonly startedAt: number;
  /** The requests sent so far, the one on its way included. */
  requests: number;
  /** Whether any request got an answer: the server can be reached. */
  answered: boolean;
  /** Whether the write went again once already on a fresh connection. */
  resent: boolean;
  /** Told how the write ended. */
  readonly ended: (series: Series, ended: EndedWrite) => void;
}

/**
 * Sends a batch's write, start to end: its plan, then each request its
 * answers call for (a read after a `409`, a create after a `404`), each
 * answer read by the {@link WriteLedger} into a decision, until the batch
 * is written or the write failed. It changes no series: whoever sends it
 * applies how it ended.
 */
export class WriteSender {
  /** Logged once per recorder: otherwise every new series would log the same refusal. */
  private lookupRefusalLogged = false;
  private readonly logger = new LibraryLogger('EventRecorder');

  constructor(private readonly parts: WriteSenderParts) {}

  /**
   * Sends the write of `series`' `batch`, `plan` first, started at `now`,
   * and calls `ended` with how it ended. Each request's answer is a
   * callback rather than a step of an async function, whose suspended
   * frame would hold every local per write, and the end is a call, not
   * one more promise.
   */
  send(
    series: Series,
    batch: Batch,
    plan: WritePlan,
    now: number,
    ended: (series: Series, ended: EndedWrite) => void,
  ): void {
    this.request({ series, batch, startedAt: now, requests: 1, answered: false, resent: false, ended }, plan);
  }

  /** Sends the write's next request, `plan`: its answer or its failure says whether the write ends or goes on. */
  private request(write: WriteInProgress, plan: WritePlan): void {
    const { requests, clock, marks } = this.parts;
    const { batch } = write;
    const sentAt = clock.now();
    const mark = marks?.next();
    requests.request(
      batch.first,
      plan,
      batch.trace,
      mark,
      (result) => this.answered(write, result),
      (error) => this.failed(write, error, sentAt, mark),
    );
  }

  /** The server answered the write's request: the write ends, or its next request follows. */
  private answered(write: WriteInProgress, result: WriteResult): void {
    const { ledger, clock } = this.parts;
    const { series, batch, startedAt, ended } = write;
    write.answered = true;
    if (result.kind === 'found' && result.refused) this.warnLookupRefused(result.refused);
    const next = ledger.read(series, batch, result, write.requests, startedAt, clock.now());
    if (next.kind !== 'next') {
      ended(series, { batch, decision: next, sentAt: startedAt, answered: true });
      return;
    }
    write.requests++;
    if (next.pauseMs <= 0) this.request(write, next.plan);
    else void clock.sleep(next.pauseMs).then(() => this.request(write, next.plan));
  }

  /** The write's request sent at `sentAt` failed with `error`: the write ends, or goes again on a fresh connection. */
  private failed(write: WriteInProgress, error: PublishError, sentAt: number, mark: string | undefined): void {
    const { series, batch, ended } = write;
    const next = this.parts.ledger.readFailure(series, batch, error, write.resent, this.parts.clock.now(), mark);
    if (next.kind !== 'next') {
      ended(series, { batch, decision: next, sentAt, answered: write.answered });
      return;
    }
    // A connection lost once: the same request goes again, on a fresh one.
    write.resent = true;
    write.requests++;
    this.request(write, next.plan);
  }

  private warnLookupRefused(error: PublishApiError): void {
    if (this.lookupRefusalLogged) return;
    this.lookupRefusalLogged = true;
    this.logger.warn(SERIES_LOOKUP_REFUSED(error));
  }
}
