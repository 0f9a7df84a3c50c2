/**
 * A scenario-driven fake kube-apiserver for `events.k8s.io/v1` Events, for the
 * tests a real control plane cannot script: a request that never gets an
 * answer, a 404 or 500 on exactly one request, a slow answer, a write that
 * was applied but whose answer was lost or cut short, an outage.
 *
 * It answers like kube-apiserver (create with `generateName`, JSON merge
 * patch, get, list, delete), validates like it (MicroTime decoding, the
 * strict `events.k8s.io/v1` create and update rules) and answers errors with
 * `Status` objects shaped like the real ones, so `@kubernetes/client-node`'s
 * `ApiException` carries them (as a JSON string in `body`).
 *
 * Every request is recorded, in order, so a test reads like kube-rs's mock
 * API server: script what the next requests get, run the code, then assert
 * on the sequence of requests.
 *
 * @example
 * const server = await FakeApiServer.start({ namespaces: ['default', 'ns-a'] });
 * const api = server.kubeConfig().makeApiClient(EventsV1Api);
 * server.failNext(500, 'PATCH').hangNext('POST');
 * // ... run the code under test ...
 * expect(server.verbs()).toEqual(['create', 'patch', 'create']);
 * expect(server.aborted).toBe(1);
 * expect(server.countHistory('ns-a', name)).toEqual([1, 2, 3]);
 * await server.close();
 *
 * Where it differs from kube-apiserver, on purpose or for brevity:
 * - PATCH accepts only `application/merge-patch+json`; any other patch type
 *   (the real server also takes JSON patch, strategic merge patch and apply)
 *   gets 415, so a client that forgot to select merge patch is caught.
 * - No authentication, authorization, watch, PUT, dryRun, managedFields,
 *   field selectors or event TTL (use {@link FakeApiServer.expireEvents}).
 * - Error messages follow the Go sources closely but not byte for byte
 *   (Go's `%#v` rendering of structs is approximated).
 * - An injected 429 is a `Status` (as `apierrors.NewTooManyRequests` gives);
 *   the real max-in-flight and priority-and-fairness filters answer theirs as
 *   `text/plain` "Too many requests, please try again later.". Both carry
 *   `Retry-After`.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

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
  /** A {@link FakeApiServer.hangNext} scenario held this request: it never gets an answer. */
  hung: boolean;
  /** A {@link FakeApiServer.delayNext} scenario delayed this request by this many milliseconds. */
  delayedMs?: number;
  /** The client closed the connection before an answer was written. */
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
  body?: unknown;
  headers?: Record<string, string>;
}

/** The self-signed certificate (for 127.0.0.1) a TLS fake API server presents; `caData` in a kubeconfig trusts it. */
const TLS_CERTIFICATE = readFileSync(new URL('./tls/fake-api-server.crt', import.meta.url));
const TLS_KEY = readFileSync(new URL('./tls/fake-api-server.key', import.meta.url));

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

const GROUP = 'events.k8s.io';
const GROUP_VERSION = `${GROUP}/v1`;
const RESOURCE = `events.${GROUP}`;
const MERGE_PATCH = 'application/merge-patch+json';
const MICRO_TIME_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
const TIME_LAYOUT = '2006-01-02T15:04:05Z07:00';
/** k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no confusable digits. */
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_NAME_PREFIX = 58;
const DEFAULT_WAIT_MS = 2_000;

type Scenario =
  | { kind: 'hang'; match?: RequestMatch }
  | { kind: 'fail'; match?: RequestMatch; status: number; options: FailOptions }
  | { kind: 'loseAnswer'; match?: RequestMatch }
  | { kind: 'truncateAnswer'; match?: RequestMatch; contentLength: 'full' | 'sent' }
  | { kind: 'delay'; match?: RequestMatch; ms: number; applyIfAborted: boolean }
  | { kind: 'respond'; match?: RequestMatch; reply: (request: RecordedRequest) => ScriptedReply };

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Route =
  | { kind: 'collection'; namespace?: string }
  | { kind: 'item'; namespace: string; name: string };

/**
 * The fake API server. Start one per test file (or per test) with
 * {@link FakeApiServer.start}, and {@link FakeApiServer.close} it afterwards.
 */
export class FakeApiServer {
  /** Every request received since start (or the last {@link reset}), in arrival order. */
  readonly requests: RecordedRequest[] = [];

