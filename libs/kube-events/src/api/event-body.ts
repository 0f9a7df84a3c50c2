import { V1MicroTime, type EventsV1Event, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent, Reporter } from '../kube-events.interfaces.js';

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

/** Namespace of the Events about cluster-scoped objects, one of the two the API server allows. */
const CLUSTER_SCOPED_EVENT_NAMESPACE = 'default';

/** The namespace an Event about `resource` is written to. */
export function eventNamespace(resource: KubernetesObject): string {
  return resource.metadata?.namespace || CLUSTER_SCOPED_EVENT_NAMESPACE;
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
