// The fake API server itself: it records requests, plays scripted scenarios and keeps the Events.

import { randomInt, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import type {
  AccessReview,
  AccessReviewReply,
  AppliedWrite,
  FailOptions,
  FakeApiServerOptions,
  OutageOptions,
  RecordedRequest,
  RequestMatch,
  ScriptedReply,
  Status,
  StoredEvent,
  TruncateOptions,
  Verb,
} from './types.js';
import {
  DEFAULT_WAIT_MS,
  GROUP,
  GROUP_VERSION,
  MAX_GENERATE_NAME_PREFIX,
  MERGE_PATCH,
  NAME_SUFFIX_ALPHABET,
  RESOURCE,
  Reply,
  Route,
  Scenario,
} from './protocol.js';
import {
  badRequest,
  failure,
  injectedFailure,
  invalid,
  methodNotAllowed,
  notFound,
  notFoundPath,
  reply,
} from './status.js';
import { fieldInvalid } from './field-errors.js';
import { validateEventCreate, validateEventUpdate } from './event-validation.js';
import { canonicalEvent, decodeEvent, formatTime } from './event-decoding.js';
import { isObject, jsonType, mergePatch } from './json.js';

/** The self-signed certificate (for 127.0.0.1) a TLS fake API server presents; `caData` in a kubeconfig trusts it. */
const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SELF_REVIEW_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
/** Who a request authenticates as, as the fake's SelfSubjectReview answers. */
export const FAKE_USER = 'system:serviceaccount:default:fake-controller';

export const TLS_CERTIFICATE = readFileSync(new URL('./tls/fake-api-server.crt', import.meta.url));
export const TLS_KEY = readFileSync(new URL('./tls/fake-api-server.key', import.meta.url));

/**
 * The fake API server. Start one per test file (or per test) with
 * {@link FakeApiServer.start}, and {@link FakeApiServer.close} it afterwards.
 */
export class FakeApiServer {
  /** Every request received since start (or the last {@link reset}), in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /**
   * The `SelfSubjectAccessReview`s received (a recorder's permission check),
   * in arrival order: kept apart from {@link requests}, which are the
   * Events API's, and from their scenarios.
   */
  readonly accessReviews: AccessReview[] = [];
  /**
   * The method, path and headers of every request received, those of the
   * Events API and the others (access reviews, `SelfSubjectReview`s,
   * `/readyz`) alike, in arrival order.
   */
  readonly requestHeaders: { readonly method: string; readonly path: string; readonly headers: IncomingHttpHeaders }[] =
    [];
  private accessReviewReply: (review: AccessReview) => AccessReviewReply = () => ({ allowed: true });

  private readonly store = new Map<string, StoredEvent>();
  private readonly sockets = new Set<Socket>();
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; wake: (completed: boolean) => void }>();
  private readonly waiters = new Set<(error: Error) => void>();
  private readonly changes = new EventEmitter();
  private readonly namespaces?: ReadonlySet<string>;
  private readonly terminating: ReadonlySet<string>;
  private scenarios: Scenario[] = [];
  private outage_?: { until: number; options: OutageOptions };
  /** What {@link admitPerSecond} admits, and how many it admitted in the current second. */
  private admission?: { perSecond: number; retryAfterSeconds: number; second: number; admitted: number };
  /** Applied writes, in the order the store took them (not arrival order: see {@link delayNext}). */
  private readonly appliedWrites: AppliedWrite[] = [];
  private resourceVersion = 1000;
  private closing = false;
  private listening = true;
  private url_ = '';
  private acceptedToken: string | undefined;
  private connections_ = 0;
  /** Requests whose handler has not returned: a delayed one, say, until its delay ends. */
  private handling = 0;

  /** Started with `refusable`: it may stop listening and get its port back. */
  private readonly refusable: boolean;

  private constructor(
    private readonly server: Server | HttpsServer,
    options: FakeApiServerOptions,
  ) {
    this.namespaces = options.namespaces ? new Set(options.namespaces) : undefined;
    this.terminating = new Set(options.terminatingNamespaces ?? []);
    this.acceptedToken = options.token;
    this.refusable = options.refusable ?? false;
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
      fake.handling++;
      fake
        .onRequest(req, res)
        .catch((error: unknown) => {
          if (res.headersSent || res.destroyed) return;
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify(failure(500, 'InternalError', `Internal error occurred: FakeApiServer: ${String(error)}`)),
          );
        })
        .finally(() => {
          fake.handling--;
          fake.notify();
        });
    });
    await (options.refusable ? listenBelowEphemeralPorts(server) : listenOn(server, 0));
    const { port } = server.address() as AddressInfo;
    fake.url_ = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return fake;
  }

  private ready: boolean | 'hang' = true;
  private readyzAsked = 0;
  private flowHeaders: Record<string, string> = {};

  /**
   * How `SelfSubjectAccessReview`s are answered from now on: allowed, denied,
   * a failure status, or never. Every verb is allowed everywhere unless set.
   */
  answerAccessReviews(reply: (review: AccessReview) => AccessReviewReply): this {
    this.accessReviewReply = reply;
    return this;
  }

  /**
   * Whether `GET /readyz` answers 200 `ok` (the default) or 500, as a
   * kube-apiserver does in the seconds after it starts serving, while its
   * RBAC caches sync and its authorizer denies what its Roles grant; or,
   * with `'hang'`, never (each waits for its client to leave).
   */
  setReady(ready: boolean | 'hang'): this {
    this.ready = ready;
    return this;
  }

  /** How many times `GET /readyz` was asked (it is not among {@link requests}). */
  get readyzRequests(): number {
    return this.readyzAsked;
  }

  /**
   * The API Priority and Fairness headers every Event answer carries from
   * now on, as kube-apiserver names the FlowSchema and priority level a
   * request matched (`X-Kubernetes-PF-FlowSchema-UID`,
   * `X-Kubernetes-PF-PriorityLevel-UID`). Taken as given, so a test can send
   * malformed ones.
   */
  answerInFlow(flowSchemaUid: string, priorityLevelUid: string): this {
    this.flowHeaders = {
      'X-Kubernetes-PF-FlowSchema-UID': flowSchemaUid,
      'X-Kubernetes-PF-PriorityLevel-UID': priorityLevelUid,
    };
    return this;
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
    kubeConfig.loadFromClusterAndUser(cluster, {
      name: 'fake-user',
      token: this.acceptedToken ?? 'fake-token',
      ...user,
    });
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

  /** Forgets the scripted scenarios no request has used yet, keeping the Events and the requests. */
  dropScenarios(): this {
    this.scenarios = [];
    return this;
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
    return this.appliedWrites
      .filter((write) => write.namespace === namespace && write.name === name)
      .map((write) => write.seriesCount);
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
   * The next request that `match` picks has its connection reset as soon as
   * it has arrived, before it is applied: the client sees a network error
   * and cannot tell it from {@link loseAnswerNext}, where it was applied.
   */
  resetNext(match?: RequestMatch): this {
    this.scenarios.push({ kind: 'reset', match });
    return this;
  }

  /**
   * Stops listening and closes every open connection: from now on a client
   * trying to connect is refused (`ECONNREFUSED`), as when the API server
   * is down, until {@link listenAgain}. Hung and delayed requests are let go.
   */
  async stopListening(): Promise<void> {
    // Started on a port the system may hand to another socket, it could not get its port back.
    if (!this.refusable)
      throw new Error('FakeApiServer: stopListening() needs a server started with { refusable: true }');
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again, on the same address, after {@link stopListening}: the server is back. */
  async listenAgain(): Promise<void> {
    if (this.listening || this.closing) return;
    const { port } = new URL(this.url_);
    await listenOn(this.server, Number(port));
    this.listening = true;
  }

  /** Whether the server accepts connections (see {@link stopListening}). */
  get isListening(): boolean {
    return this.listening;
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

  /**
   * From now on the server admits at most `perSecond` requests in each second
   * (by `Date.now()`) and answers the others `429 TooManyRequests` with
   * `Retry-After`, as API Priority and Fairness rejects what a priority
   * level cannot seat. Rejected requests are recorded, not applied.
   * `admitPerSecond(Infinity)` admits everything again.
   */
  admitPerSecond(perSecond: number, options: { retryAfterSeconds?: number } = {}): this {
    const retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.admission = Number.isFinite(perSecond) ? { perSecond, retryAfterSeconds, second: 0, admitted: 0 } : undefined;
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

  /**
   * The next request that `match` picks gets whatever `reply` returns, and is
   * not applied: a JSON body, or a text one (see {@link ScriptedReply.text})
   * as a proxy in front of the server would send.
   */
  respondNext(match: RequestMatch | undefined, reply: (request: RecordedRequest) => ScriptedReply): this {
    this.scenarios.push({ kind: 'respond', match, reply });
    return this;
  }

  /**
   * The next request that `match` picks is answered with a redirect to
   * `location`, with a small HTML body as a proxy in front of the server
   * (a login page, a moved address) would send, and is not applied.
   *
   * @example
   * server.redirectNext(307, 'https://login.example.com/?return=/apis', 'POST');
   */
  redirectNext(status: 301 | 302 | 303 | 307 | 308, location: string, match?: RequestMatch): this {
    const text = `<html><body><a href="${location}">Moved</a>.</body></html>`;
    return this.respondNext(match, () => ({
      status,
      text,
      headers: { Location: location, 'Content-Type': 'text/html; charset=utf-8' },
    }));
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

  /** Resolves once at least `count` SelfSubjectAccessReviews have come; rejects after `timeoutMs`. */
  waitForAccessReviews(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<AccessReview[]> {
    return this.waitUntil(
      () => (this.accessReviews.length >= count ? [...this.accessReviews] : undefined),
      timeoutMs,
      `${count} access review(s)`,
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

  /**
   * Resolves once the server is handling no request: every one that came has
   * been answered, cut, left hanging ({@link hangNext}), or dropped (a
   * {@link delayNext} with `applyIfAborted: false` whose client left), so a
   * delayed write has landed or never will. Rejects after `timeoutMs`.
   */
  waitForFinished(timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
    return this.waitUntil(
      () => (this.handling === 0 ? [...this.requests] : undefined),
      timeoutMs,
      'end to the requests being handled',
    );
  }

  /**
   * Resolves once `holds()` is true, asked each time a request comes or
   * changes (its answer, its store write); rejects after `timeoutMs`, naming
   * `what` and listing the requests.
   */
  async waitFor(holds: () => boolean, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    await this.waitUntil(() => (holds() ? true : undefined), timeoutMs, what);
  }

  /** Forgets requests, stored Events, count histories, unused scenarios and any outage. resourceVersions keep increasing. */
  reset(): void {
    this.requests.splice(0);
    this.accessReviews.splice(0);
    this.requestHeaders.splice(0);
    this.store.clear();
    this.appliedWrites.splice(0);
    this.scenarios = [];
    this.outage_ = undefined;
    this.admission = undefined;
    this.notify();
  }

  /** Stops the server, destroying open connections (hung requests included) and pending waits. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const wasListening = this.listening;
    this.listening = false;
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.wake(false);
    }
    this.sleepers.clear();
    for (const fail of [...this.waiters]) fail(new Error('FakeApiServer closed'));
    await new Promise<void>((resolve) => {
      if (wasListening) this.server.close(() => resolve());
      else resolve();
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
    this.requestHeaders.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
    if (url.pathname === ACCESS_REVIEW_PATH && req.method === 'POST') {
      this.reviewAccess(res, parseBody(rawBody));
      return;
    }
    if (url.pathname === '/readyz' && req.method === 'GET') {
      this.readyzAsked++;
      if (this.ready === 'hang') return;
      res.writeHead(this.ready ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(
        this.ready ? 'ok' : '[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\nreadyz check failed\n',
      );
      return;
    }
    if (url.pathname === SELF_REVIEW_PATH && req.method === 'POST') {
      // Who the request authenticates as, as kube-apiserver answers a SelfSubjectReview (GA since 1.28).
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
          status: { userInfo: { username: FAKE_USER, groups: ['system:serviceaccounts', 'system:authenticated'] } },
        }),
      );
      return;
    }
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

    if (!this.admitted()) {
      const retryAfterSeconds = this.admission!.retryAfterSeconds;
      this.send(res, record, injectedFailure(record, 429, { retryAfterSeconds }));
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
      case 'reset':
        cutByServer = true;
        this.resetConnection(res, record);
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
        if (reply.text !== undefined) {
          await this.sendText(res, record, reply);
          return;
        }
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

  /** A SelfSubjectAccessReview, answered as {@link answerAccessReviews} says (a hung one waits for its client to leave). */
  private reviewAccess(res: ServerResponse, body: unknown): void {
    const attributes = (isObject(body) && isObject(body.spec) && body.spec.resourceAttributes) || {};
    const { verb, namespace, group, resource } = attributes as Record<string, string | undefined>;
    const review: AccessReview = { verb: verb ?? '', namespace, group: group ?? '', resource: resource ?? '' };
    this.accessReviews.push(review);
    this.notify();
    const reply = this.accessReviewReply(review);
    if ('hang' in reply) return;
    if ('status' in reply) {
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(failure(reply.status, reply.reason ?? 'InternalError', 'the review failed')));
      return;
    }
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: isObject(body) ? body.spec : {},
        status: { allowed: reply.allowed },
      }),
    );
  }

  private handle(request: RecordedRequest, route: Route | undefined): Reply {
    if (!route) return notFoundPath();
    if (route.kind === 'collection') {
      if (request.method === 'GET') return this.list(route.namespace, request.query.fieldSelector);
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
      return reply(
        400,
        badRequest(
          `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(raw)} into Go value of type struct`,
        ),
      );
    }
    const decoded = decodeEvent(raw);
    if (typeof decoded === 'string') {
      return reply(400, badRequest(`Event in version "v1" cannot be handled as a Event: ${decoded}`));
    }
    const { event, unknownFields } = decoded;
    if (event.metadata.namespace && event.metadata.namespace !== namespace) {
      return reply(
        400,
        badRequest('the namespace of the provided object does not match the namespace sent on the request'),
      );
    }
    event.metadata.namespace = namespace;
    if (!this.namespaceExists(namespace)) {
      return reply(
        404,
        failure(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' }),
      );
    }
    if (this.terminating.has(namespace)) {
      return reply(
        403,
        failure(
          403,
          'Forbidden',
          `${RESOURCE} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
          {
            group: GROUP,
            kind: 'events',
            causes: [
              {
                reason: 'NamespaceTerminating',
                message: `namespace ${namespace} is being terminated`,
                field: 'metadata.namespace',
              },
            ],
          },
        ),
      );
    }
    if (!event.metadata.name && event.metadata.generateName) {
      event.metadata.name = generateName(event.metadata.generateName);
    }
    const name = event.metadata.name ?? '';
    const errors = validateEventCreate(event, namespace);
    if (errors.length > 0) return reply(422, invalid('Event', name, errors));
    if (this.store.has(key(namespace, name))) {
      return reply(
        409,
        failure(409, 'AlreadyExists', `${RESOURCE} "${name}" already exists`, { name, group: GROUP, kind: 'events' }),
      );
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
    const contentType = (request.contentType ?? '').split(';')[0].trim();
    if (contentType !== MERGE_PATCH) {
      return reply(
        415,
        failure(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: ${MERGE_PATCH}`,
        ),
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
    if (!isDeepStrictEqual(updated, current)) {
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

  /** Lists Events, filtered by the field selectors events.k8s.io/v1 supports that clients use here (`a=b,c=d`). */
  private list(namespace: string | undefined, fieldSelector: string | undefined): Reply {
    const fields: Record<string, (event: StoredEvent) => string | undefined> = {
      'regarding.uid': (event) => event.regarding?.uid,
      'regarding.name': (event) => event.regarding?.name,
      reason: (event) => event.reason,
      reportingController: (event) => event.reportingController,
      type: (event) => event.type,
    };
    const terms = (fieldSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('='));
    for (const [label] of terms) {
      if (!fields[label])
        return reply(
          400,
          badRequest(
            `Unable to find "events.k8s.io/v1, Resource=events" that match label selector "", field selector "${fieldSelector}": field label not supported: ${label}`,
          ),
        );
    }
    const items = this.events(namespace)
      .filter((event) => terms.every(([label, value]) => (fields[label](event) ?? '') === value))
      .map(({ kind: _kind, apiVersion: _apiVersion, ...item }) => item);
    return reply(200, {
      kind: 'EventList',
      apiVersion: GROUP_VERSION,
      metadata: { resourceVersion: String(this.resourceVersion) },
      items,
    });
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

  /** Whether {@link admitPerSecond} admits one more request in this second (always, when it is off). */
  private admitted(): boolean {
    const admission = this.admission;
    if (!admission) return true;
    const second = Math.floor(Date.now() / 1_000);
    if (second !== admission.second) Object.assign(admission, { second, admitted: 0 });
    if (admission.admitted >= admission.perSecond) return false;
    admission.admitted++;
    return true;
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
  private sendTruncated(
    res: ServerResponse,
    request: RecordedRequest,
    { status, body, headers }: Reply,
    contentLength: 'full' | 'sent',
  ): void {
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
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      ...this.flowHeaders,
      ...headers,
    });
    res.end(payload);
  }

  /** Sends a scripted text answer, `repeat` times over, as long as the client reads it. */
  private async sendText(res: ServerResponse, request: RecordedRequest, reply: ScriptedReply): Promise<void> {
    const chunk = Buffer.from(reply.text ?? '', 'utf8');
    const repeat = reply.repeat ?? 1;
    request.status = reply.status;
    request.response = reply.text;
    request.bytesSent = 0;
    this.notify();
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(reply.status, { 'Content-Length': String(chunk.length * repeat), ...reply.headers });
    for (let i = 0; i < repeat; i++) {
      // A client that left may leave the write's callback uncalled: its connection's close ends the wait.
      const flushed = await new Promise<boolean>((resolve) => {
        const onClose = () => resolve(false);
        res.once('close', onClose);
        res.write(chunk, (error) => {
          res.off('close', onClose);
          resolve(!error);
        });
      });
      if (!flushed) {
        // The client left before the body's end.
        request.aborted = true;
        this.notify();
        res.destroy();
        return;
      }
      request.bytesSent += chunk.length;
    }
    res.end();
    this.notify();
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
        () =>
          fail(new Error(`FakeApiServer: no ${what} after ${timeoutMs} ms; requests: ${JSON.stringify(this.log())}`)),
        timeoutMs,
      );
      this.changes.on('change', onChange);
      this.waiters.add(fail);
    });
  }
}

export function matches(match: RequestMatch | undefined, request: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === 'function') return match(request);
  return match === request.method || match === request.verb;
}

export function describeRequest(request: RecordedRequest): string {
  const target = `${request.namespace ?? '*'}${request.name ? `/${request.name}` : ''}`;
  const outcome =
    request.status !== undefined ? String(request.status) : request.hung ? 'hung' : (request.answerCut ?? 'pending');
  const cut =
    request.status !== undefined && request.answerCut
      ? `, answer ${request.answerCut === 'reset' ? 'lost' : 'truncated'}`
      : '';
  return `${request.verb} ${target} → ${outcome}${cut}${request.aborted ? ', aborted' : ''}`;
}

export function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function parseRoute(pathname: string): Route | undefined {
  const prefix = `/apis/${GROUP_VERSION}/`;
  if (!pathname.startsWith(prefix)) return undefined;
  const parts = pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  if (parts.length === 1 && parts[0] === 'events') return { kind: 'collection' };
  if (parts.length < 3 || parts[0] !== 'namespaces' || parts[2] !== 'events' || !parts[1]) return undefined;
  if (parts.length === 3) return { kind: 'collection', namespace: parts[1] };
  if (parts.length === 4 && parts[3]) return { kind: 'item', namespace: parts[1], name: parts[3] };
  return undefined;
}

export function verbOf(method: string, route: Route | undefined): Verb {
  if (!route) return 'unknown';
  if (route.kind === 'collection') {
    if (method === 'GET') return 'list';
    if (method === 'POST') return 'create';
    return 'unknown';
  }
  const verbs: Record<string, Verb> = { GET: 'get', PATCH: 'patch', PUT: 'update', DELETE: 'delete' };
  return verbs[method] ?? 'unknown';
}

export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}

export function warningHeaders(unknownFields: string[]): Record<string, string> | undefined {
  if (unknownFields.length === 0) return undefined;
  return { Warning: unknownFields.map((field) => `299 - "unknown field \\"${field}\\""`).join(', ') };
}

/**
 * Ports a refusable server listens on: below the range the system hands out
 * to other sockets. Where a process starts in them is random, so that two
 * test processes seldom meet.
 */
const REFUSABLE_PORTS = { first: 20_000, count: 10_000 };
let nextRefusablePort = Math.floor(Math.random() * REFUSABLE_PORTS.count);
/** Ports tried before a refusable server gives up starting (other processes hold them). */
const REFUSABLE_PORT_ATTEMPTS = 20;

async function listenBelowEphemeralPorts(server: NetServer): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const port = REFUSABLE_PORTS.first + (nextRefusablePort++ % REFUSABLE_PORTS.count);
    try {
      await listenOn(server, port);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= REFUSABLE_PORT_ATTEMPTS) throw error;
    }
  }
}

function listenOn(server: NetServer, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
