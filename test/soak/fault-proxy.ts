// A TCP proxy in front of the real API server that the soak turns against
// its clients: it stalls every connection (bytes stop in both directions,
// new connections are accepted and get nothing), or resets them (RST on what
// is open, and on each new connection, so a TLS handshake fails half-way).
// TLS passes through it untouched, so the clients still verify the real
// server's certificate.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

type Mode = 'pass' | 'stall' | 'reset';

interface Pair {
  readonly client: Socket;
  upstream?: Socket;
}

export class FaultProxy {
  private mode: Mode = 'pass';
  private readonly pairs = new Set<Pair>();
  /** Connections accepted while stalled, connected upstream once the stall ends. */
  private readonly waiting: Pair[] = [];

  private constructor(
    private readonly server: Server,
    private readonly upstreamPort: number,
  ) {}

  /** Listens on a free loopback port, forwarding to `upstreamPort` on loopback. */
  static async start(upstreamPort: number): Promise<FaultProxy> {
    let proxy!: FaultProxy;
    const server = createServer((client) => proxy.accept(client));
    proxy = new FaultProxy(server, upstreamPort);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Stops every byte: open connections freeze, new ones are accepted and hear nothing. */
  stall(): void {
    this.mode = 'stall';
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  /** Resets what is open, and every connection that arrives until {@link pass}. */
  reset(): void {
    this.mode = 'reset';
    for (const pair of [...this.pairs]) this.resetPair(pair);
  }

  /** Passes everything again; what a stall held goes on where it stopped. */
  pass(): void {
    this.mode = 'pass';
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream?.resume();
    }
    for (const pair of this.waiting.splice(0)) this.connectUpstream(pair);
  }

  async close(): Promise<void> {
    for (const pair of [...this.pairs]) this.resetPair(pair);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client };
    this.pairs.add(pair);
    client.on('error', () => this.resetPair(pair));
    client.on('close', () => this.resetPair(pair));
    if (this.mode === 'reset') this.resetPair(pair);
    else if (this.mode === 'stall') {
      client.pause();
      this.waiting.push(pair);
    } else this.connectUpstream(pair);
  }

  private connectUpstream(pair: Pair): void {
    if (pair.client.destroyed) return;
    const upstream = connect(this.upstreamPort, '127.0.0.1');
    pair.upstream = upstream;
    upstream.on('error', () => this.resetPair(pair));
    upstream.on('close', () => this.resetPair(pair));
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    pair.client.resume();
  }

  private resetPair(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    const waitingAt = this.waiting.indexOf(pair);
    if (waitingAt >= 0) this.waiting.splice(waitingAt, 1);
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (pair.upstream && !pair.upstream.destroyed) pair.upstream.destroy();
  }
}
