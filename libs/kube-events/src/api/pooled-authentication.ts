import type { AgentOptions } from 'node:https';
import type { Cluster, KubeConfig, RequestContext, SecurityAuthentication } from '@kubernetes/client-node';
import { Agent, type Dispatcher } from 'undici';

/** Connections one recorder keeps open to its API server, at most. */
export const POOL_CONNECTIONS = 8;

/**
 * How long TLS material read from the kubeconfig (CA, client certificate
 * and key, from files or inline) is used before it is read again: a rotated
 * file is picked up within this, as client-node re-reads a token file.
 */
export const TLS_MATERIAL_TTL_MS = 60_000;

/** KubeConfig's dispatcher factory, private in its typings, which its authentication calls on `this` for every request. */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, options: AgentOptions): Dispatcher | undefined;
}

/** KubeConfig's reading of TLS material into request options, private in its typings, which its authentication calls on `this` for every request. */
interface TlsMaterialReader {
  applyHTTPSOptions(options: AgentOptions): void;
}

/** The TLS material (and where it goes) that a pooled connection was made with. */
type Material = readonly unknown[];

/**
 * client-node's kubeconfig authentication, with one pool of keep-alive
 * connections. client-node 2.x builds a new undici Agent, hence a new TCP
 * and TLS connection, for every request to a TLS cluster; this runs its
 * authentication unchanged (static and bearer tokens, client certificates,
 * exec plugins and OIDC refreshed as they expire, the in-cluster token
 * re-read as the kubelet rotates it) but hands the request a pooled Agent,
 * made anew only when the TLS material changes (a rotated client
 * certificate, say), and reads that material once a minute rather than
 * for every request.
 */
export class PooledAuthentication implements SecurityAuthentication {
  /** The KubeConfig as client-node's authentication sees it: its dispatcher factory replaced by the pool, its TLS material kept. */
  private readonly view: KubeConfig;
  private pooled: { material: Material; dispatcher: Dispatcher | undefined } | undefined;
  private tls: { readAt: number; context: string; options: AgentOptions } | undefined;

  constructor(private readonly kubeConfig: KubeConfig) {
    const factory: DispatcherFactory = { createDispatcher: (cluster, options) => this.dispatcherFor(cluster, options) };
    const reader: TlsMaterialReader = { applyHTTPSOptions: (options) => Object.assign(options, this.tlsOptions()) };
    this.view = Object.create(kubeConfig, {
      createDispatcher: { value: factory.createDispatcher },
      applyHTTPSOptions: { value: reader.applyHTTPSOptions },
    }) as KubeConfig;
  }

  getName(): string {
    return 'kubeconfig authentication over pooled connections';
  }

  applySecurityAuthentication(context: RequestContext): Promise<void> {
    return this.view.applySecurityAuthentication(context);
  }

  /** Closes the pool's connections once the requests on them have finished. */
  async close(): Promise<void> {
    const dispatcher = this.pooled?.dispatcher;
    this.pooled = undefined;
    await dispatcher?.close();
  }

  /**
   * The kubeconfig's TLS options, read at most once per {@link TLS_MATERIAL_TTL_MS}
   * (and when the current context changes). client-node reads them for
   * every request: a CA file read from disk in a pod, or inline data
   * decoded; kept, the same material also finds the pool at once.
   */
  private tlsOptions(): AgentOptions {
    const now = Date.now();
    const context = this.kubeConfig.getCurrentContext();
    if (!this.tls || this.tls.context !== context || now - this.tls.readAt >= TLS_MATERIAL_TTL_MS) {
      const options: AgentOptions = {};
      (this.kubeConfig as unknown as TlsMaterialReader).applyHTTPSOptions(options);
      this.tls = { readAt: now, context, options };
    }
    return this.tls.options;
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
    const previous = this.pooled?.dispatcher;
    this.pooled = { material, dispatcher: this.createDispatcher(cluster, options) };
    void previous?.close().catch(() => undefined);
    return this.pooled.dispatcher;
  }

  private createDispatcher(cluster: Cluster | null, options: AgentOptions): Dispatcher | undefined {
    const planned = this.kubeConfig.createDispatcherOptions(cluster, options);
    // Through a proxy, client-node's own dispatcher (kept like ours); without TLS options, undici's global pool.
    if (planned.type !== 'agent')
      return (this.kubeConfig as unknown as DispatcherFactory).createDispatcher(cluster, options);
    // HTTP/1.1 keep-alive: Node's HTTP/2 builds a stream object per request, and measured a third
    // more CPU per write for writes one at a time, as controllers send them (see the README).
    return new Agent({ connect: planned.connect, connections: POOL_CONNECTIONS, allowH2: false });
  }
}

function sameMaterial(a: Material, b: Material): boolean {
  return a.every(
    (value, i) => value === b[i] || (Buffer.isBuffer(value) && Buffer.isBuffer(b[i]) && value.equals(b[i] as Buffer)),
  );
}
