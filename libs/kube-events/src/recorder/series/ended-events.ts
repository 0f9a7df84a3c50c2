import { InsertionOrder } from '../../values/insertion-order.js';

/** An Event whose series this process ended, by namespace and name, in the order they ended. */
interface EndedEvent {
  readonly key: string;
  previous: EndedEvent | undefined;
  next: EndedEvent | undefined;
}

/**
 * With `resumeSeries`, the Events whose series `forget` ended, until the
 * server shows the end: a new series never continues one, even while the
 * annotation that marks it is on its way or failed. Bounded, oldest
 * dropped first.
 */
export class EndedEvents {
  private readonly byKey = new Map<string, EndedEvent>();
  private readonly order = new InsertionOrder<EndedEvent>();

  constructor(private readonly capacity: number) {}

  /** The series of this Event ended here. */
  add(namespace: string, name: string): void {
    const key = endedKey(namespace, name);
    if (this.byKey.has(key)) return;
    const ended: EndedEvent = { key, previous: undefined, next: undefined };
    this.byKey.set(key, ended);
    this.order.push(ended);
    if (this.byKey.size > this.capacity) {
      const oldest = this.order.first!;
      this.order.remove(oldest);
      this.byKey.delete(oldest.key);
    }
  }

  /** The server now shows the end (its annotation says so): nothing need remember it. */
  shown(namespace: string, name: string): void {
    const key = endedKey(namespace, name);
    const ended = this.byKey.get(key);
    if (!ended) return;
    this.byKey.delete(key);
    this.order.remove(ended);
  }

  /** Whether this process ended the series of this Event. */
  has(namespace: string, name: string): boolean {
    return this.byKey.has(endedKey(namespace, name));
  }
}

function endedKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
