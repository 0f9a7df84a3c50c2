import { InsertionOrder } from '../../values/insertion-order.js';
import type { KeptObjects, TrackedObject } from '../series/index.js';

/**
 * Objects whose series were all forgotten or dropped before their write
 * budget refilled: a flapping object (failure, success, failure…) keeps its
 * spent budget rather than get a full one back. Bounded, oldest given up
 * first; a refilled budget is not kept.
 */
export class SpentBudgets implements KeptObjects {
  private readonly order = new InsertionOrder<TrackedObject>();
  private kept = 0;

  constructor(private readonly capacity: number) {}

  /**
   * Keeps an object left without series, if its budget is spent. Returns
   * the objects to forget: itself when its budget is full (or it has none),
   * else the oldest one kept when there are too many.
   */
  keep(object: TrackedObject, now: number): TrackedObject | undefined {
    if (!object.budget || object.budget.isFull(now)) return object;
    this.order.push(object);
    if (++this.kept <= this.capacity) return undefined;
    const oldest = this.order.first!;
    this.take(oldest);
    return oldest;
  }

  /** Takes an object back for a new series; false when it is not kept (it is gone). */
  take(object: TrackedObject): boolean {
    if (!this.order.has(object)) return false;
    this.order.remove(object);
    this.kept--;
    return true;
  }
}
