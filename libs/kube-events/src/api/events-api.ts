import type { EventsV1Event, KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../text/describe-value.js';
import { PublishApiError, PublishCredentialError, PublishError, PublishTimeoutError } from '../errors.js';
import {
  MAX_RETRY_AFTER_MS,
  MAX_WRITE_MARKS,
  SERIES_ENDED_ANNOTATION,
  WRITES_ANNOTATION,
} from '../kube-events.constants.js';
import {
  ANSWER_NOT_AN_EVENT,
  ANSWER_NOT_JSON,
  ANSWER_HEADERS_TOO_LONG,
  ANSWER_UNREADABLE,
  EVENT_REDIRECTED,
  EVENT_REFUSED,
  FIELD_OVER_BOUND,
  NO_CURRENT_CLUSTER,
  SERVER_NOT_REACHED,
} from '../kube-events.messages.js';
import { redactCredentials } from '../text/credential-redaction.js';
import {
  ACCESS_REVIEW_PATH,
  accessReviewBody,
  isAllowed,
  reviewedUsername,
  SELF_REVIEW_BODY,
  SELF_REVIEW_PATH,
  type EventVerb,
} from './access-review.js';
import { AnswerCutError, jsonRequest, type JsonAnswer } from './json-request.js';
import { statementOf, type EventStatement } from './event-statement.js';
import { truncateText } from '../event-rules/note-truncation.js';
import { microTime } from './event-body.js';
import { flowOf, type EventWritesFlow } from './event-writes-flow.js';
import { type Authenticated, PooledAuthentication, type PooledAuthenticationOptions } from './pooled-authentication.js';
import { eventsUserAgent } from './user-agent.js';
import {
  describeUnreachable,
  isFailedConnectionAttempt,
  isOversizedAnswer,
  MAX_ANSWER_HEADER_KIB,
  safeCause,
} from './unreachable-cause.js';

/** An Event as the API server holds it, as far as a series needs to know. */
export interface StoredEventState {
  /** The Event's `metadata.name`. */
  readonly name: string;
  /** The Event's namespace. */
  readonly namespace: string;
  /** The Event's uid, when the server's answer carried it. */
  readonly uid?: string;
  /** The precondition of the next patch: a patch with another one is refused (409 Conflict). */
  readonly resourceVersion?: string;
  /** The series count: 1 for an Event without a series. */
  readonly count: number;
  /** The marks of its last writes (`nestjs-kube-events/writes`), newest first; absent when it has none. */
  readonly writes?: readonly string[];
  /** Whether its series was marked ended (`nestjs-kube-events/series-ended`): no series continues it. */
  readonly ended?: boolean;
  /** When it last counted an occurrence (`series.lastObservedTime`, else `eventTime`), epoch ms, when it says. */
  readonly lastObservedAt?: number;
  /**
   * What it says and whom it is about, from a read or a list (not from a
   * create's or a patch's answer); absent when the answer did not carry them
   * readably.
   */
  readonly statement?: EventStatement;
}

/** Which Events to list: those about one object, for one reason, from one controller (all field selectors). */
export interface EventQuery {
  /** The uid of the object the Events are about (`regarding.uid`). */
  readonly uid: string;
  /** The Events' `reason`. */
  readonly reason: string;
  /** The controller that wrote them (`reportingController`). */
  readonly reportingController: string;
}

/** An Event as listed: its state, and what says whether a series may continue it. */
export interface ListedEvent extends StoredEventState {
  /** The Event as the API server returned it. */
  readonly event: EventsV1Event;
  /** When its last occurrence was seen (`series.lastObservedTime`, else `eventTime`), in epoch ms. */
  readonly lastObservedAt: number;
}

/** What a series patch changes: the count, and when the last occurrence was seen. */
export interface SeriesPatch {
  /** The new `series.count`: the Event's occurrences so far, this write's included. */
  count: number;
  /** A `V1MicroTime`: the server refuses any precision but six fractional digits. */
  lastObservedTime: Date;
  /** Sent as `metadata.resourceVersion`, so that the patch applies only to the Event as last seen. */
  resourceVersion?: string;
  /** Sent as `metadata.annotations` (a `null` value removes the key): the trace context of the latest occurrence. */
  annotations?: Record<string, string | null>;
}

/**
 * The W3C trace context of the span a write runs in, sent as the
 * `traceparent` (and `tracestate`) headers of its requests: kube-apiserver
 * with tracing on makes its span of the request a child of the write's
 * (for an identity in `system:masters`), or a new trace linked to it (any
 * other, a ServiceAccount's say). Given only for a write in a recorded
 * span, in valid W3C form.
 */
export interface TraceHeaders {
  /** `00-<trace id>-<span id>-<flags>`: the write span's. */
  readonly traceparent: string;
  /** The span's `tracestate`, when it has a valid one. */
  readonly tracestate?: string;
}

/**
 * Where a recorder writes Events: the API server, or a stand-in that answers
 * in memory. A write's requests run in its span with OpenTelemetry; `trace`
 * is that span's context, for a writer that passes it on. Refusals reject with {@link PublishApiError} (status code and
 * the server's reason); an aborted request rejects with the signal's reason.
 */
export interface EventsWriter {
  /** Creates the Event (its name chosen by the client) and returns it as stored. */
  create(namespace: string, body: EventsV1Event, signal: AbortSignal, trace?: TraceHeaders): Promise<StoredEventState>;
  /** Reads one Event. */
  read(namespace: string, name: string, signal: AbortSignal, trace?: TraceHeaders): Promise<StoredEventState>;
  /** Raises the series of an existing Event (JSON merge patch), with `resourceVersion` as a precondition when given. */
  patchSeries(
    namespace: string,
    name: string,
    patch: SeriesPatch,
    signal: AbortSignal,
    trace?: TraceHeaders,
  ): Promise<StoredEventState>;
  /** Lists the Events that match `query`, for `resumeSeries`. */
  list?(namespace: string, query: EventQuery, signal: AbortSignal, trace?: TraceHeaders): Promise<ListedEvent[]>;
  /** Adds annotations to an Event (JSON merge patch). */
  annotate?(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal): Promise<void>;
  /** Lets go of what it holds (connections), once the recorder is done. */
  close?(): Promise<void>;
  /**
   * How many writes it carries at once: a recorder sends no more at a
   * time, and holds the others in its own queue, where a rate lowered
   * meanwhile (the server said it is overloaded) holds them too. Unset, a
   * recorder sends 8 at a time.
   */
  readonly writesAtOnce?: number;
  /**
   * Whether the recorder's own review confirms that it may not `verb`
   * Events in `namespace`, so that a 403 there is final: one it does not
   * confirm (a server still starting, whose authorizer has not synced its
   * RBAC yet) is retried. Without it, every 403 is final.
   */
  confirmsForbidden?(namespace: string, verb: EventVerb): boolean;
}

/** How an {@link EventsApi} authenticates, and whose requests it names. */
export interface EventsApiOptions extends PooledAuthenticationOptions {
  /**
   * The reporter's controller, named in the `User-Agent` of every request
   * (`nestjs-kube-events/<version> (<controller>)`).
   */
  readonly controller?: string;
}

/**
 * The requests a recorder sends, authenticated by client-node (so every
 * KubeConfig authentication works, credentials refreshed as they expire)
 * and sent through undici over one pool of keep-alive connections,
 * each abortable through a signal. Bodies are plain JSON, the Event's
 * `MicroTime`s written with six fractional digits. An answer
 * that cannot be read (a broken connection, a cut body) rejects with a
 * {@link PublishApiError} that says the write may have been applied; one
 * that could not be authenticated, with a `PublishCredentialError`.
 */
export class EventsApi implements EventsWriter {
  /** The server's origin, and the path it is served under (behind a proxy, say), without a trailing slash. */
  private readonly origin: string;
  private readonly basePath: string;
  private readonly authentication: PooledAuthentication;
  private readonly userAgent: string;
  private flow: EventWritesFlow | undefined;

  constructor(kubeConfig: KubeConfig, options: EventsApiOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(NO_CURRENT_CLUSTER());
    const url = new URL(cluster.server.replace(/\/+$/, ''));
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.authentication = new PooledAuthentication(kubeConfig, options);
    this.userAgent = eventsUserAgent(options.controller);
  }

  create(namespace: string, body: EventsV1Event, signal: AbortSignal, trace?: TraceHeaders): Promise<StoredEventState> {
    const name = body.metadata?.name ?? '';
    const { eventTime, series } = body;
    const sent = {
      ...body,
      eventTime: eventTime && microTime(eventTime),
      series: series && { ...series, lastObservedTime: series.lastObservedTime && microTime(series.lastObservedTime) },
    };
    return this.send('POST', eventsPath(namespace), signal, sent, (answer) => eventState(answer, namespace, name), {
      trace,
    });
  }

  read(namespace: string, name: string, signal: AbortSignal, trace?: TraceHeaders): Promise<StoredEventState> {
    return this.sendAboutEvent('GET', namespace, name, signal, undefined, trace, statedEventState);
  }

  patchSeries(
    namespace: string,
    name: string,
    patch: SeriesPatch,
    signal: AbortSignal,
    trace?: TraceHeaders,
  ): Promise<StoredEventState> {
    const { resourceVersion, annotations, count, lastObservedTime } = patch;
    const series = { count, lastObservedTime: microTime(lastObservedTime) };
    const metadata =
      resourceVersion === undefined && annotations === undefined ? undefined : { resourceVersion, annotations };
    const body = metadata ? { metadata, series } : { series };
    return this.sendAboutEvent('PATCH', namespace, name, signal, body, trace);
  }

  list(namespace: string, query: EventQuery, signal: AbortSignal, trace?: TraceHeaders): Promise<ListedEvent[]> {
    const fieldSelector = `regarding.uid=${query.uid},reason=${query.reason},reportingController=${query.reportingController}`;
    return this.send(
      'GET',
      `${eventsPath(namespace)}?fieldSelector=${encodeURIComponent(fieldSelector)}`,
      signal,
      undefined,
      (answer) => listedEvents(answer, namespace),
      { trace },
    );
  }

  async annotate(
    namespace: string,
    name: string,
    annotations: Record<string, string>,
    signal: AbortSignal,
  ): Promise<void> {
    await this.sendAboutEvent('PATCH', namespace, name, signal, { metadata: { annotations } });
  }

  /**
   * Asks the API server whether the recorder's identity may `verb` Events
   * of `events.k8s.io` in `namespace` (in every namespace when undefined),
   * with a `SelfSubjectAccessReview` sent with the Events' credentials, on
   * the follow-ups' connections (never a write's). Rejects as a write does
   * when the review itself fails.
   */
  async mayAccessEvents(verb: EventVerb, namespace: string | undefined, signal: AbortSignal): Promise<boolean> {
    return this.send('POST', ACCESS_REVIEW_PATH, signal, accessReviewBody(verb, namespace), isAllowed, FOLLOW_UP);
  }

  /**
   * Who the recorder's requests authenticate as, from a `SelfSubjectReview`
   * (`system:serviceaccount:<namespace>:<name>` in a pod); rejects as a
   * write does when the server does not answer one (before 1.28, say).
   */
  async identity(signal: AbortSignal): Promise<string | undefined> {
    return this.send('POST', SELF_REVIEW_PATH, signal, SELF_REVIEW_BODY, reviewedUsername, FOLLOW_UP);
  }

  /**
   * Whether the API server says it is ready (`GET /readyz`, open to every
   * identity by default): `false` on a 5xx or no answer, `true` otherwise,
   * a refusal included (a cluster that hides it tells nothing). Sent on
   * the follow-ups' connections: one that hangs holds no write.
   */
  async serverReady(signal: AbortSignal): Promise<boolean> {
    try {
      await this.send('GET', '/readyz', signal, undefined, () => true, FOLLOW_UP);
      return true;
    } catch (error) {
      // "ok" is not JSON: an unreadable 2xx is a ready server too.
      return !(error instanceof PublishApiError && (error.statusCode === undefined || error.statusCode >= 500));
    }
  }

  /** How many writes it carries at once: one per keep-alive connection of its pool. */
  get writesAtOnce(): number {
    return this.authentication.requestsAtOnce;
  }

  /** Where API Priority and Fairness put the last Event request the server answered; `undefined` before one, or on a server without it. */
  eventWritesFlow(): EventWritesFlow | undefined {
    return this.flow;
  }

  close(): Promise<void> {
    return this.authentication.close();
  }

  /** A request about the Event `name` in `namespace`, whose answer is that Event as stored, read by `read`. */
  private sendAboutEvent(
    method: 'GET' | 'PATCH',
    namespace: string,
    name: string,
    signal: AbortSignal,
    body: unknown,
    trace?: TraceHeaders,
    read = eventState,
  ): Promise<StoredEventState> {
    return this.send(method, eventsPath(namespace, name), signal, body, (answer) => read(answer, namespace, name), {
      trace,
    });
  }

  /**
   * One request; PATCH bodies are JSON merge patches. Only a 2xx answer
   * whose body `read` takes is a success: a redirect is a refusal, and a
   * body it throws on is unreadable (the write may have been applied).
   * Credentials kept from the last request are used at once (the request
   * goes out before this returns); only a request that must authenticate
   * waits for it.
   */
  private async send<T>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    signal: AbortSignal,
    body: unknown,
    read: (answer: unknown) => T,
    { trace, followUp = false }: RequestExtras = {},
  ): Promise<T> {
    let authenticated: Authenticated;
    try {
      authenticated = this.authentication.reusableCredentials() ?? (await this.authentication.authenticate(signal));
    } catch (error) {
      throw toPublishError(error, signal, undefined);
    }
    const headers: Record<string, string> = {
      ...authenticated.headers,
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (trace) {
      headers.traceparent = trace.traceparent;
      if (trace.tracestate) headers.tracestate = trace.tracestate;
    }
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? MERGE_PATCH : 'application/json';
    let response: JsonAnswer;
    try {
      response = await jsonRequest({
        origin: this.origin,
        path: `${this.basePath}${path}`,
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        dispatcher: followUp ? this.authentication.followUpDispatcher(authenticated) : authenticated.dispatcher,
      });
    } catch (error) {
      throw error instanceof AnswerCutError
        ? toPublishError(error.cause, signal, error.statusCode)
        : toPublishError(error, signal, undefined);
    }
    const status = response.statusCode;
    try {
      if (path.startsWith(EVENTS_GROUP_PATH)) this.flow = flowOf(response.headers) ?? this.flow;
      if (status === 401) this.authentication.refused(authenticated);
      if (status >= 400) throw refusal(response, credentialsOf(headers));
      if (status >= 300) throw redirected(response, this.origin, credentialsOf(headers));
      return read(parsedAnswer(response));
    } catch (error) {
      throw toPublishError(error, signal, status);
    }
  }
}

/** What a request carries beyond its method, path and body. */
interface RequestExtras {
  readonly trace?: TraceHeaders | undefined;
  readonly followUp?: boolean;
}

/** `send`'s extras for a follow-up request. */
const FOLLOW_UP: RequestExtras = { followUp: true };

const MERGE_PATCH = 'application/merge-patch+json';

const EVENTS_GROUP_PATH = '/apis/events.k8s.io/';

function eventsPath(namespace: string, name?: string): string {
  const collection = `${EVENTS_GROUP_PATH}v1/namespaces/${encodeURIComponent(namespace)}/events`;
  return name === undefined ? collection : `${collection}/${encodeURIComponent(name)}`;
}

/**
 * The most of a `resourceVersion` or a `uid` from the server that the
 * recorder keeps, in characters: kube-apiserver's are an etcd revision (at
 * most 20 digits) and a UUID (36). A longer one cannot be a precondition
 * worth sending back, and a series would hold it for its whole life.
 */
const MAX_SERVER_TOKEN_CHARS = 256;

/** The longest name an Event listed by the server may have: a DNS subdomain. */
const MAX_EVENT_NAME_CHARS = 253;

/** The Events a list answered, those a series could continue: an item out of bounds is left alone. */
function listedEvents(answer: unknown, namespace: string): ListedEvent[] {
  const items = isRecord(answer) ? answer.items : undefined;
  if (items === undefined) return [];
  if (!Array.isArray(items)) throw new Error(ANSWER_NOT_AN_EVENT('its items are not a list'));
  const listed: ListedEvent[] = [];
  for (const item of items as unknown[]) {
    const name = isRecord(item) && isRecord(item.metadata) ? item.metadata.name : undefined;
    if (typeof name !== 'string' || !name || name.length > MAX_EVENT_NAME_CHARS) continue;
    let state: StoredEventState;
    try {
      state = statedEventState(item, namespace, name);
    } catch {
      continue;
    }
    listed.push({ ...state, event: item as EventsV1Event, lastObservedAt: state.lastObservedAt ?? 0 });
  }
  return listed;
}

/**
 * What the recorder keeps of an answer that says it holds the Event
 * `namespace/name`: its name and namespace as asked (never the server's
 * strings), and its uid, resourceVersion and count within bounds. Anything
 * else is not that Event: the answer counts as unreadable.
 */
function eventState(answer: unknown, namespace: string, name: string): StoredEventState {
  const metadata = isRecord(answer) ? answer.metadata : undefined;
  if (!isRecord(metadata)) throw new Error(ANSWER_NOT_AN_EVENT('it has no metadata'));
  if (metadata.name !== name) throw new Error(ANSWER_NOT_AN_EVENT('it names another object'));
  if (metadata.namespace !== undefined && metadata.namespace !== namespace)
    throw new Error(ANSWER_NOT_AN_EVENT('it is in another namespace'));
  const uid = boundedToken(metadata.uid, 'uid');
  const resourceVersion = boundedToken(metadata.resourceVersion, 'resourceVersion');
  const series = (answer as { series?: unknown }).series;
  const count = isRecord(series) ? series.count : undefined;
  if (count !== undefined && !(Number.isSafeInteger(count) && (count as number) >= 1))
    throw new Error(ANSWER_NOT_AN_EVENT('its series.count is not a positive integer'));
  const writes = writeMarks(metadata.annotations);
  const observed =
    (isRecord(series) ? series.lastObservedTime : undefined) ?? (answer as { eventTime?: unknown }).eventTime;
  const lastObservedAt = typeof observed === 'string' || observed instanceof Date ? new Date(observed).getTime() : NaN;
  return {
    name,
    namespace,
    uid,
    resourceVersion,
    count: (count as number | undefined) ?? 1,
    ...(writes && { writes }),
    ...(isRecord(metadata.annotations) && SERIES_ENDED_ANNOTATION in metadata.annotations && { ended: true }),
    ...(Number.isFinite(lastObservedAt) && { lastObservedAt }),
  };
}

/**
 * {@link eventState} with what the Event says ({@link EventStatement}): read
 * only from the answers a recorder compares with its series (a read after a
 * `409`, a list), not from every write's.
 */
function statedEventState(answer: unknown, namespace: string, name: string): StoredEventState {
  const state = eventState(answer, namespace, name);
  const statement = statementOf(answer as Record<string, unknown>);
  return statement ? { ...state, statement } : state;
}

/** A write mark: a recorder's id and an attempt's number. */
const WRITE_MARK = /^[a-z0-9]{1,16}\.\d{1,15}$/;

/** The write marks an Event's annotations hold, when they hold a list of them; anything else is none. */
function writeMarks(annotations: unknown): readonly string[] | undefined {
  const value = isRecord(annotations) ? annotations[WRITES_ANNOTATION] : undefined;
  if (typeof value !== 'string' || value.length > MAX_WRITE_MARKS * 33) return undefined;
  const marks = value.split(',');
  return marks.length <= MAX_WRITE_MARKS && marks.every((mark) => WRITE_MARK.test(mark)) ? marks : undefined;
}

/** A uid or resourceVersion from the server, unless it is not one the recorder can keep. */
function boundedToken(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new Error(ANSWER_NOT_AN_EVENT(`its metadata.${field} is not a string`));
  if (value.length > MAX_SERVER_TOKEN_CHARS)
    throw new Error(ANSWER_NOT_AN_EVENT(FIELD_OVER_BOUND(`metadata.${field}`, value.length, MAX_SERVER_TOKEN_CHARS)));
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The most of the server's message (or of what stands in for it) that an
 * error message carries, in UTF-8 bytes: a Kubernetes Status message is a
 * sentence or two; a long one is cut, as a note is.
 */
const MAX_ERROR_DETAIL_BYTES = 1024;

/** Of a body that is not a Kubernetes Status (a proxy's page, say), the characters an error message quotes. */
const MAX_BODY_EXCERPT_CHARS = 200;

/** The most of a Status `reason` kept: the API's own are short CamelCase words. */
const MAX_REASON_CHARS = 64;

interface StatusBody {
  message?: unknown;
  reason?: unknown;
}

/**
 * The server's refusal, from its Status body. What the body says is
 * bounded and has its credentials removed: a proxy's page that echoes the
 * request's headers must not put the token into the error.
 */
function refusal(answer: JsonAnswer, secrets: readonly string[]): PublishApiError {
  const { statusCode: status, headers } = answer;
  const retryAfter = headers['retry-after'];
  const body = answer.truncated ? undefined : parseStatus(answer.text);
  const message =
    typeof body?.message === 'string' && body.message.trim()
      ? truncateText(redactCredentials(body.message.trim(), secrets), MAX_ERROR_DETAIL_BYTES)
      : describeBody(answer, secrets);
  const reason =
    typeof body?.reason === 'string' && /^[A-Za-z]+$/.test(body.reason)
      ? body.reason.slice(0, MAX_REASON_CHARS)
      : undefined;
  return new PublishApiError(EVENT_REFUSED(status, message), status, reason, {
    retryAfterMs: retryAfterMs((Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) as string | undefined),
  });
}

/**
 * A body that is not a Status, as an error message shows it: its type and
 * size, and a short excerpt of its text (markup and credentials removed),
 * as the real max-in-flight filter's `text/plain` 429 needs.
 */
function describeBody(answer: JsonAnswer, secrets: readonly string[]): string {
  const type = contentTypeOf(answer);
  // Markup and runs of whitespace out, then credentials: what is left is what a person reads.
  const text = answer.text
    .slice(0, MAX_BODY_EXCERPT_CHARS * 8)
    .replace(/<(script|style)\b[\s\S]*?(<\/\1>|$)/gi, ' ')
    .replace(/<[^>]*>?/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return `HTTP ${answer.statusCode} (${type}, ${answer.bytes} bytes)`;
  const redacted = redactCredentials(text, secrets);
  const cut = redacted.length > MAX_BODY_EXCERPT_CHARS || answer.bytes > MAX_BODY_EXCERPT_CHARS * 8;
  const excerpt = redacted.length > MAX_BODY_EXCERPT_CHARS ? redacted.slice(0, MAX_BODY_EXCERPT_CHARS) : redacted;
  if (!cut && type === 'text/plain') return excerpt;
  return `${excerpt}${cut ? '…' : ''} (${type}, ${answer.bytes} bytes)`;
}

/** Of a redirect's `Location`, the characters an error message quotes. */
const MAX_LOCATION_CHARS = 200;

/**
 * A redirect, which is never followed (no credential goes where it points):
 * the write was not made. A proxy that sends a login page answers so.
 */
function redirected(answer: JsonAnswer, origin: string, secrets: readonly string[]): PublishApiError {
  const location: unknown = answer.headers.location;
  const target = typeof location === 'string' ? location : undefined;
  let where = 'no Location';
  if (target) {
    let shown: string;
    try {
      // Origin and path only: a query or userinfo may carry a credential.
      const url = new URL(target, origin);
      shown = `${url.origin}${url.pathname}`;
    } catch {
      shown = target;
    }
    const redacted = redactCredentials(shown.slice(0, MAX_LOCATION_CHARS * 8), secrets);
    where = redacted.length > MAX_LOCATION_CHARS ? `${redacted.slice(0, MAX_LOCATION_CHARS)}…` : redacted;
  }
  return new PublishApiError(EVENT_REDIRECTED(answer.statusCode, where), answer.statusCode);
}

/**
 * A successful answer's JSON. One that does not parse is unreadable, said
 * without JSON.parse's message, which quotes the body.
 */
function parsedAnswer(answer: JsonAnswer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new Error(ANSWER_NOT_JSON(contentTypeOf(answer), answer.bytes));
  }
}

/** The answer's media type, without parameters. */
function contentTypeOf(answer: JsonAnswer): string {
  const type = answer.headers['content-type'] as string | string[] | undefined;
  return (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim() || 'no content type';
}

/** The credentials a request carried, so that an answer echoing them is cleared of them. */
function credentialsOf(headers: Record<string, string>): string[] {
  const credentials: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'authorization') continue;
    credentials.push(value);
    const space = value.indexOf(' ');
    if (space > 0) credentials.push(value.slice(space + 1));
  }
  return credentials;
}

function toPublishError(error: unknown, signal: AbortSignal, answeredStatus: number | undefined): unknown {
  // Aborted by the recorder's timeout: the reason is its PublishTimeoutError, or one that says what it waited for.
  // An authentication given up at the timeout is a credential failure, which health reports as one.
  if (signal.aborted)
    return error instanceof PublishTimeoutError || error instanceof PublishCredentialError
      ? error
      : (signal.reason ?? error);
  // A refusal, or a credential failure: no request was sent.
  if (error instanceof PublishError) return error;
  if (isOversizedAnswer(error)) {
    return new PublishApiError(ANSWER_HEADERS_TOO_LONG(MAX_ANSWER_HEADER_KIB), undefined, undefined, {
      cause: error,
      mayHaveApplied: true,
    });
  }
  const detail = errorMessage(error);
  if (answeredStatus !== undefined) {
    return new PublishApiError(ANSWER_UNREADABLE(answeredStatus, detail), answeredStatus, undefined, {
      cause: error,
      mayHaveApplied: true,
    });
  }
  // A connection that was never made carried no request; one lost on the way may have carried it.
  return new PublishApiError(SERVER_NOT_REACHED(describeUnreachable(error)), undefined, undefined, {
    cause: safeCause(error),
    mayHaveApplied: !isFailedConnectionAttempt(error),
  });
}

function parseStatus(text: string): StatusBody | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // not JSON: the real max-in-flight filter answers 429 as text/plain
  }
  return undefined;
}

/**
 * `Retry-After` in seconds (the API server's form) or as an HTTP date, in
 * milliseconds, at most {@link MAX_RETRY_AFTER_MS}: what the recorder honours.
 */
function retryAfterMs(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1_000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
