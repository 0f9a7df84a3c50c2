import { MAX_NOTE_BYTES } from '../kube-events.constants.js';

const ELLIPSIS = '...';
const encoder = new TextEncoder();

/**
 * Cuts a note longer than {@link MAX_NOTE_BYTES} UTF-8 bytes to at most
 * `MAX_NOTE_BYTES - 3` bytes on a code point boundary and appends `...`;
 * a note within the limit is returned unchanged.
 */
export function truncateNote(note: string): string {
  // A UTF-16 code unit encodes to at most 3 bytes, so short notes skip encoding.
  if (note.length * 3 <= MAX_NOTE_BYTES) return note;
  const bytes = encoder.encode(note);
  if (bytes.length <= MAX_NOTE_BYTES) return note;
  let end = MAX_NOTE_BYTES - ELLIPSIS.length;
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + ELLIPSIS;
}
