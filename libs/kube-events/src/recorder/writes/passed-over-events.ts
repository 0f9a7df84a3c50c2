import { LibraryLogger } from '../../text/library-logger.js';
import { EVENT_PASSED_OVER } from '../../kube-events.messages.js';
import type { Series } from '../series/index.js';
import type { NotOwnBecause } from './series-ownership.js';

/**
 * Says, once for each series, that it passed over an Event it may not
 * continue: one line however often it meets one again, so that someone
 * creating Events under a series' names cannot flood the log. The line
 * names only what the recorder chose (namespace, names) and a fixed
 * reason, never what the Event says.
 */
export class PassedOverEvents {
  /** The series already said: weak, so that it holds none past its life. */
  private readonly said_ = new WeakSet<Series>();
  private readonly logger = new LibraryLogger('EventRecorder');

  /** `series` left the Event `namespace/name` as it is (`why`), and writes under `next` instead. */
  said(series: Series, namespace: string, name: string, why: NotOwnBecause, next: string): void {
    if (this.said_.has(series)) return;
    this.said_.add(series);
    this.logger.warn(EVENT_PASSED_OVER(namespace, name, why, next));
  }
}
