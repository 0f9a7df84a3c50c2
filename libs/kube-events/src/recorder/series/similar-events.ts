import { hash } from 'node:crypto';
import { truncateNote } from '../../event-rules/note-truncation.js';
import { COMBINED_NOTE_PREFIX } from '../../kube-events.constants.js';
import { InsertionOrder } from '../../insertion-order.js';
import type { Occurrence } from '../publish/index.js';

/** How the notes of one object's events of one kind (failure or not, type, reason, action) changed within the window. */
interface NoteChanges {
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

/** The note changes of one object's kinds of event; objects are linked in the order of use. */
interface ObjectNoteChanges {
  readonly uid: string;
  kinds: NoteChanges | undefined;
  previous: ObjectNoteChanges | undefined;
  next: ObjectNoteChanges | undefined;
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
  /** Per object uid: its kinds of event. */
  private readonly objects = new Map<string, ObjectNoteChanges>();
  /** The same objects, least recently used first: a use moves one, and changes no map. */
  private readonly order = new InsertionOrder<ObjectNoteChanges>();

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
    const object = this.touch(uid);
    let kind = object.kinds;
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
      object.kinds = {
        failure,
        type: event.type,
        reason: event.reason,
        action: event.action,
        lastNote: noteKey(note),
        opened: 1,
        lastAt: publishedAt,
        combinedNote: undefined,
        next: object.kinds,
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
  forget(uid: string, failure: true | undefined): void {
    const object = this.objects.get(uid);
    if (!object) return;
    let head = failure ? object.kinds : undefined;
    while (head?.failure) head = head.next;
    for (let kind = head; kind; kind = kind.next) while (kind.next?.failure) kind.next = kind.next.next;
    object.kinds = head;
    if (head) return;
    this.order.remove(object);
    this.objects.delete(uid);
  }

  /** How many objects it remembers. */
  get size(): number {
    return this.objects.size;
  }

  /** The object's entry, made the most recently used; a new one forgets the least recently used past `maxObjects`. */
  private touch(uid: string): ObjectNoteChanges {
    const known = this.objects.get(uid);
    if (known) {
      this.order.moveToEnd(known);
      return known;
    }
    const object: ObjectNoteChanges = { uid, kinds: undefined, previous: undefined, next: undefined };
    this.objects.set(uid, object);
    this.order.push(object);
    if (this.objects.size > this.maxObjects) {
      const oldest = this.order.first!;
      this.order.remove(oldest);
      this.objects.delete(oldest.uid);
    }
    return object;
  }
}

/** What is kept of a note to tell whether the next one differs: a note longer than its digest is kept as the digest. */
function noteKey(note: string): string {
  return note.length > 44 ? hash('sha256', note, 'buffer').toString('base64url', 0, 16) : note;
}
