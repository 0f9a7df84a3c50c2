import type { IncomingHttpHeaders } from 'node:http';
import { getGlobalDispatcher, type Dispatcher } from 'undici';

/**
 * The most of a refusal's or a redirect's body (status 300 and above) that
 * is read: a Kubernetes `Status`, even a 422 with many causes, is a few KB;
 * anything past this (a proxy's page, a body that never ends) is not read.
 */
const MAX_ERROR_ANSWER_BYTES = 64 * 1024;

/**
 * The most of a successful answer that is read: an Event is at most what
 * kube-apiserver accepts in one request (3 MiB), its annotations 256 KiB.
 * A longer answer counts as unreadable (the write may have been applied).
 */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface JsonRequest {
  /** `https://host:port`, no path. */
  readonly origin: string;
  /** Path and query. */
  readonly path: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly headers: Record<string, string>;
  /** Already serialised. */
  readonly body?: string;
  readonly signal: AbortSignal;
  /** undici's global pool when undefined. */
  readonly dispatcher?: Dispatcher;
}

export interface JsonAnswer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as text: all of it, or for a refusal or a redirect its first {@link MAX_ERROR_ANSWER_BYTES}. */
  readonly text: string;
  /** The body's size as the server announced it (`Content-Length`), else as far as it was read. */
  readonly bytes: number;
  /** Whether the body was longer than what was read of it. */
  readonly truncated: boolean;
}

/** The connection broke after the server had answered with a status: the request may have been applied. */
export class AnswerCutError extends Error {
  constructor(
    readonly statusCode: number,
    cause: Error,
  ) {
    super(cause.message, { cause });
    this.name = 'AnswerCutError';
  }
}

/** A successful answer was longer than {@link MAX_ANSWER_BYTES}: the rest of it was not read. */
class AnswerTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`the answer was longer than ${limit} bytes`);
    this.name = 'AnswerTooLongError';
  }
}

/**
 * One request through undici's `dispatch`, the body gathered into one
 * string: no response stream, no async resource per request, which
 * undici's `request` builds and a small JSON answer does not need.
 * Reads at most {@link MAX_ERROR_ANSWER_BYTES} of a refusal or a redirect
 * (it resolves with that much, `truncated`, and the rest is not read: the
 * connection is closed) and {@link MAX_ANSWER_BYTES} of any other answer.
 * A redirect is never followed: the caller says what it means.
 * Rejects with the signal's reason once it aborts, with
 * {@link AnswerCutError} when the answer broke after its status (or was
 * too long), and with undici's error when no answer came.
 */
export function jsonRequest(request: JsonRequest): Promise<JsonAnswer> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  const { promise, resolve, reject } = Promise.withResolvers<JsonAnswer>();
  const handler = new AnswerReader(signal, resolve, reject);
  const { origin, path, method, headers, body } = request;
  (request.dispatcher ?? getGlobalDispatcher()).dispatch({ origin, path, method, headers, body }, handler);
  return promise;
}

/**
 * Gathers one answer for {@link jsonRequest}, and settles its promise once:
 * a class rather than closures, since a recorder makes one for every request.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private answer: { statusCode: number; headers: IncomingHttpHeaders } | undefined;
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private settled = false;
  // A request still waiting for a connection is aborted as soon as it starts.
  private readonly onAbort = () => {
    this.controller?.abort(this.signal.reason as Error);
    this.fail(this.signal.reason);
  };

  constructor(
    private readonly signal: AbortSignal,
    private readonly resolve: (answer: JsonAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(_: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode >= 200) this.answer = { statusCode, headers };
  }

  onResponseData(_: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const { statusCode } = this.answer!;
    const limit = statusCode >= 300 ? MAX_ERROR_ANSWER_BYTES : MAX_ANSWER_BYTES;
    if (this.received + chunk.length <= limit) {
      this.chunks.push(chunk);
      this.received += chunk.length;
      return;
    }
    // Not a byte more: the rest of the body is dropped with its connection.
    const tooLong = new AnswerTooLongError(limit);
    if (statusCode >= 300) {
      this.chunks.push(chunk.subarray(0, limit - this.received));
      this.received = limit;
      this.succeed(true);
    } else {
      this.fail(new AnswerCutError(statusCode, tooLong));
    }
    this.controller?.abort(tooLong);
  }

  onResponseEnd(): void {
    this.succeed(false);
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.fail(this.answer ? new AnswerCutError(this.answer.statusCode, error) : error);
  }

  private succeed(truncated: boolean): void {
    if (!this.settle()) return;
    const { statusCode, headers } = this.answer!;
    const { chunks, received } = this;
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    const announced = Number(headers['content-length']);
    const bytes = Number.isSafeInteger(announced) && announced >= received ? announced : received;
    this.resolve({ statusCode, headers, text, bytes, truncated });
  }

  private fail(error: unknown): void {
    if (this.settle()) this.reject(error);
  }

  /** Whether this is the first outcome: only that one counts. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.signal.removeEventListener('abort', this.onAbort);
    return true;
  }
}
