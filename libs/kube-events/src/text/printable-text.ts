/**
 * Control characters (C0 but for tab, DEL, C1), line and paragraph
 * separators and the marks that reorder text on screen: what a terminal
 * or a log viewer would act on rather than show.
 */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- control characters are what this finds
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with what a terminal would act on escaped as `\n`, `\r` or
 * `\u001b`, so that a note, an object's name or an error's text from
 * outside cannot start a line of its own, move the cursor or recolour a
 * log line.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
