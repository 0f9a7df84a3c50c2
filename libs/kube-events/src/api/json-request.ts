import type { IncomingHttpHeaders } from 'node:http';
import { getGlobalDispatcher, type Dispatcher } from 'undici';

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
  /** The whole body, as text. */
  readonly text: string;
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

/**
 * One request through undici's `dispatch`, the body gathered into one
 * string: no response stream, no async resource per request, which
 * undici's `request` builds and a small JSON answer does not need.
 * Rejects with the signal's reason once it aborts, with
 * {@link AnswerCutError} when the answer broke after its status, and with
 * undici's error when no answer came.
 */
export function jsonRequest(request: JsonRequest): Promise<JsonAnswer> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<JsonAnswer>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let answer: { statusCode: number; headers: IncomingHttpHeaders } | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    // A request still waiting for a connection is aborted as soon as it starts.
    const onAbort = () => {
      controller?.abort(signal.reason);
      settle(() => reject(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (signal.aborted) started.abort(signal.reason);
      },
      onResponseStart(_, statusCode, headers) {
        if (statusCode >= 200) answer = { statusCode, headers };
      },
      onResponseData(_, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        const { statusCode, headers } = answer!;
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
        settle(() => resolve({ statusCode, headers, text }));
      },
      onResponseError(_, error) {
        settle(() => reject(answer ? new AnswerCutError(answer.statusCode, error) : error));
      },
    };
    const { origin, path, method, headers, body } = request;
    (request.dispatcher ?? getGlobalDispatcher()).dispatch({ origin, path, method, headers, body }, handler);
  });
}
