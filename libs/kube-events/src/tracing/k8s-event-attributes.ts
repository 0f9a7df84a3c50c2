/**
 * Attribute names for an Event's identity, as the OpenTelemetry collector's
 * `k8s_events` receiver names them, so that spans, log records and the
 * receiver's own records of the same Event can be joined.
 */
export const K8S_EVENT_ATTRIBUTES = Object.freeze({
  reason: 'k8s.event.reason',
  action: 'k8s.event.action',
  name: 'k8s.event.name',
  uid: 'k8s.event.uid',
  count: 'k8s.event.count',
  namespace: 'k8s.namespace.name',
  objectKind: 'k8s.object.kind',
  objectName: 'k8s.object.name',
  objectUid: 'k8s.object.uid',
});

/** What a span or a log record says about an Event; unknown fields are left out. */
export interface K8sEventIdentity {
  readonly reason?: string;
  readonly action?: string;
  /** The Event's name and namespace. */
  readonly name?: string;
  readonly uid?: string;
  readonly namespace?: string;
  /** The series count on the server. */
  readonly count?: number;
  /** The object the Event is about. */
  readonly object?: { readonly kind?: string; readonly name?: string; readonly uid?: string };
}

/** The attributes of `identity`, under the receiver's names. */
export function k8sEventAttributes(identity: K8sEventIdentity): Record<string, string | number> {
  const attributes: Record<string, string | number> = {};
  const set = (key: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '') attributes[key] = value;
  };
  set(K8S_EVENT_ATTRIBUTES.reason, identity.reason);
  set(K8S_EVENT_ATTRIBUTES.action, identity.action);
  set(K8S_EVENT_ATTRIBUTES.name, identity.name);
  set(K8S_EVENT_ATTRIBUTES.uid, identity.uid);
  set(K8S_EVENT_ATTRIBUTES.count, identity.count);
  set(K8S_EVENT_ATTRIBUTES.namespace, identity.namespace);
  set(K8S_EVENT_ATTRIBUTES.objectKind, identity.object?.kind);
  set(K8S_EVENT_ATTRIBUTES.objectName, identity.object?.name);
  set(K8S_EVENT_ATTRIBUTES.objectUid, identity.object?.uid);
  return attributes;
}
