// Status bodies, shaped as kube-apiserver answers its errors.

import type { FailOptions, RecordedRequest, Status, StatusDetails } from './types.js';
import { GROUP, RESOURCE, Reply } from './protocol.js';
import { FieldError, errorBody, errorString, fieldInvalid } from './field-errors.js';
export function reply(status: number, body: unknown): Reply {
  return { status, body };
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details && { details }),
    code,
  };
}

export function badRequest(message: string): Status {
  return failure(400, 'BadRequest', message);
}

export function notFound(name: string): Status {
  return failure(404, 'NotFound', `${RESOURCE} "${name}" not found`, { name, group: GROUP, kind: 'events' });
}

export function notFoundPath(): Reply {
  return reply(404, failure(404, 'NotFound', 'the server could not find the requested resource', {}));
}

export function methodNotAllowed(): Reply {
  return reply(
    405,
    failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),
  );
}

export function invalid(kind: string, name: string, errors: FieldError[]): Status {
  const messages = [...new Set(errors.map(errorString))];
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (kind) details.kind = kind;
  details.causes = errors.map((error) => ({ reason: error.type, message: errorBody(error), field: error.field }));
  return failure(422, 'Invalid', `${kind} "${name}" is invalid: ${aggregate}`, details);
}

export const DEFAULT_REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * A Status like the real server's for `code`; with `retryAfterSeconds` (1 by
 * default for a 429) it carries `details.retryAfterSeconds` and the
 * `Retry-After` header, as apiserver's responsewriters add the header for any
 * Status with `retryAfterSeconds`.
 */
export function injectedFailure(request: RecordedRequest, code: number, options: FailOptions = {}): Reply {
  const reason = options.reason ?? DEFAULT_REASONS[code] ?? 'Unknown';
  const retryAfterSeconds = options.retryAfterSeconds ?? (code === 429 ? 1 : 0);
  const answer = injectedStatus(request, code, reason, options.message);
  if (options.retryAfter !== undefined)
    return { ...answer, headers: { ...answer.headers, 'Retry-After': options.retryAfter } };
  if (retryAfterSeconds <= 0) return answer;
  const status = answer.body as Status;
  return {
    status: answer.status,
    body: { ...status, details: { ...status.details, retryAfterSeconds } },
    headers: { ...answer.headers, 'Retry-After': String(retryAfterSeconds) },
  };
}

export function injectedStatus(request: RecordedRequest, code: number, reason: string, message?: string): Reply {
  const name = request.name ?? '';
  const resource = { ...(name ? { name } : {}), group: GROUP, kind: 'events' };
  const named = name ? `${RESOURCE} "${name}"` : RESOURCE;
  const injected = 'injected by FakeApiServer.failNext';
  switch (reason) {
    case 'NotFound':
      return reply(
        code,
        failure(
          code,
          reason,
          message ?? (name ? `${named} not found` : 'the server could not find the requested resource'),
          name ? resource : {},
        ),
      );
    case 'Forbidden':
      return reply(
        code,
        failure(
          code,
          reason,
          message ??
            `${named} is forbidden: User "system:serviceaccount:default:fake" cannot ${request.verb} resource "events" in API group "${GROUP}"` +
              (request.namespace ? ` in the namespace "${request.namespace}"` : ''),
          resource,
        ),
      );
    case 'Conflict':
      return reply(
        code,
        failure(
          code,
          reason,
          message ??
            `Operation cannot be fulfilled on ${named}: the object has been modified; please apply your changes to the latest version and try again`,
          resource,
        ),
      );
    case 'AlreadyExists':
      return reply(code, failure(code, reason, message ?? `${named} already exists`, resource));
    case 'Invalid':
      return reply(code, invalid('Event', name, [fieldInvalid('metadata', '', message ?? injected)]));
    case 'TooManyRequests':
      return reply(code, failure(code, reason, message ?? 'Too many requests, please try again later.'));
    case 'InternalError':
      return reply(
        code,
        failure(code, reason, `Internal error occurred: ${message ?? injected}`, {
          causes: [{ message: message ?? injected }],
        }),
      );
    case 'ServiceUnavailable':
      return reply(code, failure(code, reason, message ?? 'the server is currently unable to handle the request'));
    case 'Timeout':
      return reply(
        code,
        failure(
          code,
          reason,
          message ??
            'the server was unable to return a response in the time allotted, but may still be processing the request',
          {},
        ),
      );
    case 'Unauthorized':
      return reply(code, failure(code, reason, message ?? 'Unauthorized'));
    default:
      return reply(code, failure(code, reason, message ?? `${injected}: HTTP ${code}`));
  }
}
