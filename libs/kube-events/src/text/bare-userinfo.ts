/** What a removed credential is replaced with. */
const REDACTED = '[redacted]';
/** The longest user and password a bare userinfo may have, in characters. */
const MAX_USER = 128;
const MAX_PASSWORD = 256;

/** An `@` that a host follows (not an image digest's `@sha256:`): where a bare userinfo would end. */
const HOST_AT = /@(?=[\w-])(?!sha\d{3}:)/g;
/** What may come right before a bare userinfo: the start of the text, a space, a quote, `(`, `<`, `[`, `=`, `,` or `;`. */
const SEPARATOR = /[\s"'(<[=,;]/;
/** A user's characters, and a password's (which may hold `:`, `=`, `,`, `;` and, inside, `@`): read by table, as each is read often. */
const USER_CHAR = asciiTable(/[\w.%+-]/);
const PASSWORD_CHAR = asciiTable(/[^\s/"'<>]/);

/** Which ASCII characters `pattern` takes, by code; any other character is taken as the pattern says of it. */
function asciiTable(pattern: RegExp): (char: string) => boolean {
  const table = Array.from({ length: 128 }, (_, code) => pattern.test(String.fromCharCode(code)));
  return (char) => {
    const code = char.charCodeAt(0);
    return code < 128 ? table[code] : pattern.test(char);
  };
}

/**
 * `text` with the userinfo of each bare `user:password@host` (no scheme:
 * `admin:pw@registry:5000`, `u:p@db`) replaced by `[redacted]`: the
 * separator before it and the host after it are kept. Found from each
 * `@` backwards rather than tried at every separator, so that the work is
 * linear in the text's length: each `@` reads back to the previous one,
 * at most 385 characters, and a password runs on through further `@`s to
 * the last one a host follows, as written (`admin:p@ss@host`).
 */
export function redactBareUserinfo(text: string): string {
  let out = '';
  let kept = 0;
  HOST_AT.lastIndex = 0;
  for (let match = HOST_AT.exec(text); match; match = HOST_AT.exec(text)) {
    const at = match.index;
    const found = userinfoBefore(text, at, kept);
    if (!found) continue;
    const end = lastHostAt(text, at, found.colon + 1 + MAX_PASSWORD);
    out += text.slice(kept, found.start) + REDACTED;
    kept = end;
    HOST_AT.lastIndex = end + 1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** The leftmost `user:password` that ends at `at`, not before `floor`: where its user starts, and its `:`. */
function userinfoBefore(text: string, at: number, floor: number): { start: number; colon: number } | undefined {
  // The password's characters before this `@`, back to the previous one (a password holds no `@` before its first).
  let from = at;
  const lowest = Math.max(floor, at - MAX_PASSWORD - MAX_USER - 1);
  while (from > lowest && text[from - 1] !== '@' && PASSWORD_CHAR(text[from - 1])) from--;
  for (let start = from; start < at; start++) {
    const before = start === 0 ? undefined : text[start - 1];
    if (before !== undefined && !SEPARATOR.test(before)) continue;
    let colon = start;
    while (colon < at && colon - start < MAX_USER && USER_CHAR(text[colon])) colon++;
    const password = at - colon - 1;
    if (colon > start && text[colon] === ':' && password >= 1 && password <= MAX_PASSWORD) return { start, colon };
  }
  return undefined;
}

/** The last `@` a host follows, from `at` on, that the password may run on to (no further than `limit`). */
function lastHostAt(text: string, at: number, limit: number): number {
  let last = at;
  for (let i = at + 1; i < text.length && i < limit && PASSWORD_CHAR(text[i]); i++) {
    if (text[i] === '@' && /[\w-]/.test(text[i + 1] ?? '') && !/^sha\d{3}:/.test(text.slice(i + 1, i + 8))) last = i;
  }
  return last;
}
