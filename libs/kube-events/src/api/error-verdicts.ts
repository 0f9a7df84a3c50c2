import { PublishApiError, PublishCredentialError, PublishTimeoutError } from '../errors.js';
import { isFailedConnectionAttempt, isOversizedAnswer } from './unreachable-cause.js';

// What the errors of a write say: whether it may succeed later, may have applied, was throttled or met an
// overloaded server, and what it says of the connection. The recorder decides what to do with each.

/**
 * Whether a failed write may succeed later: server errors, throttling,
 * timeouts, unreachable servers, credentials that failed (a token
 * expires and is renewed, an identity service comes back) and an Event
 * that kept changing under the writes (409 Conflict); not refusals.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof PublishTimeoutError || error instanceof PublishCredentialError) return true;
  if (!(error instanceof PublishApiError)) return false;
  const status = error.statusCode;
  // A 409 Conflict: the Event kept changing under the writes, which the next try reads again.
  const contended = status === 409 && error.reason === 'Conflict';
  return status === undefined || error.mayHaveApplied || contended || status === 429 || status >= 500;
}

/** Whether the server may have applied a write that failed this way, so that writing it again must not count it twice. */
export function mayHaveApplied(error: unknown): boolean {
  if (error instanceof PublishTimeoutError) return true;
  return error instanceof PublishApiError && (error.mayHaveApplied || (error.statusCode ?? 0) >= 500);
}

/**
 * What a failed write says about the connection to the server:
 * - `unconnected`: no connection could be made (refused, DNS, connect timeout, TLS): the server is unreachable;
 * - `lost`: an established connection broke before any answer (a reset, a close): this write alone;
 * - `answered`: the server answered (a status, even one whose body could not be read);
 * - `timed-out`: no answer within the timeout: this write alone;
 * - `unsent`: no credentials to send it with: nothing was learnt of the server, and the credentials back off.
 */
export type ConnectionVerdict = 'unconnected' | 'lost' | 'answered' | 'timed-out' | 'unsent';

/** What `error`, from a write, says about the connection (see {@link ConnectionVerdict}). */
export function connectionVerdict(error: unknown): ConnectionVerdict {
  if (error instanceof PublishTimeoutError) return 'timed-out';
  if (error instanceof PublishCredentialError) return 'unsent';
  if (!(error instanceof PublishApiError) || error.statusCode !== undefined) return 'answered';
  // Headers past undici's limit: the server answered, with more than can be read.
  if (isOversizedAnswer(error.cause)) return 'answered';
  return isFailedConnectionAttempt(error.cause) ? 'unconnected' : 'lost';
}

/** Whether the server told the recorder when to come back (`Retry-After`): nothing cuts that wait short. */
export function isThrottled(error: unknown): boolean {
  return error instanceof PublishApiError && error.retryAfterMs !== undefined;
}

/** Whether the server answered that it is overloaded (`429 Too Many Requests`, `503 Service Unavailable`). */
export function isOverloaded(error: unknown): boolean {
  return error instanceof PublishApiError && (error.statusCode === 429 || error.statusCode === 503);
}