  private readonly store = new Map<string, StoredEvent>();
  private readonly sockets = new Set<Socket>();
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; wake: (completed: boolean) => void }>();
  private readonly waiters = new Set<(error: Error) => void>();
  private readonly changes = new EventEmitter();
  private readonly namespaces?: ReadonlySet<string>;
  private readonly terminating: ReadonlySet<string>;
  private scenarios: Scenario[] = [];
  private outage_?: { until: number; options: OutageOptions };
  /** Applied writes, in the order the store took them (not arrival order: see {@link delayNext}). */
  private readonly appliedWrites: AppliedWrite[] = [];
  private resourceVersion = 1000;
  private closing = false;
  private url_ = '';
  private acceptedToken: string | undefined;
  private connections_ = 0;

  private constructor(
    private readonly server: Server | HttpsServer,
    options: FakeApiServerOptions,
  ) {
    this.namespaces = options.namespaces ? new Set(options.namespaces) : undefined;
    this.terminating = new Set(options.terminatingNamespaces ?? []);
    this.acceptedToken = options.token;
    this.changes.setMaxListeners(0);
  }

  /** Starts a fake API server on 127.0.0.1, on a free port. */
  static async start(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    const server = options.tls ? createTlsServer({ cert: TLS_CERTIFICATE, key: TLS_KEY }) : createServer();
    const fake = new FakeApiServer(server, options);
    server.on('connection', (socket: Socket) => {
      fake.connections_++;
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      fake.onRequest(req, res).catch((error: unknown) => {
        if (res.headersSent || res.destroyed) return;
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(failure(500, 'InternalError', `Internal error occurred: FakeApiServer: ${String(error)}`)));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    fake.url_ = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return fake;
  }

  /** The base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.url_;
  }

  /**
   * A KubeConfig pointing at this server. client-node refuses `http://`
   * servers unless `skipTLSVerify` is set, so it is.
   */
  /**
   * A KubeConfig for this server: with its bearer token, unless `user` says
   * otherwise (an `exec` credential plugin, an `authProvider`, no token).
   */
  kubeConfig(user: Record<string, unknown> = {}): KubeConfig {
    const kubeConfig = new KubeConfig();
    const cluster = this.url.startsWith('https:')
      ? { name: 'fake-api-server', server: this.url, caData: TLS_CERTIFICATE.toString('base64'), skipTLSVerify: false }
      : { name: 'fake-api-server', server: this.url, skipTLSVerify: true };
    kubeConfig.loadFromClusterAndUser(cluster, { name: 'fake-user', token: this.acceptedToken ?? 'fake-token', ...user } as never);
    return kubeConfig;
  }

  /** TCP connections clients have opened to this server so far. */
  get connections(): number {
    return this.connections_;
  }

  /** Closes every open connection, idle keep-alive ones included, as a restarting server or a load balancer would. */
  closeConnections(): this {
    for (const socket of this.sockets) socket.destroy();
    return this;
  }

  /** From now on, accepts only `token` as the bearer token (the others answer 401), as after a rotation. */
  acceptToken(token: string): this {
    this.acceptedToken = token;
    return this;
  }

  /** How many requests the client abandoned before they were answered (hung or delayed ones). */
  get aborted(): number {
    return this.requests.filter((request) => request.aborted).length;
  }

  /** Scripted scenarios no request has used yet. */
  get pendingScenarios(): number {
    return this.scenarios.length;
  }

  /** The recorded requests that `match` picks (all of them without `match`). */
  requestsFor(match?: RequestMatch): RecordedRequest[] {
    return this.requests.filter((request) => matches(match, request));
  }

  /** The verbs of the recorded requests, in order: `['create', 'patch', ...]`. */
  verbs(): Verb[] {
    return this.requests.map((request) => request.verb);
  }

  /** The writes (creates and patches), in order. */
  writes(): RecordedRequest[] {
    return this.requests.filter((request) => request.method === 'POST' || request.method === 'PATCH');
  }

  /**
   * The writes as a recorder's series see them: `POST` for a create, and
   * `PATCH <series.count>` for a patch (`POST <n>` for a create carrying a series).
   */
  seriesWrites(): string[] {
    return this.writes().map((request) => {
      const count = (request.body as { series?: { count?: number } } | undefined)?.series?.count;
      return count === undefined ? request.method : `${request.method} ${count}`;
    });
  }

  /**
   * The series count of one Event as the server holds it: its `series.count`,
   * 1 when it has no series, `undefined` when there is no such Event.
   */
  seriesCount(namespace: string, name: string): number | undefined {
    const event = this.store.get(key(namespace, name));
    return event && (event.series?.count ?? 1);
  }

  /**
   * The series count stored on one Event after each write the store took
   * (create, patch, even a patch that changed nothing), in the order they were
   * applied — a late write lands where it was applied, not where it arrived.
   * So `[1, 2, 2, 4]` shows a count sent twice and a jump, `[1, 3, 2]` a
   * count that went backwards. An Event deleted and created again under the
   * same name continues its history. Unlike {@link seriesWrites} (what was
   * sent), this is what the server held.
   */
  countHistory(namespace: string, name: string): number[] {
    return this.appliedWrites.filter((write) => write.namespace === namespace && write.name === name).map((write) => write.seriesCount);
  }

  /** One line per recorded request, `create ns-a → 201`, `patch ns-a/x.bcdfg → hung, aborted`: for failure messages. */
  log(): string[] {
    return this.requests.map(describeRequest);
  }

  /** Copies of the stored Events, oldest first, of one namespace or of all. */
  events(namespace?: string): StoredEvent[] {
    return [...this.store.values()]
      .filter((event) => namespace === undefined || event.metadata.namespace === namespace)
      .map((event) => structuredClone(event));
  }

  /** A copy of one stored Event. */
  event(namespace: string, name: string): StoredEvent | undefined {
    const event = this.store.get(key(namespace, name));
    return event && structuredClone(event);
  }

  /**
   * Deletes stored Events, as the API server's event TTL does, so that a later
   * PATCH of them answers 404. Returns how many were deleted.
   */
  expireEvents(filter: (event: StoredEvent) => boolean = () => true): number {
    let expired = 0;
    for (const [storeKey, event] of this.store) {
      if (filter(structuredClone(event))) {
        this.store.delete(storeKey);
        expired++;
      }
    }
    return expired;
  }

  /**
   * The next request that `match` picks gets no answer: it stays open until the
   * client aborts it (then {@link RecordedRequest.aborted} is set) or the server
   * closes. The request is not applied.
   */
  hangNext(match?: RequestMatch): this {
    this.scenarios.push({ kind: 'hang', match });
    return this;
  }

  /**
   * The next request that `match` picks is answered `status` with a Status body
   * like the real server's for that code, and is not applied. The reason and
   * message can be given, positionally or as {@link FailOptions} (which can
   * also set `Retry-After`).
   *
   * @example
   * server.failNext(403, 'POST', 'Forbidden', 'no create for you');
   * server.failNext(429, 'PATCH', { retryAfterSeconds: 2 }); // Retry-After: 2
   */
  failNext(status: number, match?: RequestMatch, reason?: string | FailOptions, message?: string): this {
    const options = typeof reason === 'object' ? { ...reason } : { reason, message };
    this.scenarios.push({ kind: 'fail', match, status, options });
    return this;
  }

  /**
   * The next `times` requests that `match` picks are answered as
   * {@link failNext} answers one (e.g. a 503 outage of three requests):
   * `times` consecutive `failNext` scenarios.
   */
  failNextTimes(times: number, status: number, match?: RequestMatch, options: FailOptions = {}): this {
    for (let i = 0; i < times; i++) this.failNext(status, match, options);
    return this;
  }

  /**
   * The next request that `match` picks is applied as usual (the Event is
   * created or patched), then the connection is reset with no answer at all:
   * the server applied it but the answer was lost. The client sees a network
   * error (undici's fetch: `TypeError: fetch failed`, cause `ECONNRESET` or
   * `other side closed`). A request that fails (a 409, a 422) loses its
   * failure the same way.
   */
  loseAnswerNext(match?: RequestMatch): this {
    this.scenarios.push({ kind: 'loseAnswer', match });
    return this;
  }

  /**
   * The next request that `match` picks is applied and answered with its
   * usual status and headers, but only the first half of its JSON body is sent
   * before the connection is closed, so the client cannot read it: see
   * {@link TruncateOptions} for the two ways to cut it.
   */
  truncateAnswerNext(match?: RequestMatch, options: TruncateOptions = {}): this {
    this.scenarios.push({ kind: 'truncateAnswer', match, contentLength: options.contentLength ?? 'full' });
    return this;
  }

  /**
   * For the next `ms` milliseconds (by `Date.now()`, so Jest's fake clock
   * drives it) every request that `options.match` picks is answered
   * `options.status` (a Status as {@link failNext} gives, with its
   * {@link FailOptions}), or, without a status, has its connection reset as
   * soon as it has arrived (the server is unreachable). Such requests are
   * recorded, not applied, and use no scenario. Afterwards the server answers
   * normally again. A new outage replaces the current one.
   *
   * @example
   * server.outage(200);                                         // resets
   * server.outage(1_000, { status: 503, retryAfterSeconds: 1 }); // 503s
   */
  outage(ms: number, options: OutageOptions = {}): this {
    this.outage_ = { until: Date.now() + ms, options: { ...options } };
    return this;
  }

  /** Ends an {@link outage} before its time. */
  endOutage(): this {
    this.outage_ = undefined;
    return this;
  }

  /**
   * The next request that `match` picks is handled `ms` milliseconds late. By
   * default it is applied even if the client left meanwhile, as the real server
   * may finish a write whose client disconnected; `applyIfAborted: false` drops it.
   */
  delayNext(ms: number, match?: RequestMatch, options: { applyIfAborted?: boolean } = {}): this {
    this.scenarios.push({ kind: 'delay', match, ms, applyIfAborted: options.applyIfAborted ?? true });
    return this;
  }

  /** The next request that `match` picks gets whatever `reply` returns, and is not applied. */
  respondNext(match: RequestMatch | undefined, reply: (request: RecordedRequest) => ScriptedReply): this {
    this.scenarios.push({ kind: 'respond', match, reply });
    return this;
  }

  /**
   * Resolves with the matching requests once at least `count` of them have
   * arrived (bodies read); rejects after `timeoutMs`.
   */
  waitForRequests(count: number, match?: RequestMatch, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
    return this.waitUntil(
      () => {
        const found = this.requestsFor(match);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} matching request(s)`,
    );
  }

  /** Resolves once the client has aborted at least `count` requests; rejects after `timeoutMs`. */
  waitForAborted(count = 1, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
    return this.waitUntil(
      () => {
        const found = this.requests.filter((request) => request.aborted);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} aborted request(s)`,
    );
  }

  /** Forgets requests, stored Events, count histories, unused scenarios and any outage. resourceVersions keep increasing. */
  reset(): void {
    this.requests.splice(0);
    this.store.clear();
    this.appliedWrites.splice(0);
    this.scenarios = [];
    this.outage_ = undefined;
    this.notify();
  }

  /** Stops the server, destroying open connections (hung requests included) and pending waits. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.wake(false);
    }
    this.sleepers.clear();
    for (const fail of [...this.waiters]) fail(new Error('FakeApiServer closed'));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let record: RecordedRequest | undefined;
    let clientGone = false;
    let cutByServer = false;
    res.once('close', () => {
      if (res.writableFinished || this.closing || cutByServer) return;
      clientGone = true;
      if (record) {
        record.aborted = true;
        this.notify();
      }
    });

    let rawBody: string;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      rawBody = Buffer.concat(chunks).toString('utf8');
    } catch {
      return;
    }

    const url = new URL(req.url ?? '/', 'http://fake');
    const route = parseRoute(url.pathname);
    const method = req.method ?? 'GET';
    const contentType = req.headers['content-type'];
    record = {
      index: this.requests.length,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      verb: verbOf(method, route),
      namespace: route?.namespace,
      name: route?.kind === 'item' ? route.name : undefined,
      contentType,
      headers: req.headers,
      body: parseBody(rawBody),
      rawBody,
      receivedAt: new Date(),
      hung: false,
      aborted: clientGone,
    };
    this.requests.push(record);
    this.notify();

    if (this.acceptedToken !== undefined && req.headers.authorization !== `Bearer ${this.acceptedToken}`) {
      // As the real server's authentication filter: a Status with no reason of the API's own.
      this.send(res, record, { status: 401, body: failure(401, 'Unauthorized', 'Unauthorized') });
      return;
    }

    const outage = this.currentOutage(record);
    if (outage) {
      if (outage.status !== undefined) {
        this.send(res, record, injectedFailure(record, outage.status, outage));
      } else {
        cutByServer = true;
        this.resetConnection(res, record);
      }
      return;
    }

    const scenario = this.takeScenario(record);
    switch (scenario?.kind) {
      case 'hang':
        record.hung = true;
        this.notify();
        return;
      case 'fail':
        this.send(res, record, injectedFailure(record, scenario.status, scenario.options));
        return;
      case 'loseAnswer': {
        const answer = this.handle(record, route);
        cutByServer = true;
        record.status = answer.status;
        record.response = answer.body;
        this.resetConnection(res, record);
        return;
      }
      case 'truncateAnswer':
        cutByServer = true;
        this.sendTruncated(res, record, this.handle(record, route), scenario.contentLength);
        return;
      case 'respond': {
        const reply = scenario.reply(record);
        this.send(res, record, { status: reply.status, body: reply.body, headers: reply.headers });
        return;
      }
      case 'delay': {
        record.delayedMs = scenario.ms;
        const completed = await this.sleep(scenario.ms);
        if (!completed || (clientGone && !scenario.applyIfAborted)) return;
        break;
      }
    }
    this.send(res, record, this.handle(record, route));
  }

  private handle(request: RecordedRequest, route: Route | undefined): Reply {
    if (!route) return notFoundPath();
    if (route.kind === 'collection') {
      if (request.method === 'GET') return this.list(route.namespace);
      if (request.method === 'POST' && route.namespace !== undefined) return this.create(request, route.namespace);
      return methodNotAllowed();
    }
    switch (request.method) {
      case 'GET':
        return this.get(route.namespace, route.name);
      case 'PATCH':
        return this.patch(request, route.namespace, route.name);
      case 'DELETE':
        return this.delete(route.namespace, route.name);
      default:
        return methodNotAllowed();
    }
  }

  private create(request: RecordedRequest, namespace: string): Reply {
    let raw: unknown;
    try {
      raw = JSON.parse(request.rawBody);
    } catch (error) {
      return reply(400, badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`));
    }
    if (!isObject(raw)) {
      return reply(400, badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(raw)} into Go value of type struct`));
    }
    const decoded = decodeEvent(raw);
    if (typeof decoded === 'string') {
      return reply(400, badRequest(`Event in version "v1" cannot be handled as a Event: ${decoded}`));
    }
    const { event, unknownFields } = decoded;
    if (event.metadata.namespace && event.metadata.namespace !== namespace) {
      return reply(400, badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    }
    event.metadata.namespace = namespace;
    if (!this.namespaceExists(namespace)) {
      return reply(404, failure(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' }));
    }
    if (this.terminating.has(namespace)) {
      return reply(
        403,
        failure(403, 'Forbidden', `${RESOURCE} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
          group: GROUP,
          kind: 'events',
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
        }),
      );
    }
    if (!event.metadata.name && event.metadata.generateName) {
      event.metadata.name = generateName(event.metadata.generateName);
    }
    const name = event.metadata.name ?? '';
    const errors = validateEventCreate(event, namespace);
    if (errors.length > 0) return reply(422, invalid('Event', name, errors));
    if (this.store.has(key(namespace, name))) {
      return reply(409, failure(409, 'AlreadyExists', `${RESOURCE} "${name}" already exists`, { name, group: GROUP, kind: 'events' }));
    }
    const stored = canonicalEvent({
      ...event,
      metadata: {
        ...event.metadata,
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: this.nextResourceVersion(),
        creationTimestamp: formatTime(Date.now()),
      },
    });
    this.store.set(key(namespace, name), stored);
    this.recordApplied(request, stored);
    return { status: 201, body: structuredClone(stored), headers: warningHeaders(unknownFields) };
  }

  private patch(request: RecordedRequest, namespace: string, name: string): Reply {
    const contentType = (request.contentType ?? '').split(';')[0]!.trim();
    if (contentType !== MERGE_PATCH) {
      return reply(
        415,
        failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${MERGE_PATCH}`),
      );
    }
    let patch: unknown;
    try {
      patch = JSON.parse(request.rawBody);
    } catch {
      return reply(400, badRequest('Invalid JSON Patch'));
    }
    if (!isObject(patch)) return reply(400, badRequest('Invalid JSON Patch'));
    const current = this.store.get(key(namespace, name));
    if (!current) return reply(404, notFound(name));

    const patched = mergePatch(structuredClone(current), patch);
    const decoded = decodeEvent(patched);
    if (typeof decoded === 'string') {
      return reply(422, invalid('', '', [fieldInvalid('patch', JSON.stringify(patched), decoded)]));
    }
    const { event, unknownFields } = decoded;
    event.metadata.resourceVersion ??= current.metadata.resourceVersion;
    if (event.metadata.resourceVersion !== current.metadata.resourceVersion) {
      return reply(
        409,
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${RESOURCE} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name, group: GROUP, kind: 'events' },
        ),
      );
    }
    const updated = canonicalEvent(event as StoredEvent);
    const errors = validateEventUpdate(updated, current);
    if (errors.length > 0) return reply(422, invalid('Event', name, errors));
    if (!deepEqual(updated, current)) {
      updated.metadata.resourceVersion = this.nextResourceVersion();
      this.store.set(key(namespace, name), updated);
    }
    const stored = this.store.get(key(namespace, name))!;
    this.recordApplied(request, stored);
    return { status: 200, body: structuredClone(stored), headers: warningHeaders(unknownFields) };
  }

  private get(namespace: string, name: string): Reply {
    const event = this.store.get(key(namespace, name));
    return event ? reply(200, structuredClone(event)) : reply(404, notFound(name));
  }

  private list(namespace: string | undefined): Reply {
    const items = this.events(namespace).map(({ kind: _kind, apiVersion: _apiVersion, ...item }) => item);
    return reply(200, { kind: 'EventList', apiVersion: GROUP_VERSION, metadata: { resourceVersion: String(this.resourceVersion) }, items });
  }

  private delete(namespace: string, name: string): Reply {
    const event = this.store.get(key(namespace, name));
    if (!event) return reply(404, notFound(name));
    this.store.delete(key(namespace, name));
    this.nextResourceVersion();
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: GROUP, kind: 'events', uid: event.metadata.uid },
      code: 200,
    };
    return reply(200, status);
  }

  private namespaceExists(namespace: string): boolean {
    return this.namespaces === undefined || this.namespaces.has(namespace);
  }

  private nextResourceVersion(): string {
    this.resourceVersion += 1;
    return String(this.resourceVersion);
  }

  private recordApplied(request: RecordedRequest, stored: StoredEvent): void {
    const write: AppliedWrite = {
      namespace: stored.metadata.namespace,
      name: stored.metadata.name,
      resourceVersion: stored.metadata.resourceVersion,
      seriesCount: stored.series?.count ?? 1,
    };
    request.applied = write;
    this.appliedWrites.push(write);
  }

  private currentOutage(request: RecordedRequest): OutageOptions | undefined {
    if (!this.outage_) return undefined;
    if (Date.now() >= this.outage_.until) {
      this.outage_ = undefined;
      return undefined;
    }
    return matches(this.outage_.options.match, request) ? this.outage_.options : undefined;
  }

  /** Resets the request's connection (TCP RST) without writing anything. */
  private resetConnection(res: ServerResponse, request: RecordedRequest): void {
    request.answerCut = 'reset';
    this.notify();
    const socket = res.socket ?? res.req.socket;
    if (!socket || socket.destroyed) return;
    if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
  }

  /** Sends the status and headers of `answer` and half its body, then closes the connection. */
  private sendTruncated(res: ServerResponse, request: RecordedRequest, { status, body, headers }: Reply, contentLength: 'full' | 'sent'): void {
    request.status = status;
    request.response = body;
    request.answerCut = 'truncated';
    this.notify();
    if (res.destroyed || res.writableEnded) return;
    const payload = Buffer.from(body === undefined ? '' : JSON.stringify(body), 'utf8');
    const half = payload.subarray(0, Math.floor(payload.length / 2));
    const common = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers };
    if (contentLength === 'sent') {
      res.writeHead(status, { ...common, 'Content-Length': String(half.length), Connection: 'close' });
      res.end(half);
      return;
    }
    res.writeHead(status, { ...common, 'Content-Length': String(payload.length) });
    res.write(half, () => res.socket?.destroy());
  }

  private takeScenario(request: RecordedRequest): Scenario | undefined {
    const index = this.scenarios.findIndex((scenario) => matches(scenario.match, request));
    return index < 0 ? undefined : this.scenarios.splice(index, 1)[0];
  }

  private send(res: ServerResponse, request: RecordedRequest, { status, body, headers }: Reply): void {
    request.status = status;
    request.response = body;
    this.notify();
    if (res.destroyed || res.writableEnded) return;
    const payload = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers });
    res.end(payload);
  }

  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve(true);
        }, ms),
        wake: resolve,
      };
      this.sleepers.add(sleeper);
    });
  }

  private notify(): void {
    this.changes.emit('change');
  }

  private waitUntil<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    if (this.closing) return Promise.reject(new Error('FakeApiServer closed'));
    return new Promise<T>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.changes.off('change', onChange);
        this.waiters.delete(fail);
      };
      const fail = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onChange = () => {
        const value = probe();
        if (value === undefined) return;
        cleanup();
        resolve(value);
      };
      const timer = setTimeout(
        () => fail(new Error(`FakeApiServer: no ${what} after ${timeoutMs} ms; requests: ${JSON.stringify(this.log())}`)),
        timeoutMs,
      );
      this.changes.on('change', onChange);
      this.waiters.add(fail);
    });
  }
}

