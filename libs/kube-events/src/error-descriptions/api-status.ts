import { readField } from './read-field.js';

/** Bodies longer than this are not parsed: a Kubernetes Status is a few hundred bytes. */
const MAX_BODY_CHARS = 64 * 1024;

/**
 * The message of client-node's `ApiException`: the status, a generic text,
 * the body as JSON and the headers, on four lines. Matched also where it
 * was copied into another error's message, or cut after any of its lines.
 */
const API_EXCEPTION_MESSAGE = /HTTP-Code: (\d{3})(?:\r?\nMessage: [^\n]*(?:\nBody: ([^\n]*))?)?/;

/** The server's explanation in a Kubernetes `Status` body. */
export interface ApiStatus {
  readonly reason?: string;
  readonly message?: string;
}

/** An HTTP refusal read from what an error carries: its status code and, when the body was a `Status`, that. */
export interface HttpRefusal {
  readonly code: number;
  readonly status?: ApiStatus;
  /** What a message said before the `ApiException` text copied into it (`could not mirror the source: `). */
  readonly before?: string;
  /** What the service said in its own words, when it is no `Status`: its error code and message. */
  readonly said?: string;
}

/**
 * The HTTP refusal `error` stands for, when it is one: client-node's
 * `ApiException` (numeric `code`, `body` as JSON text, `headers`), undici's
 * `ResponseError` (`statusCode`, `body`, `headers`), an `AxiosError`
 * (`status`, `response.data`), a service SDK's error (Elasticsearch's
 * `meta.body`, Stripe's `raw`, OpenAI's `error`, Azure's `code` and
 * `response`), a `Status` object thrown as it is, or a message in
 * `ApiException`'s format. Errors with a status code but no
 * response (a framework's own exception classes) are not: their message
 * is what they have to say.
 */
export function httpRefusalOf(error: object): HttpRefusal | undefined {
  const code = statusCodeOf(error);
  if (code !== undefined && isStatus(error)) return { code, status: statusFields(error) };
  const body = bodyOf(error);
  const message = readField(error, 'message');
  if (code !== undefined && (body !== undefined || hasHeaders(error) || isUnreadAws(error, message))) {
    const status = statusOf(body);
    if (status) return { code, status };
    const said = serviceWords(body) ?? serviceWords(readField(error, 'error')) ?? ownServiceCode(error, message);
    return said ? { code, said } : { code };
  }
  const copied = typeof message === 'string' ? httpRefusalIn(message) : undefined;
  return copied && code !== undefined ? { ...copied, code } : copied;
}

/**
 * The refusal a text holding `ApiException`'s message describes (a message
 * copied into another, or thrown as a string), with the text before it;
 * what follows it (the response headers) is left out.
 */
export function httpRefusalIn(text: string): HttpRefusal | undefined {
  const copied = API_EXCEPTION_MESSAGE.exec(text.slice(0, MAX_BODY_CHARS));
  if (!copied) return undefined;
  const status = copied[2] === undefined ? undefined : statusOf(parseJson(copied[2]));
  const before = text.slice(0, copied.index).trim();
  return { code: Number(copied[1]), status, ...(before && { before }) };
}

/** The first HTTP status code among the fields clients put it in. */
function statusCodeOf(error: object): number | undefined {
  const response = readField(error, 'response');
  for (const candidate of [
    readField(error, 'code'),
    readField(error, 'statusCode'),
    readField(error, 'status'),
    readField(response, 'status'),
    readField(response, 'statusCode'),
    // The AWS SDK v3 keeps it in its metadata, and in the raw answer it could not read.
    readField(readField(error, '$metadata'), 'httpStatusCode'),
    readField(readField(error, '$response'), 'statusCode'),
  ]) {
    if (typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 100 && candidate <= 599) {
      return candidate;
    }
  }
  return undefined;
}

/** The answer's body, where clients keep it: `body`, `response.data`, `response.body`, Elasticsearch's `meta.body`, Stripe's `raw`. */
function bodyOf(error: object): unknown {
  const response = readField(error, 'response');
  for (const candidate of [
    readField(error, 'body'),
    readField(response, 'data'),
    readField(response, 'body'),
    readField(readField(error, 'meta'), 'body'),
    readField(error, 'raw'),
  ]) {
    if (candidate !== undefined && candidate !== null && candidate !== '') return candidate;
  }
  return undefined;
}

