import { randomBytes } from 'node:crypto';

/**
 * The marks this recorder's write attempts leave on an Event
 * (`WRITES_ANNOTATION`): its own random id and the attempt's number, so
 * that a write whose answer was lost can tell, on reading the Event back,
 * whether it landed, whatever other replicas wrote since.
 */
export class WriteMarks {
  private readonly recorder = randomBytes(5).toString('hex');
  private attempts = 0;

  /** The mark of the next attempt. */
  next(): string {
    this.attempts += 1;
    return `${this.recorder}.${this.attempts}`;
  }
}
