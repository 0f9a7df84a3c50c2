import { MAX_NOTE_BYTES } from '../kube-events.constants.js';
import { redactionWindow } from '../text/credential-redaction.js';

const ELLIPSIS = '...';
const encoder = new TextEncoder();

/**
 * Cuts a note longer than {@link MAX_NOTE_BYTES} UTF-8 bytes to at most
 * `MAX_NOTE_BYTES - 3` bytes on a code point boundary and appends `...`;
 * a note within the limit is returned unchanged.
 */
export function truncateNote(note: string): string {
  return truncateText(note, MAX_NOTE_BYTES);
}

/**
 * Cuts `text` as {@link truncateNote} cuts a note, to at most `maxBytes`
 * UTF-8 bytes, `...` included; text within the limit is returned unchanged.
 */
export function truncateText(text: string, maxBytes: number): string {
  // A UTF-16 code unit encodes to at most 3 bytes, so short text skips encoding.
  if (text.length * 3 <= maxBytes) return text;
  return cutText(text, maxBytes, false);
}

/** Of a longer note only the start is redacted, the rest being cut anyway: 8 times what survives the cut, room for a credential that starts in it. */
const REDACTED_NOTE_CHARS = 8 * MAX_NOTE_BYTES;

/**
 * A note as it is written and shown: `redact` applied, then cut as
 * {@link truncateNote} cuts. Of a note longer than 8 KiB characters only
 * the start goes through `redact`, so that a huge note costs no more than
 * what can survive the cut; that start ends before the word the 8 KiB
 * went through, whose rest may be too short to be recognised as a
 * credential. Such a note always ends in `...`, even when redaction left
 * its start within the limit. What `redact` returns that is not a string
 * is returned as it is, for the caller to refuse.
 */
export function redactedNote(note: string, redact: (note: string) => string): unknown {
  const long = note.length > REDACTED_NOTE_CHARS;
  const redacted: unknown = redact(long ? redactionWindow(note, REDACTED_NOTE_CHARS) : note);
  if (typeof redacted !== 'string') return redacted;
  return long ? cutText(redacted, MAX_NOTE_BYTES, true) : truncateNote(redacted);
}

/** `text` within `maxBytes` UTF-8 bytes, `...` included, cut on a code point boundary; `always` marks it cut even when it fits. */
function cutText(text: string, maxBytes: number, always: boolean): string {
  // Only the first maxBytes code units can end up in the result: a huge text is not encoded whole.
  const bytes = encoder.encode(text.length > maxBytes + 1 ? text.slice(0, maxBytes + 1) : text);
  if (bytes.length <= maxBytes && !always) return text;
  let end = Math.min(bytes.length, maxBytes - ELLIPSIS.length);
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end < bytes.length && end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + ELLIPSIS;
}
