import { RecentResults } from '../values/recent-results.js';
import { redactCredentials } from '../text/credential-redaction.js';

/** Notes whose redaction is remembered, at most: more than the few a controller's failures say again and again. */
const REMEMBERED_NOTES = 128;

/** The longest note whose redaction is remembered, in characters: so that what is remembered stays small. */
const MAX_REMEMBERED_NOTE_CHARS = 1_024;

/**
 * {@link redactCredentials} for notes, remembering the redactions of the
 * latest notes: a controller publishes the same few notes again and again,
 * and the credential patterns cost more than the rest of a publish's
 * checks together. Bounded in notes and in their length ({@link RecentResults}).
 * Each recorder holds its own.
 */
export class RememberedRedactions {
  private readonly redacted = new RecentResults(redactCredentials, REMEMBERED_NOTES, MAX_REMEMBERED_NOTE_CHARS);

  /** A note redactor with memory of its own: a recorder's `redactNotes` unless its options give another. */
  static redactor(): (note: string) => string {
    const redactions = new RememberedRedactions();
    return (note) => redactions.redact(note);
  }

  /** `note` with its credentials removed. */
  redact(note: string): string {
    return this.redacted.of(note);
  }
}
