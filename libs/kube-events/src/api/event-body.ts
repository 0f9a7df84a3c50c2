import { V1MicroTime, type EventsV1Event, type KubernetesObject } from '@kubernetes/client-node';
import type { ClusterScopedEventNamespace, KubeEvent, Reporter } from '../kube-events.interfaces.js';

/** What a create fixes before its first attempt, so that a retry sends the same Event. */
export interface EventCreation {
  /** Client-chosen (see `eventName`), so that a retried create cannot make a second Event. */
  readonly name: string;
  readonly namespace: string;
  /** In epoch milliseconds. */
  readonly eventTime: number;
  /** Occurrences the Event carries from the start. */
  readonly count: number;
}

/**
 * The namespaces an Event about a cluster-scoped object may be created in:
 * the API server refuses an `events.k8s.io` Event whose `regarding` has no
 * namespace anywhere else (422, `involvedObject.namespace: does not match
 * event.namespace`; `pkg/apis/core/validation/events.go`).
 */
export const CLUSTER_SCOPED_EVENT_NAMESPACES: readonly ClusterScopedEventNamespace[] = ['default', 'kube-system'];

/** The namespace an Event about `resource` is written to: its own, or `clusterScoped` when it has none. */
export function eventNamespace(
  resource: KubernetesObject,
  clusterScoped: ClusterScopedEventNamespace = 'default',
): string {
  return resource.metadata?.namespace || clusterScoped;
}

/** The `events.k8s.io/v1` Event created for a publish (README: "The Event written"). */
export function eventBody(
  resource: KubernetesObject,
  event: KubeEvent,
  reporter: Required<Reporter>,
  { name, namespace, eventTime, count }: EventCreation,
): EventsV1Event {
  const metadata = resource.metadata ?? {};
  const observed = new V1MicroTime(eventTime);
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: {
      name,
      namespace,
      labels: event.labels,
      annotations: event.annotations,
    },
    // A plain Date is sent with 3 fractional digits, which the server refuses; MicroTime needs 6.
    eventTime: observed,
    // Occurrences folded before the first write: the server takes a series from 2 on.
    series: count > 1 ? { count, lastObservedTime: observed } : undefined,
    type: event.type,
    reason: event.reason,
    action: event.action,
    note: event.note,
    related: event.related,
    regarding: {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: metadata.name,
      namespace: metadata.namespace,
      uid: metadata.uid,
      resourceVersion: metadata.resourceVersion,
    },
    reportingController: reporter.controller,
    reportingInstance: reporter.instance,
  };
}

/**
 * `time` as a `MicroTime` in JSON: RFC 3339 in UTC with six fractional
 * digits, the only precision the API server takes (a `Date` gives three).
 * What client-node's `V1MicroTime` writes, made a string before the body
 * is: `JSON.stringify` of an object that holds a `Date` takes its slow
 * path for all of it. Read as a plain `Date`, so that a `V1MicroTime` and a
 * `Date` come out alike.
 */
export function microTime(time: Date): string {
  // Date's own, not a V1MicroTime's override: one format for both.
  return `${Date.prototype.toISOString.call(time).slice(0, -1)}000Z`;
}
