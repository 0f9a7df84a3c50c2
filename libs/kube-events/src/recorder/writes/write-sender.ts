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

  /** Sends the write of `series`' `batch`, `plan` first, started at `startedAt`, and says how it ended. */
  async send(series: Series, batch: Batch, plan: WritePlan, startedAt: number): Promise<EndedWrite> {
    const { requests, ledger, clock, marks } = this.parts;
    let answered = false;
    let resent = false;
    for (let requestCount = 1; ; requestCount++) {
      const sentAt = clock.now();
      const mark = marks?.next();
      let result: WriteResult;
      try {
        result = await requests.request(batch.first, plan, batch.trace, mark);
      } catch (error) {
        // The requests reject with a PublishError only, whatever the writer threw.
        const next = ledger.readFailure(series, batch, error as PublishError, resent, clock.now(), mark);
        if (next.kind !== 'next') return { batch, decision: next, sentAt, answered };
        // A connection lost once: the same request goes again, on a fresh one.
        resent = true;
        plan = next.plan;
        continue;
      }
      answered = true;
      if (result.kind === 'found' && result.refused) this.warnLookupRefused(result.refused);
      const next = ledger.read(series, batch, result, requestCount, startedAt, clock.now());
      if (next.kind !== 'next') return { batch, decision: next, sentAt: startedAt, answered };
      plan = next.plan;
      if (next.pauseMs > 0) await clock.sleep(next.pauseMs);
    }
  }

  private warnLookupRefused(error: PublishApiError): void {
    if (this.lookupRefusalLogged) return;
    this.lookupRefusalLogged = true;
    this.logger.warn(SERIES_LOOKUP_REFUSED(error));
  }
}
