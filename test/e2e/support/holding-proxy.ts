// A plain-HTTP proxy in front of the real API server that passes every
// request through, except the ones a test asks it to hold: those get no
// answer until the test releases them or the client gives up. It is how a
// test keeps a reconcile running, in a request to the real server, for as
// long as it needs (the real server answers at once, and cannot be told not
// to); what the server holds is never changed by it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** A request the proxy holds back. */
export interface HeldRequest {
  readonly method: string;
  readonly path: string;
  /** Resolves when the client closes the request without an answer (it aborted it). */
  readonly abandoned: Promise<void>;
  /** Sends it on to the API server, as if it had never been held. */
  release(): void;
}

interface Hold {
  match: (method: string, path: string) => boolean;
  resolve: (held: HeldRequest) => void;
}

/**
 * The proxy. {@link kubeConfig} gives the admin's credentials pointed at it;
 * {@link hold} picks the next request to keep back.
 *
 * @example
 * const proxy = await HoldingProxy.start(admin);
 * const creating = proxy.hold((method, path) => method === 'POST' && path.endsWith('/configmaps'));
 * // ... start the code under test with proxy.kubeConfig() ...
 * const held = await creating;
 * await held.abandoned; // the client aborted it
 */
export class HoldingProxy {
  private readonly holds: Hold[] = [];
  private readonly held = new Set<HeldRequest>();

  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    private readonly ca: string | undefined,
    private readonly admin: KubeConfig,
  ) {}

  /** Starts a proxy on a free loopback port for the cluster of `admin`. */
  static async start(admin: KubeConfig): Promise<HoldingProxy> {
    const cluster = admin.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const ca = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : undefined;
    let proxy!: HoldingProxy;
    const server = createServer((req, res) => proxy.handle(req, res));
    proxy = new HoldingProxy(server, new URL(cluster.server), ca, admin);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The admin's credentials, pointed at this proxy. */
  kubeConfig(): KubeConfig {
    const user = this.admin.getCurrentUser()!;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      // Plain HTTP on loopback: client-node asks for skipTLSVerify to allow it (there is no TLS to verify).
      clusters: [
        {
          name: 'holding-proxy',
          server: `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`,
          skipTLSVerify: true,
        },
      ],
      users: [{ name: user.name, token: user.token }],
      contexts: [{ name: 'holding-proxy', cluster: 'holding-proxy', user: user.name }],
      currentContext: 'holding-proxy',
    });
    return kubeConfig;
  }

  /** Holds the next request that `match` accepts; resolves once it arrives. */
  hold(match: (method: string, path: string) => boolean): Promise<HeldRequest> {
    return new Promise((resolve) => this.holds.push({ match, resolve }));
  }

  /** Releases what is held and stops listening. */
  async close(): Promise<void> {
    for (const held of this.held) held.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const index = this.holds.findIndex((hold) => hold.match(method, path));
    if (index < 0) {
      this.forward(req, res);
      return;
    }
    const [hold] = this.holds.splice(index, 1);
    let released = false;
    const abandoned = new Promise<void>((resolve) =>
      res.on('close', () => {
        if (!res.writableEnded && !released) resolve();
      }),
    );
    const held: HeldRequest = {
      method,
      path,
      abandoned,
      release: () => {
        if (released || res.destroyed) return;
        released = true;
        this.held.delete(held);
        this.forward(req, res);
      },
    };
    this.held.add(held);
    hold.resolve(held);
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const upstream = httpsRequest(
      {
        hostname: this.upstream.hostname,
        port: this.upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: this.upstream.host },
        ca: this.ca,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers come long before its first event: pass them on at once.
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }
}
