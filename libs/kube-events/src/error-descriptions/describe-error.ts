import { STATUS_CODES } from 'node:http';
import { truncateText } from '../event-rules/note-truncation.js';
import { redactCredentials, redactionWindow } from '../text/credential-redaction.js';
import { httpRefusalIn, httpRefusalOf, type HttpRefusal } from './api-status.js';
import { describeFields, scalarText } from './describe-fields.js';
import { grpcDescription } from './grpc-status.js';
import { withoutPerRequestDetail } from './per-request-detail.js';
import { validationIssues } from './validation-issues.js';
import { readField } from './read-field.js';
import { MAX_BYTES_TOO_SMALL } from '../kube-events.messages.js';

/** How long a description is by default, in UTF-8 bytes: two or three lines of `kubectl describe`. */
const DEFAULT_MAX_BYTES = 300;
/** The shortest `maxBytes` accepted: room for a word and the `...` of a cut. */
const MIN_MAX_BYTES = 16;
/** How deep `cause` chains and `errors` lists are followed. */
const MAX_DEPTH = 5;
/** How many of an `AggregateError`'s errors are described; the rest are counted. */
const MAX_LISTED_ERRORS = 3;
/** What is read of one message: enough for any description, and bounded work for a huge one. */
const MAX_MESSAGE_CHARS = 4096;

// eslint-disable-next-line no-control-regex -- colours and terminal commands are what this removes
const ANSI_ESCAPE = /(?:\u001b\[|\u009b)[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]/g;
/** A stack frame line (`at fn (file.js:1:2)`, `at file.js:1:2`), which some libraries append to messages. */
const STACK_FRAME = /^at\s.*:\d+:\d+\)?$/;
/** Control characters other than line breaks (C0, DEL, C1) and the marks that reorder text on screen, which a note cannot show. */
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROLS = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** How {@link describeError} describes. */
export interface DescribeErrorOptions {
  /**
   * The longest description, in UTF-8 bytes; a longer one is cut on a
   * character boundary and ends with `...`. At least 16.
   * @default 300
   */
  maxBytes?: number;
}

/**
 * A stable, one-line description of anything thrown, for a person to read:
 * the default note of `@PublishesFailures`, and the text to put in your own
 * `publish()` notes or log lines. It never throws, whatever it is given
 * (getters that throw, revoked Proxies, circular causes), and never reads
 * response headers, so that the same failure always reads the same and its
 * Events fold into one series.
 *
 * | thrown | description |
 * |---|---|
 * | client-node `ApiException` (or any error with an HTTP status and a Kubernetes `Status` body, as text or object; undici's `ResponseError`; `AxiosError`) | `<reason>: <message>` of the Status: `NotFound: configmaps "source-missing" not found` |
 * | the same with a body that is not a Status, or none (got's `HTTPError`; an AWS SDK error it could not read, `UnknownError`, or parse, `XML parse error`) | the status: `HTTP 502 Bad Gateway`, with the service's own words, its error code and message: `HTTP 403 Forbidden: access_denied: The token was revoked` |
 * | a service SDK's error (Elasticsearch, OpenAI, Stripe, Azure) | the status and the service's code and message: `HTTP 404 Not Found: index_not_found_exception: no such index [widgets]`, `HTTP 429 Too Many Requests: insufficient_quota: You exceeded your current quota…` |
 * | a schema validator's error (zod's `ZodError`) | each issue's path and message: `name: Required; spec.replicas: Expected number, received string` |
 * | a grpc-js `ServiceError` | its status and its details' words, without timings or addresses: `DEADLINE_EXCEEDED: Deadline exceeded` |
 * | an error with a `cause` | its message, then its causes': `fetch failed: connect ECONNREFUSED 127.0.0.1:6443` |
 * | `AggregateError` | its message, then up to 3 of its errors, `; `-separated, and how many more |
 * | an abort or a timeout (`AbortError`, `TimeoutError`) | its message, with its cause's when that says more |
 * | a message of several lines | its lines joined with spaces; stack frames, colours, control characters and the request's id and time (Azure's `RequestId:…`, `Time:…`) left out |
 * | an error with an empty message | its `code` (`ECONNREFUSED`), else its name |
 * | a string, a number | itself, on one line |
 * | another object | its `message`, or its fields by their shape: `{ phase: 'Pending', retries: 3 }`, headers, `config`, `request` and `options` left out, a credential's value `[redacted]` |
 * | `undefined`, `null` | `undefined was thrown`, `null was thrown` |
 *
 * A cause whose text is already in its error's message is not repeated.
 * Credentials are removed ({@link redactCredentials}) from the whole
 * description before it is cut, so that no part of one survives the cut;
 * client-node's `ApiException` text copied into another message
 * (``new Error(`could not sync: ${err.message}`)``) is read as the refusal
 * it describes: the text before it and the server's `Status`, never the
 * response headers.
 *
 * @throws RangeError when `options.maxBytes` is not an integer of at least 16
 * @example
 * } catch (error) {
 *   await this.recorder.publish(widget, { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: describeError(error) });
 * }
 */
