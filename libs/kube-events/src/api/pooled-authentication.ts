import type { AgentOptions } from 'node:https';
import { RequestContext, type Cluster, type KubeConfig, type User } from '@kubernetes/client-node';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { PublishTimeoutError } from '../errors.js';
import {
  AUTH_PROVIDER_REMOVED,
  CA_WITH_INSECURE_SKIP_TLS_VERIFY,
  NODE_TLS_REJECT_UNAUTHORIZED_IGNORED,
  OIDC_PROVIDER_UNSUPPORTED,
  PLAIN_HTTP_REFUSED,
} from '../kube-events.messages.js';
import { LibraryLogger } from '../text/library-logger.js';
import { proxyFromEnvironment } from './environment-proxy.js';
import { authenticationHung, credentialFailure, timedOutWaitingFor } from './credential-failure.js';
import { sendableHeaders } from './credential-headers.js';
import { ExecPluginRuns } from './exec-plugin-runs.js';
import { PinnedContext } from './pinned-context.js';

/** Connections one recorder keeps open to its API server for its writes, at most. */
const POOL_CONNECTIONS = 8;

/**
 * Connections of the follow-up requests (access reviews, `/readyz`), a
 * pool of their own: a follow-up that hangs never holds a connection a
 * write waits for. Enough for one review of every verb at once.
 */
const FOLLOW_UP_CONNECTIONS = 4;

/**
 * How long TLS material read from the kubeconfig's files (CA, client
 * certificate and key) is used before the files are read again: a rotated
 * file is picked up within this, as client-node re-reads a token file. A
 * change to the kubeconfig itself (other data, other files, TLS
 * verification switched on or off) is used at the next request.
 */
const TLS_MATERIAL_TTL_MS = 60_000;

/** KubeConfig's dispatcher factory, private in its typings, which its authentication calls on `this` for every request. */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, options: AgentOptions): Dispatcher | undefined;
}

/** KubeConfig's reading of TLS material into request options, private in its typings, which its authentication calls on `this` for every request. */
interface TlsMaterialReader {
  applyHTTPSOptions(options: AgentOptions): void;
}

/** KubeConfig's step that runs the user's authenticator (exec plugin, OIDC, token file…), private in its typings. */
interface AuthorizationStep {
  applyAuthorizationHeader(options: AgentOptions): Promise<void>;
}

/** What client-node's `applyHTTPSOptions` sets: TLS options, and the impersonation headers. */
type TlsOptions = AgentOptions & { headers?: Record<string, string> };

/** The TLS material (and where it goes) that a pooled connection was made with. */
type Material = readonly unknown[];

/** The fields of a RequestContext, private in its typings, that one authentication fills in. */
const AUTHENTICATION_URL = 'https://authentication.invalid';

/** What a request is sent with: the headers client-node's authentication set, and the pooled dispatcher. */
export interface Authenticated {
  readonly headers: Readonly<Record<string, string>>;
  readonly dispatcher: Dispatcher | undefined;
  /** The latest plugin run when these credentials were made: a refusal of them reruns the plugin only if none ran since. */
  readonly pluginRun: object | undefined;
  /** When they were made (epoch ms): a refusal of them has a token file read before then read again. */
  readonly madeAt: number;
}

/** An authenticator's failure, told apart from the TLS and dispatcher steps around it. */
class AuthenticatorFailed extends Error {
  constructor(readonly failure: unknown) {
    super('authentication failed');
  }
}

/** Options of {@link PooledAuthentication}. */
export interface PooledAuthenticationOptions {
  /** How long an exec credential plugin may run. @default EXEC_PLUGIN_TIMEOUT_MS */
  readonly execPluginTimeoutMs?: number;
  /**
   * Whether requests may go over HTTP/2 when the server offers it (ALPN,
   * over TLS, and not through a proxy), still {@link POOL_CONNECTIONS} at
   * a time. Measured against kube-apiserver, it costs more CPU per write
   * than HTTP/1.1 (`npm run bench -- writes --server real`, which compares
   * the two). @default false
   */
  readonly allowHttp2?: boolean;
}

