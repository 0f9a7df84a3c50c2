import { CREDENTIAL_HEADER_INVALID, CREDENTIAL_HEADERS_TOO_LARGE } from '../kube-events.messages.js';
import { PublishCredentialError } from '../errors.js';

/**
 * kube-apiserver's limit on a request's headers, in bytes: Go's
 * `http.Server` `MaxHeaderBytes`, which the API server sets to 1 MiB and
 * answers `431` beyond. A credential that passes it is never accepted.
 */
export const MAX_REQUEST_HEADER_BYTES = 1 << 20;

/** What HTTP allows in a header's value (RFC 9110 field-value, as undici and Node check it): tab, visible ASCII, obs-text. */
const INVALID_HEADER_CHARACTER = /[^\t\x20-\x7e\x80-\xff]/;

/** What HTTP allows as a header's name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The most of a header's name that a message shows. */
const MAX_NAME_CHARS = 64;

/** The scheme of a bearer token, which a token's surrounding white space follows. */
const BEARER = /^bearer /i;

/**
 * The headers authentication made, ready to send: a bearer token without
 * the white space around it, as client-go trims a token file (client-node
 * reads a kubeconfig's `token-file` as it is, newline and all, into the
 * user's token), and never part of a token (a server strips it from a
 * header's value, but for the line breaks that make the header invalid).
 * Throws a `PublishCredentialError` when they cannot go in a request: see
 * {@link assertSendableHeaders}.
 */
export function sendableHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'authorization' || typeof value !== 'string' || !BEARER.test(value)) continue;
    const token = trimSpace(value.slice(7));
    if (token.length !== value.length - 7) headers[name] = `${value.slice(0, 7)}${token}`;
  }
  assertSendableHeaders(headers);
  return headers;
}

/**
 * Throws a `PublishCredentialError` when the headers authentication made
 * cannot go in a request: a name or a value with a character HTTP does not
 * allow (a line break in a token, say), or more of them than the API server
 * reads.
 * Checked before any request, so that a credential built wrong on this
 * side is said to be one, rather than the request failing as if the
 * server could not be reached. The message names the header, never its
 * value.
 */
function assertSendableHeaders(headers: Readonly<Record<string, unknown>>): void {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    if (!HEADER_NAME.test(name) || INVALID_HEADER_CHARACTER.test(value))
      throw new PublishCredentialError(CREDENTIAL_HEADER_INVALID(name.slice(0, MAX_NAME_CHARS)));
    bytes += name.length + value.length + 4;
  }
  if (bytes > MAX_REQUEST_HEADER_BYTES)
    throw new PublishCredentialError(CREDENTIAL_HEADERS_TOO_LARGE(bytes, MAX_REQUEST_HEADER_BYTES));
}

/** Go's `unicode.IsSpace`, which `strings.TrimSpace` trims. */
function isGoSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** `text` without the white space around it, as Go's `strings.TrimSpace` (a loop: linear whatever the text). */
export function trimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isGoSpace(text.charCodeAt(start))) start++;
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}