/** The `Status` in a body given as an object, as JSON text or as bytes; `undefined` for any other body. */
function statusOf(body: unknown): ApiStatus | undefined {
  try {
    if (ArrayBuffer.isView(body)) {
      const length = Math.min(body.byteLength, MAX_BODY_CHARS);
      body = new TextDecoder().decode(new Uint8Array(body.buffer, body.byteOffset, length));
    }
  } catch {
    return undefined;
  }
  if (typeof body === 'string') body = parseJson(body);
  return isStatus(body) ? statusFields(body) : undefined;
}

/** Whether the error carries the answer's headers (on itself, its `response` or Elasticsearch's `meta`): it is an answer's. */
function hasHeaders(error: object): boolean {
  return [error, readField(error, 'response'), readField(error, 'meta')].some(
    (holder) => readField(holder, 'headers') !== undefined,
  );
}

/**
 * An AWS SDK v3 error that says nothing of the service's: the SDK could
 * not read the answer (a bodyless HEAD 403, a proxy's HTML page) and calls
 * it `UnknownError`, or failed to parse it (`XML parse error: mismatched
 * tags`, an error that is no service exception, without `$fault`); its
 * status, in `$metadata` or only in the hidden `$response`, is what there
 * is to say.
 */
function isUnreadAws(error: object, message: unknown): boolean {
  if (readField(error, '$metadata') === undefined && readField(error, '$response') === undefined) return false;
  if (readField(error, '$fault') === undefined) return true;
  return message === undefined || message === '' || message === 'UnknownError' || message === 'Unknown';
}

/** The longest code kept of what a service says. */
const MAX_CODE_CHARS = 64;

/**
 * What a service said of its refusal in its own words, when it is no
 * `Status`: `error: error_description` (OAuth), or its error code (or
 * type) and its message (or reason), at the top of the body or under its
 * `error` (`{"error":{"type":"index_not_found_exception","reason":"no such
 * index [widgets]"}}`, `{"error":{"code":"insufficient_quota","message":…}}`):
 * `index_not_found_exception: no such index [widgets]`.
 */
function serviceWords(body: unknown): string | undefined {
  const parsed = typeof body === 'string' ? parseJson(body) : body;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || ArrayBuffer.isView(parsed)) {
    return undefined;
  }
  const error = readField(parsed, 'error');
  const named = text(error);
  const description = text(readField(parsed, 'error_description'));
  if (named && description) return `${named}: ${description}`;
  const nested = typeof error === 'object' && error !== null ? codeAndMessage(error) : undefined;
  return nested ?? codeAndMessage(parsed) ?? description ?? named;
}

/** `code: message` of an object that has them (`type` or `code`, `message` or `reason`); the message alone when it starts with the code. */
function codeAndMessage(holder: object): string | undefined {
  const code = text(readField(holder, 'code')) ?? text(readField(holder, 'type'));
  const message = text(readField(holder, 'message')) ?? text(readField(holder, 'reason'));
  if (!message) return undefined;
  if (!code || code.length > MAX_CODE_CHARS || message.startsWith(code)) return message;
  return `${code}: ${message}`;
}

/**
 * The error's own code and message, when the code is a service's
 * (`ContainerNotFound`, `AuthorizationFailure`: Azure's `RestError`), not
 * a client's (`ERR_NON_2XX_3XX_RESPONSE`) or the system's (`ECONNRESET`).
 */
function ownServiceCode(error: object, message: unknown): string | undefined {
  const code = readField(error, 'code');
  if (typeof code !== 'string' || code.length > MAX_CODE_CHARS || !/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/.test(code)) {
    return undefined;
  }
  const words = text(message);
  return words && !words.startsWith(code) ? `${code}: ${words}` : code;
}

/** A value that is text with something to say, trimmed. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.length > MAX_BODY_CHARS) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    // ApiException's message holds the body's text encoded as JSON once more.
    return typeof parsed === 'string' ? parseJson(parsed) : parsed;
  } catch {
    return undefined;
  }
}

function isStatus(value: unknown): boolean {
  if (readField(value, 'kind') === 'Status') return true;
  return readField(value, 'status') === 'Failure' && typeof readField(value, 'message') === 'string';
}

function statusFields(status: unknown): ApiStatus {
  const reason = readField(status, 'reason');
  const message = readField(status, 'message');
  return {
    reason: typeof reason === 'string' && reason ? reason : undefined,
    message: typeof message === 'string' && message ? message : undefined,
  };
}