/**
 * client-node's kubeconfig authentication, with one pool of keep-alive
 * connections. client-node 2.x builds a new undici Agent, hence a new TCP
 * and TLS connection, for every request to a TLS cluster; this runs its
 * authentication unchanged (static and bearer tokens, client certificates,
 * exec plugins and OIDC refreshed as they expire, the in-cluster token
 * re-read as the kubelet rotates it) but hands the request a pooled Agent,
 * made anew only when the TLS material changes (a rotated client
 * certificate, say), and reads that material again when the kubeconfig's
 * TLS fields change and its files once a minute, rather than for every
 * request.
 *
 * Everything comes from the context that was current when it was made
 * (the server requests go to is read then too): a switch of the
 * KubeConfig's current context is not followed, so that one context's
 * credentials never go to another's server ({@link PinnedContext}).
 *
 * Requests sent while an authentication is running share it: client-node
 * would start a slow or hanging exec plugin again for every request. A
 * failed authentication rejects with `PublishCredentialError`, which
 * names the plugin and how it ended, never what it printed; so does one
 * that did not finish within the request's timeout, which is given up and
 * started anew by the next request. Credentials the server refused (401)
 * are forgotten: the plugin runs again, the token file is read again.
 */
export class PooledAuthentication {
  /** The context requests are authenticated for, whatever the KubeConfig's current one becomes. */
  private readonly context: PinnedContext;
  /** The context's KubeConfig as client-node's authentication sees it: its dispatcher factory replaced by the pool, its TLS material kept. */
  private readonly view: KubeConfig;
  private pooled:
    | {
        material: Material;
        dispatcher: Dispatcher | undefined;
        /** The follow-ups' pool, made with the same material when the first follow-up is sent. */
        followUps?: Dispatcher | undefined;
        makeFollowUps: () => Dispatcher | undefined;
      }
    | undefined;
  private tls: { readAt: number; sources: Material; options: TlsOptions } | undefined;
  private readonly plugins: ExecPluginRuns;
  private readonly allowHttp2: boolean;
  /** The authentication running now, which requests sent meanwhile share. */
  private running: Promise<Authenticated> | undefined;
  /**
   * Credentials that are the same for every request (a token or password
   * written in the kubeconfig, a client certificate, or none), kept while
   * what they were made from is unchanged and the TLS material is not due
   * to be read again, where client-node would work them out anew for
   * each request.
   */
  private reusable: { sources: Material; authenticated: Authenticated; until: number } | undefined;

  constructor(kubeConfig: KubeConfig, options: PooledAuthenticationOptions = {}) {
    this.context = new PinnedContext(kubeConfig);
    const pinned = this.context.kubeConfig;
    refuseUnsupportedAuthProvider(pinned.getCurrentUser());
    refuseContradictoryTls(pinned.getCurrentCluster());
    warnIfTlsEnvironmentIgnored(pinned.getCurrentCluster());
    this.plugins = new ExecPluginRuns(options.execPluginTimeoutMs);
    this.allowHttp2 = options.allowHttp2 ?? false;
    const createDispatcher: DispatcherFactory['createDispatcher'] = (cluster, options) =>
      this.dispatcherFor(cluster, options);
    const applyHTTPSOptions: TlsMaterialReader['applyHTTPSOptions'] = (options) =>
      Object.assign(options, this.tlsOptions());
    const authorization = pinned as unknown as AuthorizationStep;
    const view: Record<string, unknown> = {};
    const applyAuthorizationHeader: AuthorizationStep['applyAuthorizationHeader'] = (options) =>
      authorization.applyAuthorizationHeader.call(view, options).catch((error: unknown) => {
        throw new AuthenticatorFailed(error);
      });
    const authenticators = this.plugins.authenticatorsFor(pinned);
    Object.setPrototypeOf(view, pinned);
    Object.defineProperties(view, {
      createDispatcher: { value: createDispatcher },
      applyHTTPSOptions: { value: applyHTTPSOptions },
      applyAuthorizationHeader: { value: applyAuthorizationHeader },
      ...(authenticators && { authenticators: { value: authenticators } }),
    });
    this.view = view as unknown as KubeConfig;
  }

