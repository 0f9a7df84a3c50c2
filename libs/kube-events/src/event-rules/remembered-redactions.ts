import { redactCredentials } from './credential-redaction.js';

/** Notes whose redaction is remembered, at most: more than the few a controller's failures say again and again. */
const REMEMBERED_NOTES = 128;

/** The longest note whose redaction is remembered, in characters: so that what is remembered stays small. */
const MAX_REMEMBERED_NOTE_CHARS = 1_024;

/**
 * {@link redactCredentials} for notes, remembering the redactions of the
 * latest notes: a controller publishes the same few notes again and again,
 * and the credential patterns cost more than the rest of a publish's
 * checks together. Bounded in notes and in their length, so that notes made
 * up anew for each publish cost a lookup, not memory; when full it starts
 * afresh. Each recorder holds its own.
 */
export class RememberedRedactions {
  private readonly redacted = new Map<string, string>();

  /** `note` with its credentials removed. */
  redact(note: string): string {
    if (note.length > MAX_REMEMBERED_NOTE_CHARS) return redactCredentials(note);
    const remembered = this.redacted.get(note);
    if (remembered !== undefined) return remembered;
    const redacted = redactCredentials(note);
    if (this.redacted.size >= REMEMBERED_NOTES) this.redacted.clear();
    this.redacted.set(note, redacted);
    return redacted;
  }
}
