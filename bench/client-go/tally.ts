// How the Events on the server compare with the occurrences a client was
// asked to publish: an object's count is the sum of `series.count` (1 without
// a series) over every Event about it, so duplicates show as over-counts.
import type { ServerEvent } from './api-server.js';

export interface Tally {
  /** Event objects on the server. */
  events: number;
  /** Sum of the counts over every Event. */
  counted: number;
  expected: number;
  /** Occurrences short of what each object should show. */
  missing: number;
  /** Occurrences beyond it. */
  over: number;
  /** Objects with no Event at all. */
  objectsWithout: number;
  exact: boolean;
}

export function tally(events: ServerEvent[], expectedPerObject: Map<string, number>): Tally {
  const counts = new Map<string, number>();
  for (const event of events) {
    const name = event.regarding?.name ?? '';
    counts.set(name, (counts.get(name) ?? 0) + (event.series?.count ?? 1));
  }
  let expected = 0;
  let missing = 0;
  let over = 0;
  let objectsWithout = 0;
  for (const [name, want] of expectedPerObject) {
    const got = counts.get(name) ?? 0;
    expected += want;
    missing += Math.max(0, want - got);
    over += Math.max(0, got - want);
    if (!got) objectsWithout++;
  }
  for (const [name, got] of counts) if (!expectedPerObject.has(name)) over += got;
  const counted = [...counts.values()].reduce((sum, count) => sum + count, 0);
  return {
    events: events.length,
    counted,
    expected,
    missing,
    over,
    objectsWithout,
    exact: missing === 0 && over === 0,
  };
}