  /**
   * The headers and dispatcher for a request, from the authentication
   * running now or a new one. Rejects with the signal's reason once it
   * aborts (the authentication goes on for the others; a timeout names the
   * exec plugin still running, if one is), and with
   * `PublishCredentialError` when the authenticator failed.
   */
  authenticate(signal: AbortSignal): Promise<Authenticated> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.running) {
      const run = this.authenticateOnce().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
    }
    const shared = this.running;
    return new Promise<Authenticated>((resolve, reject) => {
      const onAbort = () => reject(this.abortedWaiting(signal.reason, shared));
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * The credentials of the last authentication, when they hold for this
   * request without running it again: they are static, and neither the
   * kubeconfig's context, cluster and user nor their TLS material changed.
   */
  reusableCredentials(): Authenticated | undefined {
    const kept = this.reusable;
    if (!kept) return undefined;
    if (Date.now() < kept.until && sameMaterial(kept.sources, staticSources(this.context.kubeConfig)))
      return kept.authenticated;
    this.reusable = undefined;
    return undefined;
  }

  /**
   * The API server refused the credentials `used` (401): the cached ones
   * are forgotten, so that the next authentication runs the exec plugin
   * again (once, if several requests were refused) and reads the token
   * file again (unless it was read since these were made).
   */
  refused(used: Authenticated): void {
    if (this.reusable?.authenticated === used) this.reusable = undefined;
    this.context.forgetTokenReadBefore(used.madeAt);
    if (used.pluginRun !== this.plugins.mark()) return;
    this.context.forgetCachedCredentials();
  }

  /**
   * Why a request aborted while it waited for credentials. A timeout names
   * the plugin it waited for, if one runs (stopped at its own timeout);
   * with none running, the authenticator hung (a custom one, say): it is
   * given up, so that the next request starts a new one, and the request
   * fails as a credential failure.
   */
  private abortedWaiting(reason: unknown, shared: Promise<Authenticated>): unknown {
    if (!(reason instanceof PublishTimeoutError)) return reason;
    const run = this.plugins.runningNow();
    if (run) return timedOutWaitingFor(run, reason);
    if (this.running === shared) this.running = undefined;
    return authenticationHung(this.context.kubeConfig.getCurrentUser(), reason.timeoutMs);
  }

  /**
   * How many requests it sends at once, one per connection of the pool:
   * past it, a request waits in the pool for a connection to be free.
   */
  get requestsAtOnce(): number {
    return POOL_CONNECTIONS;
  }

  /**
   * The dispatcher of a follow-up request (an access review, `/readyz`)
   * authenticated with `authenticated`: a pool of its own, of
   * {@link FOLLOW_UP_CONNECTIONS}, beside the writes' pool.
   */
  followUpDispatcher(authenticated: Authenticated): Dispatcher | undefined {
    const pooled = this.pooled;
    // Credentials made for a pool replaced since: their own dispatcher, as a write's would be.
    if (!pooled || pooled.dispatcher !== authenticated.dispatcher) return authenticated.dispatcher;
    if (!('followUps' in pooled)) pooled.followUps = pooled.makeFollowUps();
    return pooled.followUps;
  }

  /**
   * Closes the writes' connections once the requests on them have finished,
   * ends the follow-ups' at once (a `/readyz` that hangs would hold the
   * shutdown), and stops a credential plugin still running.
   */
  async close(): Promise<void> {
    this.plugins.stop();
    const { dispatcher, followUps } = this.pooled ?? {};
    this.pooled = undefined;
    await Promise.all([dispatcher?.close(), followUps?.destroy()]);
  }

  private async authenticateOnce(): Promise<Authenticated> {
    // Authentication reads the kubeconfig alone, never the request's URL.
    const context = new RequestContext(AUTHENTICATION_URL, 'GET');
    this.context.assertUsable();
    const madeAt = Date.now();
    const before = this.plugins.mark();
    const sources = staticSources(this.context.kubeConfig);
    try {
      await this.view.applySecurityAuthentication(context);
    } catch (error) {
      if (!(error instanceof AuthenticatorFailed)) throw error;
      throw credentialFailure(error.failure, this.context.kubeConfig.getCurrentUser(), this.plugins.endedSince(before));
    }
    const headers = sendableHeaders(context.getHeaders());
    const authenticated = {
      headers,
      dispatcher: context.getDispatcher(),
      pluginRun: this.plugins.mark(),
      madeAt,
    };
    if (this.tls && hasStaticCredentials(this.context.kubeConfig))
      this.reusable = { sources, authenticated, until: this.tls.readAt + TLS_MATERIAL_TTL_MS };
    return authenticated;
  }

  /**
   * The context's TLS options, read again whenever what they are read
   * from changes (the CA, client certificate and key, as data or file
   * names, `insecure-skip-tls-verify`, `tls-server-name`, the user
   * impersonated), as after `kubeConfig.loadFromString(...)`, and at least
   * once per {@link TLS_MATERIAL_TTL_MS} for the files' contents.
   * client-node reads them for every request: a CA file read from disk in
   * a pod, or inline data decoded; kept, the same material also finds the
   * pool at once.
   */
  private tlsOptions(): TlsOptions {
    const now = Date.now();
    const sources = tlsSources(this.context.kubeConfig);
    if (!this.tls || !sameMaterial(this.tls.sources, sources) || now - this.tls.readAt >= TLS_MATERIAL_TTL_MS) {
      const options: TlsOptions = {};
      (this.context.kubeConfig as unknown as TlsMaterialReader).applyHTTPSOptions(options);
      // client-node sets it only to switch verification off: left unset, NODE_TLS_REJECT_UNAUTHORIZED=0 would.
      options.rejectUnauthorized = !this.context.kubeConfig.getCurrentCluster()?.skipTLSVerify;
      this.tls = { readAt: now, sources, options };
    }
    const { headers, ...options } = this.tls.options;
    // A copy of the headers: the authenticator adds to them, for this request only.
    return headers ? { ...options, headers: { ...headers } } : options;
  }

  private dispatcherFor(cluster: Cluster | null, options: AgentOptions): Dispatcher | undefined {
    const material: Material = [
      cluster?.server,
      cluster?.proxyUrl,
      options.ca,
      options.cert,
      options.key,
      options.pfx,
      options.passphrase,
      options.rejectUnauthorized,
      options.servername,
    ];
    if (this.pooled && sameMaterial(this.pooled.material, material)) return this.pooled.dispatcher;
    const previous = this.pooled;
    this.pooled = {
      material,
      dispatcher: this.createDispatcher(cluster, options, POOL_CONNECTIONS),
      makeFollowUps: () => this.createDispatcher(cluster, options, FOLLOW_UP_CONNECTIONS),
    };
    for (const dispatcher of [previous?.dispatcher, previous?.followUps])
      void dispatcher?.close().catch(() => undefined);
    return this.pooled.dispatcher;
  }

  private createDispatcher(
    cluster: Cluster | null,
    options: AgentOptions,
    connections: number,
  ): Dispatcher | undefined {
    // client-node refuses plain HTTP without skipTLSVerify, but not through a proxy-url, where the token would go in clear.
    if (cluster?.proxyUrl && cluster.server.startsWith('http:') && !cluster.skipTLSVerify)
      throw new Error(PLAIN_HTTP_REFUSED);
    const planned = this.context.kubeConfig.createDispatcherOptions(cluster, options);
    // Through the kubeconfig's proxy, client-node's own dispatcher (kept like ours).
    if (planned.type !== 'agent')
      return (this.context.kubeConfig as unknown as DispatcherFactory).createDispatcher(cluster, options);
    // HTTP/1.1 keep-alive, although undici offers HTTP/2 by default. Against kube-apiserver over TLS
    // (`npm run bench -- writes --server real`, docs/measurements.md), HTTP/2 cost the recorder
    // 1.27–1.53× the CPU per write of HTTP/1.1 for writes one at a time, as a reconcile loop sends
    // them, and 1.10–1.33× for 50 publishes at once (8 on the wire): Node builds a stream object per
    // request, which only many streams in flight on one session pay back; with 50 on the wire (bursts on
    // HTTP/2, writes that come alone on HTTP/1.1) it still cost a fifth more than HTTP/1.1 at 8. With
    // the client on a core of its own, HTTP/2 cost 1.37–1.67× one at a time and 1.20–1.43× at 50 at once.
    // The same through a proxy from the environment.
    const pool = { connections, allowH2: false };
    const proxy = cluster ? proxyFromEnvironment(cluster.server) : undefined;
    if (proxy) return new ProxyAgent({ uri: proxy, requestTls: planned.connect, ...pool });
    return new Agent({ connect: planned.connect, ...pool, allowH2: this.allowHttp2 });
  }
}

/**
 * Refuses, at start-up, the auth-providers that cannot work here:
 * `gcp` and `azure` run their `cmd-path` with `execSync`, which blocks the
 * event loop for as long as the command runs (client-go removed both in
 * 1.26, for exec plugins); client-node 2.x's `oidc` refresh fails before
 * it reaches the identity provider (it hands openid-client a string where
 * a URL is required), so it would fail the first time the id-token
 * expires.
 */
/** client-go refuses a CA together with `insecure-skip-tls-verify`: one of the two is a mistake, and skipping would win. */
function refuseContradictoryTls(cluster: Cluster | null): void {
  if (cluster?.skipTLSVerify && (cluster.caData || cluster.caFile)) throw new Error(CA_WITH_INSECURE_SKIP_TLS_VERIFY);
}

/** Whether this process was told that `NODE_TLS_REJECT_UNAUTHORIZED=0` is ignored: once is enough. */
let tlsEnvironmentWarned = false;

/** Says once, at start-up, that `NODE_TLS_REJECT_UNAUTHORIZED=0` does not switch off the API server's verification. */
function warnIfTlsEnvironmentIgnored(cluster: Cluster | null): void {
  if (process.env.NODE_TLS_REJECT_UNAUTHORIZED !== '0' || !cluster || cluster.skipTLSVerify) return;
  if (tlsEnvironmentWarned) return;
  tlsEnvironmentWarned = true;
  new LibraryLogger('EventRecorder').warn(NODE_TLS_REJECT_UNAUTHORIZED_IGNORED);
}

function refuseUnsupportedAuthProvider(user: User | null): void {
  const name = (user?.authProvider as { name?: unknown } | undefined)?.name;
  if (name === 'gcp' || name === 'azure') throw new Error(AUTH_PROVIDER_REMOVED(name));
  if (name === 'oidc') throw new Error(OIDC_PROVIDER_UNSUPPORTED);
}

/** What client-node reads the TLS options from: the (pinned) current cluster's and user's TLS fields, as the kubeconfig has them now. */
function tlsSources(kubeConfig: KubeConfig): Material {
  return tlsSourcesOf(kubeConfig.getCurrentCluster(), kubeConfig.getCurrentUser());
}

function tlsSourcesOf(cluster: Cluster | null, user: User | null): Material {
  return [
    cluster?.caData,
    cluster?.caFile,
    cluster?.skipTLSVerify,
    cluster?.tlsServerName,
    user?.certData,
    user?.certFile,
    user?.keyData,
    user?.keyFile,
    user?.impersonateUser,
  ];
}

/**
 * Whether the context's credentials are the same for every request: no
 * exec plugin, auth provider (a token file, say) or custom authenticator
 * makes them, each of which may give another token next time.
 */
function hasStaticCredentials(kubeConfig: KubeConfig): boolean {
  const user = kubeConfig.getCurrentUser();
  const custom = (kubeConfig as unknown as { custom_authenticators?: unknown[] }).custom_authenticators;
  return !user?.exec && !user?.authProvider && !custom?.length;
}

/** What static credentials and their connection are made from: the context, its cluster and user as objects and as fields (edited in place, say), and their TLS sources. */
function staticSources(kubeConfig: KubeConfig): Material {
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  return [
    context,
    cluster,
    user,
    cluster?.server,
    cluster?.proxyUrl,
    user?.token,
    user?.username,
    user?.password,
    user?.exec,
    user?.authProvider,
    ...tlsSourcesOf(cluster, user),
  ];
}

function sameMaterial(a: Material, b: Material): boolean {
  return a.every(
    (value, i) => value === b[i] || (Buffer.isBuffer(value) && Buffer.isBuffer(b[i]) && value.equals(b[i])),
  );
}

/** How many requests of one recorder are on the wire at once: past it, a request waits for a connection. */
export { POOL_CONNECTIONS };
