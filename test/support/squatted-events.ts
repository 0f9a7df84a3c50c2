// A tenant of a namespace who creates Events under the names a controller's shared series will take: anyone who may
// create Events there can, since a shared series' first Event is named predictably (SPEC §16).
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer } from './fake-api-server/index.js';
import type { StoredEvent } from './fake-api-server/index.js';

/** Now as a MicroTime: RFC 3339 with exactly six fractional digits, which the API server requires. */
export const microTimeNow = (): string => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * The name a recorder of `controller` sharing series (`resumeSeries`) gives
 * the first Event of `event`'s series about `object`, as anyone can work it
 * out: by watching one such recorder write it, here to a server of its own.
 */
export async function sharedSeriesName(
  object: KubernetesObject,
  event: KubeEvent,
  controller: string,
): Promise<string> {
  return (await sharedSeriesNames([object], event, controller)).get(object.metadata!.uid!)!;
}

/** {@link sharedSeriesName} for each of `objects`, by uid. */
export async function sharedSeriesNames(
  objects: readonly KubernetesObject[],
  event: KubeEvent,
  controller: string,
): Promise<Map<string, string>> {
  const server = await FakeApiServer.start();
  const recorder = new EventRecorder({ reporter: { controller }, kubeConfig: server.kubeConfig(), resumeSeries: true });
  try {
    await Promise.all(objects.map((object) => recorder.publish(object, event)));
    return new Map(server.events().map((stored) => [stored.regarding.uid!, stored.metadata.name]));
  } finally {
    await recorder.onApplicationShutdown();
    await server.close();
  }
}

/**
 * An Event the tenant writes, as its body is sent: about `object` unless
 * `regarding` says otherwise, counting `count`.
 */
export function tenantEvent(
  name: string,
  object: KubernetesObject,
  event: KubeEvent,
  { controller, count, annotations }: { controller: string; count: number; annotations?: Record<string, string> },
): Record<string, unknown> {
  const now = microTimeNow();
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: object.metadata?.namespace ?? 'default', annotations },
    eventTime: now,
    series: count > 1 ? { count, lastObservedTime: now } : undefined,
    type: event.type,
    reason: event.reason,
    action: event.action,
    note: event.note,
    regarding: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata?.name,
      namespace: object.metadata?.namespace,
      uid: object.metadata?.uid,
    },
    reportingController: controller,
    reportingInstance: `${controller}-tenant`,
  };
}

/** Creates the tenant's Event over HTTP, as a tenant's client would; returns it as the server holds it. */
export async function createAsTenant(server: FakeApiServer, body: Record<string, unknown>): Promise<StoredEvent> {
  const { namespace } = body.metadata as { namespace: string };
  const answer = await fetch(`${server.url}/apis/events.k8s.io/v1/namespaces/${namespace}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== 201) throw new Error(`the tenant's Event was refused: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as StoredEvent;
}
