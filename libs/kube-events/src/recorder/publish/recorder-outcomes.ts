import { Subject, type Observable } from 'rxjs';
import type { Reporter } from '../../kube-events.interfaces.js';
import type { Occurrence } from './occurrence.js';
import { outcomeOf, type OutcomeDetails, type PublishOutcome, type PublishOutcomeKind } from './publish-outcome.js';

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
