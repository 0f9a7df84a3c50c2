import { LibraryLogger } from '../../text/library-logger.js';
import { mayHaveApplied } from '../../api/error-verdicts.js';
import { PublishError } from '../../errors.js';
import type { DropCause } from '../../kube-events.interfaces.js';
import { OCCURRENCES_DROPPED } from '../../kube-events.messages.js';
import type { AwaitedPublish, Occurrence, RecorderOutcomes } from '../publish/index.js';
import type { Batch } from '../series/index.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

/** Gives up occurrences that will not be written: each is counted, logged and reported; it says what their waiters are told. */
export class DroppedOccurrences {
  private readonly logger = new LibraryLogger('EventRecorder');

  constructor(
    private readonly outcomes: RecorderOutcomes,
    private readonly clock: KubeEventsClock,
  ) {}

  /** Gives up a batch, last failed with `lastError`: returns the error its waiters are rejected with. */
  drop(batch: Batch, cause: DropCause, lastError: unknown = batch.attempts.lastError): PublishError {
    const { first, attempts } = batch;
    // What a read showed on the server already is not given up; what an earlier attempt may have put there, the error says.
    const occurrences = batch.occurrences - attempts.landed;
    const error = attempts.inDoubtBecause && !mayHaveApplied(lastError) ? attempts.inDoubtBecause : lastError;
    const message = OCCURRENCES_DROPPED(occurrences, first.resource, first.event, cause, error);
    this.logger.warn(message);
    this.outcomes.report('dropped', first, { count: occurrences, error, dropCause: cause, now: this.clock.now() });
    return new PublishError(message, { cause: error });
  }

  /** Gives up an occurrence that found no room in the queue (`maxPending`, `maxPendingBytes`). */
  refuse(occurrence: Occurrence, awaited: AwaitedPublish, cause: DropCause): void {
    const message = OCCURRENCES_DROPPED(1, occurrence.resource, occurrence.event, cause);
    this.logger.warn(message);
    this.outcomes.report('dropped', occurrence, { count: 1, dropCause: cause, now: occurrence.publishedAt });
    awaited.reject(new PublishError(message));
  }
}
