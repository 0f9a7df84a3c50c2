import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';
import { Pool } from 'undici';

/** Who the Events are from, the same for the bare client and the recorder. */
export const reporter = { controller: 'bench.example.com/widget-controller', instance: 'bench-0' };

/** The Event every write reports. */
export const failed = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source ConfigMap default/app not found',
} as const satisfies KubeEvent;

/**
 * {@link failed} with a note that names `object`, as an operator's notes do:
 * a recorder meets each note once, so what it does to a note it has not
 * seen (its credential patterns, its identity digest) is paid on every
 * write, not once per process.
 */
export const failedAbout = (object: KubernetesObject): KubeEvent => ({
  ...failed,
  note: `source ConfigMap ${object.metadata!.namespace}/${object.metadata!.name}-source not found`,
});

const microTime = () => `${new Date().toISOString().slice(0, -1)}000Z`;

/** How the bare client reaches the server. */
export interface BareClientOptions {
  /** `http(s)://host:port`. */
  readonly origin: string;
  /** The bearer token. */
  readonly token: string;
  /** Keep-alive connections, at most; undici's default sets no bound. */
  readonly connections?: number;
  /** Whether HTTP/2 is offered (ALPN, over TLS only); undici's default is to offer it. */
  readonly allowH2?: boolean;
  /** The server's CA, PEM. */
  readonly ca?: string | Buffer;
  /** More headers on every request (a User-Agent, trace context). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The recorder's writes by hand: a body built with `JSON.stringify` of a
 * plain object, a name chosen by the client, `Pool.request` over keep-alive
 * connections, the answer parsed, its `resourceVersion` kept for the next
 * patch's precondition.
 */
export class BareClient {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;
  private sequence = 0;
  /** Per Event name, its resourceVersion as last answered. */
  private readonly versions = new Map<string, string>();
  /** Per object uid, its Event's name and series count. */
  private readonly events = new Map<string, { name: string; count: number }>();

  constructor({ origin, token, connections, allowH2, ca, headers }: BareClientOptions) {
    this.pool = new Pool(origin, {
      ...(connections !== undefined && { connections }),
      ...(allowH2 !== undefined && { allowH2 }),
      ...(ca !== undefined && { connect: { ca } }),
    });
    this.headers = { authorization: `Bearer ${token}`, accept: 'application/json', ...headers };
  }

  /** Creates the Event `event` (by default {@link failed}) about `object`. */
  async create(object: KubernetesObject, event: KubeEvent = failed): Promise<void> {
    const { name, namespace, uid, resourceVersion } = object.metadata!;
    const eventName = `${name}.${(Date.now() * 1e6 + this.sequence++).toString(16)}`;
    const eventTime = microTime();
    const body = JSON.stringify({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: eventName, namespace },
      eventTime,
      type: event.type,
      reason: event.reason,
      action: event.action,
      note: event.note,
      regarding: { apiVersion: object.apiVersion, kind: object.kind, name, namespace, uid, resourceVersion },
      reportingController: reporter.controller,
      reportingInstance: reporter.instance,
    });
    const answer = await this.send('POST', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`, body, 201);
    this.versions.set(eventName, answer.metadata.resourceVersion);
    this.events.set(uid!, { name: eventName, count: 1 });
  }

  async patch(object: KubernetesObject): Promise<void> {
    const { namespace, uid } = object.metadata!;
    const event = this.events.get(uid!)!;
    const count = event.count + 1;
    const body = JSON.stringify({
      metadata: { resourceVersion: this.versions.get(event.name) },
      series: { count, lastObservedTime: microTime() },
    });
    const answer = await this.send(
      'PATCH',
      `/apis/events.k8s.io/v1/namespaces/${namespace}/events/${event.name}`,
      body,
      200,
    );
    this.versions.set(event.name, answer.metadata.resourceVersion);
    event.count = count;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async send(
    method: 'POST' | 'PATCH',
    path: string,
    body: string,
    expected: number,
  ): Promise<{ metadata: { resourceVersion: string } }> {
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const response = await this.pool.request({
      method,
      path,
      body,
      headers: { ...this.headers, 'content-type': contentType },
    });
    const answer = (await response.body.json()) as { metadata: { resourceVersion: string } };
    if (response.statusCode !== expected) throw new Error(`${method} ${path}: ${response.statusCode}`);
    return answer;
  }
}
