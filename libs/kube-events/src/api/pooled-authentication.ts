import type { AgentOptions } from 'node:https';
import type { Cluster, KubeConfig, RequestContext, SecurityAuthentication } from '@kubernetes/client-node';
import { Agent, type Dispatcher } from 'undici';

/** Connections one recorder keeps open to its API server, at most. */
export const POOL_CONNECTIONS = 8;

/** KubeConfig's dispatcher factory, private in its typings, which its authentication calls on `this` for every request. */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, options: AgentOptions): Dispatcher | undefined;
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
 * certificate, say).
 */
export class PooledAuthentication implements SecurityAuthentication {
  /** The KubeConfig as client-node's authentication sees it, its dispatcher factory replaced by the pool. */
  private readonly view: KubeConfig;
  private pooled: { material: Material; dispatcher: Dispatcher | undefined } | undefined;

  constructor(private readonly kubeConfig: KubeConfig) {
    const factory: DispatcherFactory = { createDispatcher: (cluster, options) => this.dispatcherFor(cluster, options) };
    this.view = Object.create(kubeConfig, { createDispatcher: { value: factory.createDispatcher } }) as KubeConfig;
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
    if (planned.type !== 'agent') return (this.kubeConfig as unknown as DispatcherFactory).createDispatcher(cluster, options);
    return new Agent({ connect: planned.connect, connections: POOL_CONNECTIONS });
  }
}

function sameMaterial(a: Material, b: Material): boolean {
  return a.every((value, i) => value === b[i] || (Buffer.isBuffer(value) && Buffer.isBuffer(b[i]) && value.equals(b[i] as Buffer)));
}