export function describeError(error: unknown, options: DescribeErrorOptions = {}): string {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < MIN_MAX_BYTES) {
    throw new RangeError(MAX_BYTES_TOO_SMALL(MIN_MAX_BYTES, maxBytes));
  }
  let text: string;
  try {
    text = describeThrown(error);
  } catch {
    text = 'an error was thrown that could not be read';
  }
  return truncateText(redactCredentials(text), maxBytes);
}

function describeThrown(error: unknown): string {
  if (error === undefined || error === null) return `${String(error)} was thrown`;
  return describe(error, 0, new Set()) || (typeof error === 'string' ? 'an empty string was thrown' : 'Error');
}

/** One value's description, '' when it has nothing to say (or was seen already, in a circular chain). */
function describe(value: unknown, depth: number, seen: Set<unknown>): string {
  if (depth > MAX_DEPTH) return '';
  if (typeof value === 'string') {
    const refusal = httpRefusalIn(value);
    return refusal ? describeRefusal(refusal) : oneLine(value);
  }
  if (typeof value === 'function') return 'a function was thrown';
  const scalar = scalarText(value);
  if (scalar !== undefined) return scalar;
  if (value === null || typeof value !== 'object') return 'null';
  if (seen.has(value)) return '';
  seen.add(value);
  const grpc = grpcDescription(value);
  if (grpc) return oneLine(grpc);
  const refusal = httpRefusalOf(value);
  if (refusal) return describeRefusal(refusal);
  const issues = validationIssues(value);
  if (issues) return oneLine(issues);
  const message = readField(value, 'message');
  let text = typeof message === 'string' ? oneLine(message) : '';
  text = joined(text, describeErrors(readField(value, 'errors'), depth, seen));
  const cause = readField(value, 'cause');
  if (cause !== undefined) text = joined(text, describe(cause, depth + 1, seen));
  return text || fallback(value, message);
}

/** `<reason>: <message>` of a Status, the HTTP status for any other body; after the text a copied message had before it. */
function describeRefusal(refusal: HttpRefusal): string {
  const before = refusal.before ? oneLine(refusal.before).replace(/[\s:;,([-]+$/, '') : '';
  return joined(before, describeStatus(refusal));
}

function describeStatus({ code, status, said }: HttpRefusal): string {
  const reason = status?.reason ? oneLine(status.reason) : '';
  const message = status?.message ? oneLine(status.message) : '';
  if (reason && message && !message.startsWith(reason)) return `${reason}: ${message}`;
  if (message || reason) return message || reason;
  const text = STATUS_CODES[code];
  const line = text ? `HTTP ${code} ${text}` : `HTTP ${code}`;
  return said ? `${line}: ${oneLine(said)}` : line;
}

/** An `AggregateError`'s errors, each once, the first few by name and the others counted. */
function describeErrors(errors: unknown, depth: number, seen: Set<unknown>): string {
  let list: unknown[];
  try {
    if (!Array.isArray(errors) || !errors.length) return '';
    list = errors.slice(0, 100);
  } catch {
    return '';
  }
  const texts = [...new Set(list.map((item) => describe(item, depth + 1, seen)).filter(Boolean))];
  const shown = texts.slice(0, MAX_LISTED_ERRORS).join('; ');
  const more = texts.length - MAX_LISTED_ERRORS;
  return more > 0 ? `${shown} (and ${more} more)` : shown;
}

/** `outer: inner`, unless one already says what the other does. */
function joined(outer: string, inner: string): string {
  if (!inner || outer.includes(inner)) return outer;
  if (!outer || inner.includes(outer)) return inner;
  return `${outer}: ${inner}`;
}

/** What to say of an object with no message: its code, its name, or (not an Error) what it holds. */
function fallback(value: object, message: unknown): string {
  const code = readField(value, 'code');
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  const name = readField(value, 'name');
  if (typeof name === 'string' && name && name !== 'Error') return oneLine(name);
  if (message !== undefined || isError(value)) return 'Error';
  return oneLine(describeFields(value));
}

function isError(value: object): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/**
 * The text on one line: lines trimmed and joined by a space, without stack
 * frames, colours, control characters or the id and time of the request
 * it reports on. Of a long text only the start is read, without the word
 * the cut went through, so that what is left of a credential there is not
 * too short to be recognised.
 */
function oneLine(text: string): string {
  return withoutPerRequestDetail(redactionWindow(text, MAX_MESSAGE_CHARS))
    .replace(ANSI_ESCAPE, '')
    .replace(CONTROLS, ' ')
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map((line) => line.trim())
    .filter((line) => line && !STACK_FRAME.test(line))
    .join(' ')
    .replace(/\s+/g, ' ');
}
