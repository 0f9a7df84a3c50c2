// What the benchmark reads from the API server itself, over one keep-alive
// connection with the admin credentials: its request counters, the Events it
// holds, and the ConfigMaps the clients publish about.
import { Agent, request, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ServerEvent {
  metadata: { name: string };
  regarding?: { name?: string };
  reportingController?: string;
  series?: { count?: number };
}

export interface ObjectRef {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
}

/** `apiserver_request_total{resource="events"}` summed by verb and code. */
export type RequestCounts = Map<string, number>;

export class ApiServer {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });

  private constructor(
    private readonly server: URL,
    private readonly options: RequestOptions,
  ) {}

  static async connect(kubeConfig: KubeConfig): Promise<ApiServer> {
    const options: RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(options);
    return new ApiServer(new URL(kubeConfig.getCurrentCluster()!.server), options);
  }

  private send(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.server),
        {
          ...this.options,
          agent: this.agent,
          method,
          headers: {
            ...this.options.headers,
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.once('error', reject);
      req.end(payload);
    });
  }

  private async json<T>(method: string, path: string, body?: unknown, allow: number[] = []): Promise<T> {
    const { status, text } = await this.send(method, path, body);
    if ((status < 200 || status >= 300) && !allow.includes(status))
      throw new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  async requestCounts(): Promise<RequestCounts> {
    const { text } = await this.send('GET', '/metrics');
    const counts: RequestCounts = new Map();
    for (const line of text.split('\n')) {
      if (!line.startsWith('apiserver_request_total{') || !line.includes('resource="events"')) continue;
      const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '?';
      const code = /code="([^"]*)"/.exec(line)?.[1] ?? '?';
      const key = `${verb} ${code}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
    return counts;
  }

  /** Every events.k8s.io/v1 Event in the namespace, page by page. */
  async events(namespace: string): Promise<ServerEvent[]> {
    const items: ServerEvent[] = [];
    let next = '';
    do {
      const page = await this.json<{ items: ServerEvent[]; metadata: { continue?: string } }>(
        'GET',
        `/apis/events.k8s.io/v1/namespaces/${namespace}/events?limit=1000${next ? `&continue=${encodeURIComponent(next)}` : ''}`,
      );
      items.push(...page.items);
      next = page.metadata.continue ?? '';
    } while (next);
    return items;
  }

  /** Deletes every Event of the namespace and waits until none is left. */
  async deleteEvents(namespace: string): Promise<void> {
    await this.json('DELETE', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`);
    while ((await this.events(namespace)).length) await new Promise((resolve) => setTimeout(resolve, 200));
  }

  async createNamespace(name: string): Promise<void> {
    await this.json('POST', '/api/v1/namespaces', { metadata: { name } }, [409]);
  }

  /** Creates the ConfigMaps `${prefix}-0…` a few at a time and returns their references. */
  async createConfigMaps(namespace: string, prefix: string, count: number, concurrency = 16): Promise<ObjectRef[]> {
    const refs: ObjectRef[] = new Array(count);
    let nextIndex = 0;
    const worker = async () => {
      for (let i = nextIndex++; i < count; i = nextIndex++) {
        const created = await this.json<{ metadata: ObjectRef }>('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
          metadata: { name: `${prefix}-${i}`, namespace },
          data: { index: String(i) },
        });
        const { name, uid, resourceVersion } = created.metadata;
        refs[i] = { name, namespace, uid, resourceVersion };
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return refs;
  }

  /**
   * Writes one Event about a ConfigMap of `namespace` and returns how long
   * the write took, in milliseconds: one API round trip of an Event write,
   * on a connection of its own, under whatever load the server has then.
   */
  async timeEventWrite(namespace: string, index: number): Promise<number> {
    const started = performance.now();
    await this.json('POST', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`, {
      metadata: { name: `round-trip.${Date.now().toString(16)}.${index}`, namespace },
      eventTime: new Date().toISOString().replace(/Z$/, '000Z'),
      type: 'Normal',
      reason: 'RoundTrip',
      action: 'Measure',
      note: 'one round trip of an Event write',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'round-trip' },
      reportingController: 'bench.example.com/round-trip',
      reportingInstance: 'round-trip',
    });
    return performance.now() - started;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `after − before`, by key, keeping only what changed. */
export function delta(before: RequestCounts, after: RequestCounts): RequestCounts {
  const changed: RequestCounts = new Map();
  for (const [key, value] of after) {
    const difference = value - (before.get(key) ?? 0);
    if (difference) changed.set(key, difference);
  }
  return changed;
}
