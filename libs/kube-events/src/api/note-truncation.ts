import { MAX_NOTE_BYTES } from '../kube-events.constants.js';

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
  // Only the first maxBytes code units can end up in the result: a huge text is not encoded whole.
  const bytes = encoder.encode(text.length > maxBytes + 1 ? text.slice(0, maxBytes + 1) : text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes - ELLIPSIS.length;
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + ELLIPSIS;
}