function matches(match: RequestMatch | undefined, request: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === 'function') return match(request);
  return match === request.method || match === request.verb;
}

function describeRequest(request: RecordedRequest): string {
  const target = `${request.namespace ?? '*'}${request.name ? `/${request.name}` : ''}`;
  const outcome = request.status !== undefined ? String(request.status) : request.hung ? 'hung' : request.answerCut ?? 'pending';
  const cut = request.status !== undefined && request.answerCut ? `, answer ${request.answerCut === 'reset' ? 'lost' : 'truncated'}` : '';
  return `${request.verb} ${target} → ${outcome}${cut}${request.aborted ? ', aborted' : ''}`;
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function parseRoute(pathname: string): Route | undefined {
  const prefix = `/apis/${GROUP_VERSION}/`;
  if (!pathname.startsWith(prefix)) return undefined;
  const parts = pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  if (parts.length === 1 && parts[0] === 'events') return { kind: 'collection' };
  if (parts.length < 3 || parts[0] !== 'namespaces' || parts[2] !== 'events' || !parts[1]) return undefined;
  if (parts.length === 3) return { kind: 'collection', namespace: parts[1] };
  if (parts.length === 4 && parts[3]) return { kind: 'item', namespace: parts[1], name: parts[3] };
  return undefined;
}

function verbOf(method: string, route: Route | undefined): Verb {
  if (!route) return 'unknown';
  if (route.kind === 'collection') {
    if (method === 'GET') return 'list';
    if (method === 'POST') return 'create';
    return 'unknown';
  }
  const verbs: Record<string, Verb> = { GET: 'get', PATCH: 'patch', PUT: 'update', DELETE: 'delete' };
  return verbs[method] ?? 'unknown';
}

function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}

