import type { KubeEvent } from '../../kube-events.interfaces.js';
import type { Occurrence } from '../publish/index.js';
import { SeriesIndex } from './series-index.js';
import { type NoteHistory, SimilarEvents } from './similar-events.js';

const WINDOW = 600_000;

function occurrence(
  note: string,
  at: number,
  overrides: Partial<KubeEvent> & { uid?: string; failure?: boolean } = {},
) {
  const { uid = 'uid-1', failure = true, ...event } = overrides;
  return {
    resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'ns', uid } },
    event: { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note, ...event },
    failure,
    publishedAt: at,
  } as Occurrence;
}

/** Combines similar events with `limit`, each object's notes kept by uid, as the series index keeps them. */
function similarEvents(limit: number) {
  const similar = new SimilarEvents(limit, WINDOW);
  const objects = new Map<string, NoteHistory>();
  const of = (uid: string) => objects.get(uid) ?? objects.set(uid, { notes: undefined }).get(uid)!;
  return {
    combine: (occurrence: Occurrence) => similar.combine(of(occurrence.resource.metadata!.uid!), occurrence),
    forget: (uid: string, failure: true | undefined) => similar.forget(of(uid), failure),
  };
}

/** The notes the occurrences are written with. */
function written(similar: ReturnType<typeof similarEvents>, occurrences: Occurrence[]): string[] {
  return occurrences.map((each) => (similar.combine(each) ?? each).event.note!);
}

describe('SimilarEvents', () => {
  it('tells long notes apart by all of their text, and a repeat of one from another', () => {
    const similar = similarEvents(2);
    const prefix = 'x'.repeat(1_000);
    const notes = written(similar, [
      occurrence(`${prefix} a`, 0),
      occurrence(`${prefix} a`, 1),
      occurrence(`${prefix} b`, 2),
    ]);

    // Two repeats of the first note, then a second note: with a limit of 2, that one is combined.
    expect(notes.slice(0, 2)).toEqual([`${prefix} a`, `${prefix} a`]);
    expect(notes[2]).toMatch(/^\(combined from similar events\): x+/);
  });

  it('lets limit - 1 different notes through, then counts every later occurrence on one combined Event', () => {
    const similar = similarEvents(10);
    const notes = written(
      similar,
      Array.from({ length: 40 }, (_, n) => occurrence(`waiting for pod web-0 (attempt ${n})`, n * 100)),
    );

    expect(notes.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, n) => `waiting for pod web-0 (attempt ${n})`));
    expect(new Set(notes.slice(9))).toEqual(
      new Set(['(combined from similar events): waiting for pod web-0 (attempt 9)']),
    );
    expect(new Set(notes).size).toBe(10);
  });

  it('never combines repeats of one note, nor a note that changes less often than the limit', () => {
    const similar = similarEvents(3);
    const notes = ['a', 'a', 'a', 'b', 'b', 'b', 'b'].map((note, n) => occurrence(note, n));

    expect(written(similar, notes)).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'b']);
  });

  it('counts two notes that alternate, each of which would open an Event', () => {
    const similar = similarEvents(4);
    const notes = ['a', 'b', 'a', 'b', 'a', 'b'].map((note, n) => occurrence(note, n));

    expect(written(similar, notes)).toEqual([
      'a',
      'b',
      'a',
      '(combined from similar events): b',
      '(combined from similar events): b',
      '(combined from similar events): b',
    ]);
  });

  it('tells notes apart by their text alone: trace context and annotations never make a note different', () => {
    const similar = similarEvents(2);
    const traced = (at: number, spanId: string) =>
      ({
        ...occurrence('same note', at, { annotations: { 'example.com/attempt': String(at) } }),
        trace: { traceparent: `00-0af7651916cd43dd8448eb211c80319c-${spanId}-01` },
      }) as unknown as Occurrence;

    expect(written(similar, [traced(0, 'b7ad6b7169203331'), traced(1, '00f067aa0ba902b7')])).toEqual([
      'same note',
      'same note',
    ]);
  });

  it('keeps objects, reasons, actions, types and failure series apart', () => {
    const similar = similarEvents(2);
    const first = written(similar, [occurrence('a', 0), occurrence('b', 1)]);
    const others = written(similar, [
      occurrence('c', 2, { uid: 'uid-2' }),
      occurrence('d', 3, { reason: 'SyncFailed' }),
      occurrence('e', 4, { action: 'Sync' }),
      occurrence('f', 5, { type: 'Normal' }),
      occurrence('g', 6, { failure: false }),
    ]);

    expect(first).toEqual(['a', '(combined from similar events): b']);
    expect(others).toEqual(['c', 'd', 'e', 'f', 'g']);
  });

  it('starts over once the window passes without an occurrence', () => {
    const similar = similarEvents(2);
    const notes = written(similar, [
      occurrence('a', 0),
      occurrence('b', 1),
      occurrence('c', WINDOW),
      occurrence('d', 2 * WINDOW + 2),
    ]);

    expect(notes).toEqual(['a', '(combined from similar events): b', '(combined from similar events): b', 'd']);
  });

  it('starts over for the failures of an object that reconciled, and for every series of one forgotten', () => {
    const similar = similarEvents(2);
    written(similar, [
      occurrence('a', 0),
      occurrence('b', 1),
      occurrence('p', 2, { failure: false }),
      occurrence('q', 3, { failure: false }),
    ]);

    similar.forget('uid-1', true);
    expect(written(similar, [occurrence('c', 4), occurrence('r', 5, { failure: false })])).toEqual([
      'c',
      '(combined from similar events): q',
    ]);
    similar.forget('uid-1', undefined);
    expect(written(similar, [occurrence('s', 6, { failure: false })])).toEqual(['s']);
  });

  it('cuts a combined note to the limit of a note', () => {
    const similar = similarEvents(2);
    const long = 'x'.repeat(1024);
    const [, combined] = written(similar, [occurrence('a', 0), occurrence(long, 1)]);

    expect(Buffer.byteLength(combined)).toBe(1024);
    expect(combined).toMatch(/^\(combined from similar events\): x+\.\.\.$/);
  });

  it('leaves objects without a uid alone, and forgets an object’s notes with its series', () => {
    const index = new SeriesIndex({
      window: WINDOW,
      maxSeries: 1,
      resume: false,
      similar: new SimilarEvents(2, WINDOW),
      // Its objects write nothing, so none has a spent budget to keep.
      kept: { keep: (object) => object, take: () => false },
    });
    const counted = (note: string, at: number, uid?: string) => index.count(occurrence(note, at, { uid }));

    expect([counted('a', 0, ''), counted('b', 1, '')].map((each) => each.combined)).toEqual([false, false]);
    // With room for one series, another object's takes the place of uid-1's: its notes go with it.
    counted('a', 2);
    counted('x', 3, 'uid-2');
    expect(counted('b', 4).combined).toBe(false);
    // Kept, the same two notes combine.
    expect(counted('c', 5).combined).toBe(true);
  });
});
