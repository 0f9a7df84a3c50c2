import { SERIES_ENDED_ANNOTATION } from '../../kube-events.constants.js';
import { SERIES_END_NOT_RECORDED } from '../../kube-events.messages.js';
import { LibraryLogger } from '../../text/library-logger.js';
import type { EndedEvents, SeriesEvent } from '../series/index.js';

/** Sends the annotation that marks an Event's series ended; rejects as a write does. */
export type AnnotateEvent = (namespace: string, name: string, annotations: Record<string, string>) => Promise<void>;

/** An Event to mark ended, and when its series ended (wall time, as the annotation says it). */
interface EndMark {
  readonly namespace: string;
  readonly name: string;
  readonly endedAt: string;
}

/**
 * With `resumeSeries`, the annotations that mark the Events of ended series
 * (see `SERIES_ENDED_ANNOTATION`), so that no later process continues them:
 * the ones waiting to go, in the order their series ended, and how many are
 * on their way. The write coordinator says when each goes (a connection and
 * the recorder-wide budget, as for any write); this sends it, and tells
 * `EndedEvents` once the server shows the end. A mark that fails is logged:
 * the Event stays ended for this process, but another may continue it.
 */
export class SeriesEndMarks {
  private readonly waiting: EndMark[] = [];
  private onTheirWay = 0;
  private readonly logger = new LibraryLogger('EventRecorder');

  constructor(
    private readonly ended: EndedEvents,
    private readonly annotate: AnnotateEvent,
  ) {}

  /** The series of these Events ended: each waits to be marked, and no series of this process continues it. */
  add(events: readonly SeriesEvent[]): void {
    const endedAt = new Date().toISOString();
    for (const { namespace, name } of events) {
      this.ended.add(namespace, name);
      this.waiting.push({ namespace, name, endedAt });
    }
  }

  /** Whether a mark waits to go. */
  get hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  /** Whether no mark waits or is on its way: `flush()` is done with them. */
  get settled(): boolean {
    return this.waiting.length === 0 && this.onTheirWay === 0;
  }

  /** Sends the oldest waiting mark; settles once it is answered (or failed, logged), never rejects. */
  async sendNext(): Promise<void> {
    const mark = this.waiting.shift();
    if (!mark) return;
    this.onTheirWay++;
    const { namespace, name, endedAt } = mark;
    try {
      await this.annotate(namespace, name, { [SERIES_ENDED_ANNOTATION]: endedAt });
      this.ended.shown(namespace, name);
    } catch (error) {
      this.logger.warn(SERIES_END_NOT_RECORDED(namespace, name, error));
    } finally {
      this.onTheirWay--;
    }
  }

  /** The recorder shut down: what waits is not sent, and each is logged as not recorded. */
  abandon(why: Error): void {
    for (const { namespace, name } of this.waiting.splice(0))
      this.logger.warn(SERIES_END_NOT_RECORDED(namespace, name, why));
  }
}
