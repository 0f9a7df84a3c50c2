import { truncateNote } from '../api/note-truncation.js';
import { COMBINED_NOTE_PREFIX } from '../kube-events.constants.js';
import type { Occurrence } from './occurrence.js';

/** One object's similar events of one kind: what their notes did within the window. */
interface Similar {
  /** The note of the latest occurrence. */
  lastNote: string;
  /** Notes that differed from the one before them, the first included: each opened an Event. */
  opened: number;
  /** When the latest occurrence came, on the monotonic clock. */
  lastAt: number;
  /** Once combined, the note every occurrence is written with until the window passes. */
  combinedNote?: string;
}

/**
 * Combines similar events, as client-go's `EventAggregator` does: events
 * about one object with the same failure flag, type, reason and action whose
 * notes keep changing. A note that differs from the one before it opens a
 * new Event; once `limit - 1` have, the next different note opens a combined
 * Event, `(combined from similar events): <its note>`, and every occurrence
 * after it (whatever its note) is counted on that Event's series, until
 * `window` passes without an occurrence or the object's series are
 * forgotten. So such an object gets at most `limit` Events per window.
 *
 * The note of an events.k8s.io Event cannot change once created, so the
 * combined Event keeps the note of the occurrence that opened it; the notes
 * of the occurrences it counts are on `outcomes$` (kind `combined`).
 * Counting changes rather than distinct notes also bounds two notes that
 * alternate, each of which would open a new Event.
 *
 * What it remembers is one entry per object and kind of event, the least
 * recently used objects forgotten past `maxObjects`.
 */
export class SimilarEvents {
  /** Per object uid, oldest first; the inner map is keyed by failure flag, type, reason and action. */
  private readonly objects = new Map<string, Map<string, Similar>>();

  constructor(
    private readonly limit: number,
    private readonly window: number,
    private readonly maxObjects: number,
  ) {}

  /**
   * The occurrence as it is to be counted: `undefined` when it goes on as it
   * is, else a copy whose note is its combined Event's.
   */
  combine(occurrence: Occurrence): Occurrence | undefined {
    const uid = occurrence.resource.metadata?.uid;
    if (!uid) return undefined;
    const { event, failure, publishedAt } = occurrence;
    const note = event.note ?? '';
    const kinds = this.touch(uid);
    const key = JSON.stringify([failure, event.type, event.reason, event.action]);
    const similar = kinds.get(key);
    if (!similar || publishedAt - similar.lastAt > this.window) {
      kinds.set(key, { lastNote: note, opened: 1, lastAt: publishedAt });
      return undefined;
    }
    similar.lastAt = publishedAt;
    if (similar.combinedNote === undefined) {
      if (note === similar.lastNote) return undefined;
      similar.lastNote = note;
      if (++similar.opened < this.limit) return undefined;
      similar.combinedNote = truncateNote(COMBINED_NOTE_PREFIX + note);
    }
    return { ...occurrence, event: { ...event, note: similar.combinedNote } };
  }

  /** Forgets what the object's events (all, or its failure ones) did: its next note opens an Event of its own. */
  forget(uid: string, failure: true | undefined): void {
    if (!failure) {
      this.objects.delete(uid);
      return;
    }
    const kinds = this.objects.get(uid);
    if (!kinds) return;
    for (const key of kinds.keys()) if (key.startsWith('[true,')) kinds.delete(key);
    if (!kinds.size) this.objects.delete(uid);
  }

  /** How many objects it remembers. */
  get size(): number {
    return this.objects.size;
  }

  /** The object's entries, made the most recently used. */
  private touch(uid: string): Map<string, Similar> {
    let kinds = this.objects.get(uid);
    if (kinds) this.objects.delete(uid);
    else kinds = new Map();
    this.objects.set(uid, kinds);
    if (this.objects.size > this.maxObjects) this.objects.delete(this.objects.keys().next().value!);
    return kinds;
  }
}
