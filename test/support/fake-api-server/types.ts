// What a test sees of the fake API server: recorded requests, stored Events, options.

import { type IncomingHttpHeaders } from 'node:http';

/** The Kubernetes verb of a recorded request (`unknown` for paths the fake does not serve). */
export type Verb = 'create' | 'get' | 'list' | 'patch' | 'update' | 'delete' | 'unknown';

/** One request as the fake received it, and what became of it. */
export interface RecordedRequest {
  /** Position in {@link FakeApiServer.requests}, from 0 (reset by {@link FakeApiServer.reset}). */
  readonly index: number;
  readonly method: string;
  /** The URL path, without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly verb: Verb;
  /** The namespace in the path, if any. */
  readonly namespace?: string;
  /** The event name in the path, if any. */
  readonly name?: string;
  /** The `Content-Type` header, as sent. */
  readonly contentType?: string;
  readonly headers: IncomingHttpHeaders;
  /** The body parsed as JSON; the raw text when it is not JSON; `undefined` when empty. */
  readonly body: unknown;
  readonly rawBody: string;
  readonly receivedAt: Date;
  /** The status answered (or, for a delayed request whose client left, that would have been). */
  status?: number;
  /** The body answered. */
  response?: unknown;
  /** Bytes of a scripted `text` answer ({@link ScriptedReply.text}) the client took before it closed or the body ended. */
  bytesSent?: number;
  /** A {@link FakeApiServer.hangNext} scenario held this request: it never gets an answer. */
  hung: boolean;
  /** A {@link FakeApiServer.delayNext} scenario delayed this request by this many milliseconds. */
  delayedMs?: number;
  /** The client closed the connection before an answer was written (or before the end of a scripted `text` one). */
  aborted: boolean;
  /**
   * The write reached the store (a create, or a patch that changed the Event
   * or not), whatever became of its answer. Unset for a write that failed or
   * was not applied, and for reads.
   */
  applied?: AppliedWrite;
  /**
   * The server cut the answer: `'reset'` — the connection was reset with no
   * answer at all ({@link FakeApiServer.loseAnswerNext}, an
   * {@link FakeApiServer.outage} without a status; `status` says what the
   * answer would have been, and is unset when the request was not handled);
   * `'truncated'` — the status line and headers were sent with half the body
   * ({@link FakeApiServer.truncateAnswerNext}).
   */
  answerCut?: 'reset' | 'truncated';
}

/** A write as the store took it: see {@link RecordedRequest.applied} and {@link FakeApiServer.countHistory}. */
export interface AppliedWrite {
  readonly namespace: string;
  readonly name: string;
  /** The Event's `metadata.resourceVersion` after the write. */
  readonly resourceVersion: string;
  /** The Event's `series.count` after the write; 1 when it has no series. */
  readonly seriesCount: number;
}

/** How {@link FakeApiServer.failNext} and its kin shape the failure. */
export interface FailOptions {
  /** The Status `reason`. @default the real server's reason for the code (`TooManyRequests` for 429, `ServiceUnavailable` for 503, ...) */
  reason?: string;
  /** The Status `message`. @default the real server's message for the reason */
  message?: string;
  /**
   * Sends `Retry-After: <n>` and `details.retryAfterSeconds: n`, as
   * kube-apiserver does for any Status carrying `retryAfterSeconds`. `0` sends
   * neither.
   * @default 1 for a 429 (the real server always sends it), none otherwise
   */
  retryAfterSeconds?: number;
  /**
   * Sends `Retry-After: <retryAfter>` as given (an HTTP-date, say, as a
   * proxy may send), in place of `retryAfterSeconds`'s.
   */
  retryAfter?: string;
}

/** How {@link FakeApiServer.truncateAnswerNext} cuts the answer. */
export interface TruncateOptions {
  /**
   * `'full'`: `Content-Length` announces the whole body, half of it is sent
   * and the connection is closed, so reading the body fails (undici's fetch:
   * `TypeError: terminated`). `'sent'`: `Content-Length` matches the half
   * that is sent (with `Connection: close`), so the response is complete but
   * its JSON does not parse (`SyntaxError`).
   * @default 'full'
   */
  contentLength?: 'full' | 'sent';
}

/** What {@link FakeApiServer.outage} answers. */
export interface OutageOptions extends FailOptions {
  /**
   * The status every matching request gets (a Status like
   * {@link FakeApiServer.failNext}'s). Without it the connection is reset as
   * soon as the request has arrived, as if the server were unreachable.
   */
  status?: number;
  /** The requests the outage affects. @default all */
  match?: RequestMatch;
}

/** Picks requests: an HTTP method (`'POST'`), a verb (`'create'`), or a predicate. */
export type RequestMatch = string | ((request: RecordedRequest) => boolean);

/** What {@link FakeApiServer.respondNext} answers. */
export interface ScriptedReply {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * Sent as it is in place of `body`, as a proxy in front of the server
   * answers (an HTML 502 page, say); set its `Content-Type` in `headers`.
   */
  text?: string;
  /**
   * Sends `text` this many times in a row (with `Content-Length` announcing
   * all of it), waiting for the client to take each before the next, and
   * stops when the client closes the connection: how much it took is
   * {@link RecordedRequest.bytesSent}. @default 1
   */
  repeat?: number;
  headers?: Record<string, string>;
}

export interface FakeApiServerOptions {
  /**
   * Serve HTTPS with a self-signed certificate for 127.0.0.1, which
   * {@link FakeApiServer.kubeConfig} trusts through `caData`, as a real
   * cluster's kubeconfig does.
   * @default false (plain HTTP, reached with skipTLSVerify)
   */
  tls?: boolean;
  /**
   * The bearer token the server accepts; any other answers 401 Unauthorized
   * as the real one does. Change it with {@link FakeApiServer.acceptToken}.
   * @default any token
   */
  token?: string;
  /**
   * The namespaces that exist. Creating an Event elsewhere answers 404
   * `namespaces "x" not found`, as the NamespaceLifecycle admission plugin does.
   * @default every namespace exists
   */
  namespaces?: readonly string[];
  /** Namespaces being deleted: creating an Event there answers 403 (NamespaceTerminating). */
  terminatingNamespaces?: readonly string[];
  /**
   * The server will stop listening and listen again
   * ({@link FakeApiServer.stopListening}), and needs its port back then: it
   * listens on a free port below the range the system hands out to other
   * sockets (`ip_local_port_range`, from 32768 on Linux), so that none takes
   * its port meanwhile.
   * @default false: a free port the system picks
   */
  refusable?: boolean;
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventMetadata {
  name: string;
  generateName?: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An `events.k8s.io/v1` Event as the fake stores and returns it (Go's JSON field order and omitempty rules). */
export interface StoredEvent {
  kind: 'Event';
  apiVersion: 'events.k8s.io/v1';
  metadata: EventMetadata;
  eventTime: string | null;
  series?: { count: number; lastObservedTime: string | null };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource: { component?: string; host?: string };
  deprecatedFirstTimestamp: string | null;
  deprecatedLastTimestamp: string | null;
  deprecatedCount?: number;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A `meta/v1` Status, as kube-apiserver answers errors (and deletes). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A `SelfSubjectAccessReview` as the fake received it: what was asked. */
export interface AccessReview {
  readonly verb: string;
  /** Undefined for every namespace. */
  readonly namespace?: string;
  readonly group: string;
  readonly resource: string;
}

/** How {@link FakeApiServer.answerAccessReviews} answers one review. */
export type AccessReviewReply =
  { readonly allowed: boolean } | { readonly status: number; readonly reason?: string } | { readonly hang: true };
