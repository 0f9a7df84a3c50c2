import { hash } from 'node:crypto';
import { truncateNote } from '../../event-rules/note-truncation.js';
import { COMBINED_NOTE_PREFIX } from '../../kube-events.constants.js';
import type { Occurrence } from '../publish/index.js';

/** How the notes of one object's events of one kind (failure or not, type, reason, action) changed within the window. */
export interface NoteChanges {
  readonly failure: boolean;
  readonly type: string;
  readonly reason: string;
  readonly action: string;
  /** The note of the latest occurrence, or its digest when longer (see {@link noteKey}). */
  lastNote: string;
  /** Notes that differed from the one before them, the first included: each opened an Event. */
  opened: number;
  /** When the latest occurrence came, on the monotonic clock. */
  lastAt: number;
  /** Once combined, the note every occurrence is written with until the window passes. */
  combinedNote: string | undefined;
  /** The object's next kind of event, if any: most objects have one. */
  next: NoteChanges | undefined;
}

/** What an object keeps of its notes, for {@link SimilarEvents}: the series index's record of the object holds it. */
export interface NoteHistory {
  /** The note changes of the object's kinds of event, most recent kind first. */
  notes: NoteChanges | undefined;
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
 * What it remembers is one entry per kind of event, on the object's record
 * in the series index ({@link NoteHistory}): one map and one order of use
 * for both, so that an object is bounded, and forgotten, with its series.
 */
export class SimilarEvents {
  constructor(
    private readonly limit: number,
    private readonly window: number,
  ) {}

  /**
   * The occurrence about `object` as it is to be counted: `undefined` when
   * it goes on as it is, else a copy whose note is its combined Event's.
   */
  combine(object: NoteHistory, occurrence: Occurrence): Occurrence | undefined {
    const { event, failure, publishedAt } = occurrence;
    const note = event.note ?? '';
    let kind = object.notes;
    while (
      kind &&
      !(
        kind.failure === failure &&
        kind.type === event.type &&
        kind.reason === event.reason &&
        kind.action === event.action
      )
    )
      kind = kind.next;
    if (!kind) {
      object.notes = {
        failure,
        type: event.type,
        reason: event.reason,
        action: event.action,
        lastNote: noteKey(note),
        opened: 1,
        lastAt: publishedAt,
        combinedNote: undefined,
        next: object.notes,
      };
      return undefined;
    }
    if (publishedAt - kind.lastAt > this.window) {
      kind.lastNote = noteKey(note);
      kind.opened = 1;
      kind.lastAt = publishedAt;
      kind.combinedNote = undefined;
      return undefined;
    }
    kind.lastAt = publishedAt;
    // Once combined, the note is not looked at (nor hashed) until the window passes.
    if (kind.combinedNote === undefined) {
      const seen = noteKey(note);
      if (seen === kind.lastNote) return undefined;
      kind.lastNote = seen;
      if (++kind.opened < this.limit) return undefined;
      kind.combinedNote = truncateNote(COMBINED_NOTE_PREFIX + note);
    }
    return { ...occurrence, event: { ...event, note: kind.combinedNote } };
  }

  /** Forgets what the object's events (all, or its failure ones) did: its next note opens an Event of its own. */
  forget(object: NoteHistory, failure: true | undefined): void {
    let head = failure ? object.notes : undefined;
    while (head?.failure) head = head.next;
    for (let kind = head; kind; kind = kind.next) while (kind.next?.failure) kind.next = kind.next.next;
    object.notes = head;
  }
}

/** What is kept of a note to tell whether the next one differs: a note longer than its digest is kept as the digest. */
function noteKey(note: string): string {
  return note.length > 44 ? hash('sha256', note, 'buffer').toString('base64url', 0, 16) : note;
}
