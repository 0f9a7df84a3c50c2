import { SeriesStore, type Series } from './series-store.js';

const WINDOW = 1_000;

function written(series: Series, publishedAt: number): void {
  const identity = { type: 'Normal', note: undefined, related: undefined, annotations: undefined };
  series.event = { name: `${series.object.uid}.abcde`, namespace: 'default', count: 1, publishedAt, ...identity };
}

/** Acquires a series and finishes its publish at `now`. */
function publish(store: SeriesStore, uid: string, now: number, failure = false): Series {
  const series = store.acquire(`${failure}/${uid}`, uid, failure, now);
  written(series, now);
  return series;
}

describe('SeriesStore', () => {
  it('returns the same series for the same key while it is current', () => {
    const store = new SeriesStore(WINDOW, 10);
    const first = publish(store, 'a', 0);
    expect(store.acquire('false/a', 'a', false, 500)).toBe(first);
  });

  it('drops series past their window when a later publish comes', () => {
    const store = new SeriesStore(WINDOW, 10);
    publish(store, 'a', 0);
    publish(store, 'b', 100);
    publish(store, 'c', 1_050);
    expect(store.size).toBe(2); // a expired at 1000; b is still current
    publish(store, 'd', 1_200);
    expect(store.size).toBe(2);
  });

  it('never drops a busy series, even when expired or over the cap', () => {
    const store = new SeriesStore(WINDOW, 1);
    const busy = store.acquire('false/a', 'a', false, 0);
    busy.busy = 1; // a write in flight
    publish(store, 'b', 5_000);
    expect(store.acquire('false/a', 'a', false, 5_001)).toBe(busy);
  });

  it('evicts the least recently used idle series past the cap', () => {
    const store = new SeriesStore(WINDOW, 2);
    const a = publish(store, 'a', 0);
    publish(store, 'b', 1);
    store.acquire('false/a', 'a', false, 2); // a is used again: b is now the oldest
    publish(store, 'c', 3);
    expect(store.size).toBe(2);
    expect(store.acquire('false/a', 'a', false, 4)).toBe(a);
    expect(store.acquire('false/b', 'b', false, 5).event).toBeUndefined();
  });

  it('forgets only the failure series of an object when asked', () => {
    const store = new SeriesStore(WINDOW, 10);
    const published = publish(store, 'a', 0, false);
    publish(store, 'a', 0, true);
    store.forget('a', true, 1);
    expect(store.size).toBe(1);
    expect(store.acquire('false/a', 'a', false, 1)).toBe(published);
    expect(store.acquire('true/a', 'a', true, 1).event).toBeUndefined();
  });

  it('forgets every series of an object', () => {
    const store = new SeriesStore(WINDOW, 10);
    publish(store, 'a', 0, false);
    publish(store, 'a', 0, true);
    publish(store, 'b', 0);
    store.forget('a', undefined, 1);
    expect(store.size).toBe(1);
  });
});
