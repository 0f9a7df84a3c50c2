import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';

/** What {@link HealthServer} answers with. */
export interface HealthChecks {
  /** Liveness: a problem that a restart would fix, or undefined when healthy. */
  live(): string | undefined;
  /** Readiness: a reason not to be ready, or undefined when ready. */
  ready(): string | undefined;
  /** What `/status` shows: who leads, whether the controller runs. */
  status(): object;
}

/**
 * The operator's probes, on plain `node:http` (the operator has no HTTP
 * framework): `GET /healthz` (liveness), `GET /readyz` (readiness) answer
 * 200 `ok` or 500 with the problem; `GET /status` answers JSON. Every
 * replica serves them, the leader and its followers alike. There is no
 * authentication: anyone who can reach the address reads `/status`, so it
 * answers only a request addressed to an IP address or `localhost` (as
 * kubelet's probes and `kubectl port-forward` are): a web page whose name
 * was rebound to the pod's address cannot read it (421 for any other
 * `Host`).
 */
export class HealthServer {
  private readonly server: Server;

  constructor(private readonly checks: HealthChecks) {
    this.server = createServer((request, response) => this.handle(request, response));
  }

  /**
   * Listens on `port` (`0`: any free one) at `host` (an address; every
   * address when unset); resolves with the port.
   */
  listen(port: number, host?: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** Where it listens, once {@link listen} resolved. */
  address(): AddressInfo | undefined {
    const address = this.server.address();
    return address && typeof address === 'object' ? address : undefined;
  }

  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'method not allowed\n');
      return;
    }
    try {
      switch (path) {
        case '/healthz':
        case '/livez': {
          probe(response, this.checks.live());
          return;
        }
        case '/readyz': {
          probe(response, this.checks.ready());
          return;
        }
        case '/status': {
          if (!isAddressedByIp(request.headers.host)) {
            send(response, 421, 'misdirected request: /status answers requests to an IP address or localhost\n');
            return;
          }
          send(response, 200, `${JSON.stringify(this.checks.status(), null, 2)}\n`, 'application/json');
          return;
        }
        default: {
          send(response, 404, 'not found\n');
          return;
        }
      }
    } catch (error) {
      send(response, 500, `${error instanceof Error ? error.message : String(error)}\n`);
      return;
    }
  }
}

/** Whether a `Host` header names an IP address or `localhost`, with or without a port. */
function isAddressedByIp(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return isIP(name) !== 0 || name.toLowerCase() === 'localhost';
}

function probe(response: ServerResponse, problem: string | undefined): void {
  send(response, problem ? 500 : 200, problem ? `${problem}\n` : 'ok\n');
}

function send(response: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