function warningHeaders(unknownFields: string[]): Record<string, string> | undefined {
  if (unknownFields.length === 0) return undefined;
  return { Warning: unknownFields.map((field) => `299 - "unknown field \\"${field}\\""`).join(', ') };
}

// ---------------------------------------------------------------------------
// Status bodies

function reply(status: number, body: unknown): Reply {
  return { status, body };
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details && { details }), code };
}

function badRequest(message: string): Status {
  return failure(400, 'BadRequest', message);
}

function notFound(name: string): Status {
  return failure(404, 'NotFound', `${RESOURCE} "${name}" not found`, { name, group: GROUP, kind: 'events' });
}

function notFoundPath(): Reply {
  return reply(404, failure(404, 'NotFound', 'the server could not find the requested resource', {}));
}

function methodNotAllowed(): Reply {
  return reply(405, failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

function invalid(kind: string, name: string, errors: FieldError[]): Status {
  const messages = [...new Set(errors.map(errorString))];
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (kind) details.kind = kind;
  details.causes = errors.map((error) => ({ reason: error.type, message: errorBody(error), field: error.field }));
  return failure(422, 'Invalid', `${kind} "${name}" is invalid: ${aggregate}`, details);
}

const DEFAULT_REASONS: Record<number, string> = {
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
function injectedFailure(request: RecordedRequest, code: number, options: FailOptions = {}): Reply {
  const reason = options.reason ?? DEFAULT_REASONS[code] ?? 'Unknown';
  const retryAfterSeconds = options.retryAfterSeconds ?? (code === 429 ? 1 : 0);
  const answer = injectedStatus(request, code, reason, options.message);
  if (retryAfterSeconds <= 0) return answer;
  const status = answer.body as Status;
  return {
    status: answer.status,
    body: { ...status, details: { ...status.details, retryAfterSeconds } },
    headers: { ...answer.headers, 'Retry-After': String(retryAfterSeconds) },
  };
}

function injectedStatus(request: RecordedRequest, code: number, reason: string, message?: string): Reply {
  const name = request.name ?? '';
  const resource = { ...(name ? { name } : {}), group: GROUP, kind: 'events' };
  const named = name ? `${RESOURCE} "${name}"` : RESOURCE;
  const injected = 'injected by FakeApiServer.failNext';
  switch (reason) {
    case 'NotFound':
      return reply(code, failure(code, reason, message ?? (name ? `${named} not found` : 'the server could not find the requested resource'), name ? resource : {}));
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
        failure(code, reason, message ?? `Operation cannot be fulfilled on ${named}: the object has been modified; please apply your changes to the latest version and try again`, resource),
      );
    case 'AlreadyExists':
      return reply(code, failure(code, reason, message ?? `${named} already exists`, resource));
    case 'Invalid':
      return reply(code, invalid('Event', name, [fieldInvalid('metadata', '', message ?? injected)]));
    case 'TooManyRequests':
      return reply(code, failure(code, reason, message ?? 'Too many requests, please try again later.'));
    case 'InternalError':
      return reply(code, failure(code, reason, `Internal error occurred: ${message ?? injected}`, { causes: [{ message: message ?? injected }] }));
    case 'ServiceUnavailable':
      return reply(code, failure(code, reason, message ?? 'the server is currently unable to handle the request'));
    case 'Timeout':
      return reply(
        code,
        failure(code, reason, message ?? 'the server was unable to return a response in the time allotted, but may still be processing the request', {}),
      );
    case 'Unauthorized':
      return reply(code, failure(code, reason, message ?? 'Unauthorized'));
    default:
      return reply(code, failure(code, reason, message ?? `${injected}: HTTP ${code}`));
  }
}

// ---------------------------------------------------------------------------
// Field errors, as k8s.io/apimachinery/pkg/util/validation/field renders them

type BadValue = string | number | { go: string };

interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueTooLong';
  field: string;
  bad?: BadValue;
  detail: string;
}

function fieldRequired(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

function fieldInvalid(field: string, bad: BadValue, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, bad, detail };
}

function errorBody(error: FieldError): string {
  let body: string;
  switch (error.type) {
    case 'FieldValueRequired':
      body = 'Required value';
      break;
    case 'FieldValueTooLong':
      body = 'Too long';
      break;
    default: {
      const bad = error.bad ?? '';
      body = `Invalid value: ${typeof bad === 'string' ? goQuote(bad) : typeof bad === 'number' ? String(bad) : bad.go}`;
    }
  }
  return error.detail ? `${body}: ${error.detail}` : body;
}

function errorString(error: FieldError): string {
  return `${error.field}: ${errorBody(error)}`;
}

function goQuote(value: string): string {
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------
// Names, as k8s.io/apimachinery/pkg/util/validation checks them

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const QUALIFIED_NAME_ERROR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function fullMatch(fmt: string, value: string): boolean {
  return new RegExp(`^(?:${fmt})$`).test(value);
}

function regexError(message: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${fmt}')`;
  return `${message} (e.g. ${examples.map((example) => `'${example}', `).join('or ')}regex used for validation is '${fmt}')`;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function isDns1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 253) errors.push(maxLenError(253));
  if (!fullMatch(DNS1123_SUBDOMAIN_FMT, value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errors;
}

function isDns1123Label(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 63) errors.push(maxLenError(63));
  if (!fullMatch(DNS1123_LABEL_FMT, value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errors;
}

function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...isDns1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (bytes(name) > 63) errors.push(`name part ${maxLenError(63)}`);
  if (!fullMatch(QUALIFIED_NAME_FMT, name)) {
    errors.push(`name part ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}

function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 63) errors.push(maxLenError(63));
  if (!fullMatch(LABEL_VALUE_FMT, value)) {
    errors.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errors;
}

/** apimachinery's NameIsDNSSubdomain: a generateName may end in '-' (masked), nothing else is forgiven. */
function nameIsDnsSubdomain(name: string, prefix: boolean): string[] {
  const masked = prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  return isDns1123Subdomain(masked);
}

// ---------------------------------------------------------------------------
// Validation, as k8s.io/kubernetes/pkg/apis/core/validation/events.go does it
// for events.k8s.io/v1 (core field names: involvedObject, message, source...)

function validateMetadataCommon(metadata: Partial<EventMetadata>): FieldError[] {
  const errors: FieldError[] = [];
  if (!metadata.namespace) errors.push(fieldRequired('metadata.namespace'));
  else for (const message of isDns1123Label(metadata.namespace)) errors.push(fieldInvalid('metadata.namespace', metadata.namespace, message));
  for (const [labelKey, value] of Object.entries(metadata.labels ?? {})) {
    for (const message of isQualifiedName(labelKey)) errors.push(fieldInvalid('metadata.labels', labelKey, message));
    for (const message of isValidLabelValue(value)) errors.push(fieldInvalid('metadata.labels', value, message));
  }
  let annotationBytes = 0;
  for (const [annotationKey, value] of Object.entries(metadata.annotations ?? {})) {
    for (const message of isQualifiedName(annotationKey.toLowerCase())) errors.push(fieldInvalid('metadata.annotations', annotationKey, message));
    annotationBytes += bytes(annotationKey) + bytes(value);
  }
  if (annotationBytes > 256 * 1024) {
    errors.push({ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: `may not be more than ${256 * 1024} bytes` });
  }
  return errors;
}

function legacyValidateEvent(event: DecodedEvent, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const regardingNamespace = event.regarding.namespace ?? '';
  if (event.eventTime === null) {
    if (regardingNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== regardingNamespace) {
      errors.push(fieldInvalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    }
  } else {
    if (regardingNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      errors.push(fieldInvalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    }
    const controller = event.reportingController ?? '';
    if (controller === '') errors.push(fieldRequired('reportingController'));
    for (const message of isQualifiedName(controller)) errors.push(fieldInvalid('reportingController', controller, message));
    for (const [field, value, limit] of [
      ['reportingInstance', event.reportingInstance, 128],
      ['action', event.action, 128],
      ['reason', event.reason, 128],
    ] as const) {
      if (!value) errors.push(fieldRequired(field));
      if (value && bytes(value) > limit) errors.push(fieldInvalid(field, '', `can have at most ${limit} characters`));
    }
    if (event.note && bytes(event.note) > 1024) errors.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  for (const message of isDns1123Subdomain(namespace)) errors.push(fieldInvalid('namespace', namespace, message));
  return errors;
}

function validateSeries(event: DecodedEvent): FieldError[] {
  const errors: FieldError[] = [];
  if (event.series) {
    if (event.series.count < 2) errors.push(fieldInvalid('series.count', '', 'should be at least 2'));
    if (event.series.lastObservedTime === null) errors.push(fieldRequired('series.lastObservedTime'));
  }
  return errors;
}

function validateEventCreate(event: DecodedEvent, namespace: string): FieldError[] {
  const errors = legacyValidateEvent(event, namespace);
  const { metadata } = event;
  if (metadata.generateName) {
    for (const message of nameIsDnsSubdomain(metadata.generateName, true)) {
      errors.push(fieldInvalid('metadata.generateName', metadata.generateName, message));
    }
  }
  if (!metadata.name) errors.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const message of nameIsDnsSubdomain(metadata.name, false)) errors.push(fieldInvalid('metadata.name', metadata.name, message));
  errors.push(...validateMetadataCommon(metadata));
  errors.push(...validateSeries(event));
  if (event.eventTime === null) errors.push(fieldRequired('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') {
    errors.push(fieldInvalid('type', '', `has invalid value: ${event.type ?? ''}`));
  }
  if (event.deprecatedFirstTimestamp !== null) errors.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (event.deprecatedLastTimestamp !== null) errors.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (event.deprecatedCount) errors.push(fieldInvalid('count', '', 'needs to be unset'));
  if (event.deprecatedSource.component || event.deprecatedSource.host) errors.push(fieldInvalid('source', '', 'needs to be unset'));
  return errors;
}

function validateEventUpdate(updated: StoredEvent, old: StoredEvent): FieldError[] {
  const errors = legacyValidateEvent(updated, updated.metadata.namespace);
  const newMeta = updated.metadata;
  const oldMeta = old.metadata;
  if (!newMeta.resourceVersion) errors.push(fieldInvalid('metadata.resourceVersion', '', 'must be specified for an update'));
  for (const field of ['name', 'namespace', 'uid', 'generateName'] as const) {
    if ((newMeta[field] ?? '') !== (oldMeta[field] ?? '')) {
      errors.push(fieldInvalid(`metadata.${field}`, newMeta[field] ?? '', 'field is immutable'));
    }
  }
  if (newMeta.creationTimestamp !== oldMeta.creationTimestamp) {
    errors.push(fieldInvalid('metadata.creationTimestamp', { go: goTime(newMeta.creationTimestamp) }, 'field is immutable'));
  }
  errors.push(...validateMetadataCommon(newMeta));
  if (!deepEqual(updated.series, old.series)) errors.push(...validateSeries(updated));

  const immutable = (field: string, newValue: unknown, oldValue: unknown, bad: BadValue) => {
    if (!deepEqual(newValue ?? null, oldValue ?? null)) errors.push(fieldInvalid(field, bad, 'field is immutable'));
  };
  immutable('involvedObject', updated.regarding, old.regarding, { go: goObjectReference(updated.regarding) });
  immutable('reason', updated.reason, old.reason, updated.reason ?? '');
  immutable('message', updated.note, old.note, updated.note ?? '');
  immutable('source', updated.deprecatedSource, old.deprecatedSource, { go: goEventSource(updated.deprecatedSource) });
  immutable('firstTimestamp', updated.deprecatedFirstTimestamp, old.deprecatedFirstTimestamp, { go: goTime(updated.deprecatedFirstTimestamp) });
  immutable('lastTimestamp', updated.deprecatedLastTimestamp, old.deprecatedLastTimestamp, { go: goTime(updated.deprecatedLastTimestamp) });
  immutable('count', updated.deprecatedCount ?? 0, old.deprecatedCount ?? 0, updated.deprecatedCount ?? 0);
  immutable('reason', updated.reason, old.reason, updated.reason ?? '');
  immutable('type', updated.type, old.type, updated.type ?? '');
  immutable('eventTime', updated.eventTime, old.eventTime, { go: goTime(updated.eventTime) });
  immutable('action', updated.action, old.action, updated.action ?? '');
  immutable('related', updated.related, old.related, updated.related ? { go: goObjectReference(updated.related) } : 'null');
  immutable('reportingController', updated.reportingController, old.reportingController, updated.reportingController ?? '');
  immutable('reportingInstance', updated.reportingInstance, old.reportingInstance, updated.reportingInstance ?? '');
  return errors;
}

function goObjectReference(reference: ObjectReference): string {
  const fields = [
    ['Kind', reference.kind],
    ['Namespace', reference.namespace],
    ['Name', reference.name],
    ['UID', reference.uid],
    ['APIVersion', reference.apiVersion],
    ['ResourceVersion', reference.resourceVersion],
    ['FieldPath', reference.fieldPath],
  ];
  return `core.ObjectReference{${fields.map(([field, value]) => `${field}:${goQuote(value ?? '')}`).join(', ')}}`;
}

function goEventSource(source: { component?: string; host?: string }): string {
  return `core.EventSource{Component:${goQuote(source.component ?? '')}, Host:${goQuote(source.host ?? '')}}`;
}

/** Go's time.Time String() of a UTC time given as RFC 3339. */
function goTime(value: string | null | undefined): string {
  if (!value) return '0001-01-01 00:00:00 +0000 UTC';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(value);
  if (!match) return value;
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  return `${match[1]} ${match[2]}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

// ---------------------------------------------------------------------------
// Decoding, as the API server's JSON decoder does it into an events.k8s.io/v1 Event

type DecodedMetadata = Partial<EventMetadata>;
type DecodedEvent = Omit<StoredEvent, 'metadata'> & { metadata: DecodedMetadata };

class DecodeError extends Error {}

const KNOWN_FIELDS = new Set([
  'kind',
  'apiVersion',
  'metadata',
  'eventTime',
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  'regarding',
  'related',
  'note',
  'type',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
]);

/** Decodes an Event, or returns the decoder's error message. */
function decodeEvent(raw: Record<string, unknown>): { event: DecodedEvent; unknownFields: string[] } | string {
  try {
    const metadata = optionalObject(raw, 'metadata', 'Event.metadata') ?? {};
    const series = optionalObject(raw, 'series', 'Event.series');
    const regarding = optionalObject(raw, 'regarding', 'Event.regarding');
    const related = optionalObject(raw, 'related', 'Event.related');
    const source = optionalObject(raw, 'deprecatedSource', 'Event.deprecatedSource') ?? {};
    const event: DecodedEvent = {
      kind: 'Event',
      apiVersion: GROUP_VERSION,
      metadata: {
        name: optionalString(metadata, 'name', 'ObjectMeta.metadata.name'),
        generateName: optionalString(metadata, 'generateName', 'ObjectMeta.metadata.generateName'),
        namespace: optionalString(metadata, 'namespace', 'ObjectMeta.metadata.namespace'),
        uid: optionalString(metadata, 'uid', 'ObjectMeta.metadata.uid'),
        resourceVersion: optionalString(metadata, 'resourceVersion', 'ObjectMeta.metadata.resourceVersion'),
        creationTimestamp: decodeTime(metadata['creationTimestamp'], TIME_LAYOUT) ?? undefined,
        labels: optionalStringMap(metadata, 'labels', 'ObjectMeta.metadata.labels'),
        annotations: optionalStringMap(metadata, 'annotations', 'ObjectMeta.metadata.annotations'),
      },
      eventTime: decodeTime(raw['eventTime'], MICRO_TIME_LAYOUT),
      series: series && {
        count: int32(series['count'], 'EventSeries.series.count'),
        lastObservedTime: decodeTime(series['lastObservedTime'], MICRO_TIME_LAYOUT),
      },
      reportingController: optionalString(raw, 'reportingController', 'Event.reportingController'),
      reportingInstance: optionalString(raw, 'reportingInstance', 'Event.reportingInstance'),
      action: optionalString(raw, 'action', 'Event.action'),
      reason: optionalString(raw, 'reason', 'Event.reason'),
      regarding: decodeReference(regarding, 'Event.regarding'),
      related: related && decodeReference(related, 'Event.related'),
      note: optionalString(raw, 'note', 'Event.note'),
      type: optionalString(raw, 'type', 'Event.type'),
      deprecatedSource: {
        component: optionalString(source, 'component', 'Event.deprecatedSource.component'),
        host: optionalString(source, 'host', 'Event.deprecatedSource.host'),
      },
      deprecatedFirstTimestamp: decodeTime(raw['deprecatedFirstTimestamp'], TIME_LAYOUT),
      deprecatedLastTimestamp: decodeTime(raw['deprecatedLastTimestamp'], TIME_LAYOUT),
      deprecatedCount: raw['deprecatedCount'] == null ? undefined : int32(raw['deprecatedCount'], 'Event.deprecatedCount'),
    };
    return { event, unknownFields: Object.keys(raw).filter((field) => !KNOWN_FIELDS.has(field)) };
  } catch (error) {
    if (error instanceof DecodeError) return error.message;
    throw error;
  }
}

function unmarshalError(value: unknown, goField: string, goType: string): DecodeError {
  const shown = typeof value === 'number' ? `number ${value}` : jsonType(value);
  return new DecodeError(`json: cannot unmarshal ${shown} into Go struct field ${goField} of type ${goType}`);
}

function optionalString(source: Record<string, unknown>, field: string, goField: string): string | undefined {
  const value = source[field];
  if (value == null || value === '') return undefined;
  if (typeof value !== 'string') throw unmarshalError(value, goField, 'string');
  return value;
}

function optionalObject(source: Record<string, unknown>, field: string, goField: string): Record<string, unknown> | undefined {
  const value = source[field];
  if (value == null) return undefined;
  if (!isObject(value)) throw unmarshalError(value, goField, 'struct');
  return value;
}

function optionalStringMap(source: Record<string, unknown>, field: string, goField: string): Record<string, string> | undefined {
  const value = optionalObject(source, field, goField);
  if (!value) return undefined;
  for (const entry of Object.values(value)) {
    if (typeof entry !== 'string') throw unmarshalError(entry, goField, 'string');
  }
  return Object.keys(value).length > 0 ? (value as Record<string, string>) : undefined;
}

function int32(value: unknown, goField: string): number {
  if (value == null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value > 2 ** 31 - 1 || value < -(2 ** 31)) {
    throw unmarshalError(value, goField, 'int32');
  }
  return value;
}

function decodeReference(source: Record<string, unknown> | undefined, goField: string): ObjectReference {
  const reference: ObjectReference = {};
  if (!source) return reference;
  for (const field of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const) {
    const value = optionalString(source, field, `${goField}.${field}`);
    if (value !== undefined) reference[field] = value;
  }
  return reference;
}

/**
 * Go's time.Parse with layout MicroTime (`RFC3339Micro`, exactly six
 * fractional digits) or Time (RFC 3339, optional fraction). Returns the time in
 * UTC, six digits for MicroTime and none for Time, as the server stores them;
 * `null` for JSON null.
 */
function decodeTime(value: unknown, layout: string): string | null {
  if (value == null) return null;
  if (typeof value !== 'string') throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
  const micro = layout === MICRO_TIME_LAYOUT;
  const fail = (rest: string, element: string) =>
    new DecodeError(`parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(rest)} as ${goQuote(element)}`);
  const head = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(value);
  if (!head) throw fail(value, '2006');
  let rest = value.slice(head[0].length);
  let fraction = '';
  if (micro) {
    const digits = /^[.,](\d{6})/.exec(rest);
    if (!digits) throw fail(rest, '.000000');
    fraction = digits[1]!;
    rest = rest.slice(7);
  } else {
    const digits = /^[.,](\d+)/.exec(rest);
    if (digits) rest = rest.slice(digits[0].length);
  }
  const zone = /^(Z|([+-])(\d{2}):(\d{2}))/.exec(rest);
  if (!zone) throw fail(rest, 'Z07:00');
  if (rest.length > zone[0].length) {
    throw new DecodeError(`parsing time ${goQuote(value)}: extra text: ${goQuote(rest.slice(zone[0].length))}`);
  }
  const [year, month, day, hour, minute, second] = head.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const outOfRange = (what: string) => new DecodeError(`parsing time ${goQuote(value)}: ${what} out of range`);
  if (month < 1 || month > 12) throw outOfRange('month');
  if (day < 1 || day > daysInMonth) throw outOfRange('day');
  if (hour > 23) throw outOfRange('hour');
  if (minute > 59) throw outOfRange('minute');
  if (second > 59) throw outOfRange('second');
  let offsetMinutes = 0;
  if (zone[1] !== 'Z') offsetMinutes = (zone[2] === '-' ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4]));
  const utcMs = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const seconds = formatTime(utcMs);
  return micro ? `${seconds.slice(0, -1)}.${fraction}Z` : seconds;
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time marshals. */
function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---------------------------------------------------------------------------
// Canonical form: what the server would encode, in Go's field order

function canonicalEvent(event: DecodedEvent & { metadata: EventMetadata }): StoredEvent {
  const { metadata } = event;
  const canonicalMetadata = compact({
    name: metadata.name,
    generateName: metadata.generateName,
    namespace: metadata.namespace,
    uid: metadata.uid,
    resourceVersion: metadata.resourceVersion,
    creationTimestamp: metadata.creationTimestamp,
    labels: metadata.labels,
    annotations: metadata.annotations,
  }) as unknown as EventMetadata;
  return compact({
    kind: 'Event',
    apiVersion: GROUP_VERSION,
    metadata: canonicalMetadata,
    eventTime: event.eventTime,
    series: event.series,
    reportingController: event.reportingController,
    reportingInstance: event.reportingInstance,
    action: event.action,
    reason: event.reason,
    regarding: compact({ ...event.regarding }),
    related: event.related && compact({ ...event.related }),
    note: event.note,
    type: event.type,
    deprecatedSource: compact({ ...event.deprecatedSource }),
    deprecatedFirstTimestamp: event.deprecatedFirstTimestamp,
    deprecatedLastTimestamp: event.deprecatedLastTimestamp,
    deprecatedCount: event.deprecatedCount || undefined,
  }) as unknown as StoredEvent;
}

/** Drops undefined and empty-string fields (Go's omitempty); keeps nulls. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== '')) as T;
}

// ---------------------------------------------------------------------------
// JSON helpers

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): Record<string, unknown> {
  return mergeValue(target, patch) as Record<string, unknown>;
}

function mergeValue(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete result[field];
    else result[field] = mergeValue(result[field], value);
  }
  return result;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const aKeys = Object.keys(a).filter((k) => a[k] !== undefined);
    const bKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    return aKeys.length === bKeys.length && aKeys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}
