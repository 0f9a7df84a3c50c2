/**
 * Attribute names for an Event's identity, as the OpenTelemetry collector's
 * `k8s_events` receiver names them, so that spans, log records and the
 * receiver's own records of the same Event can be joined.
 */
export const K8S_EVENT_ATTRIBUTES = Object.freeze({
  /** The Event's reason. */
  reason: 'k8s.event.reason',
  /** The Event's action. */
  action: 'k8s.event.action',
  /** The Event's name. */
  name: 'k8s.event.name',
  /** The Event's uid. */
  uid: 'k8s.event.uid',
  /** The series count on the server. */
  count: 'k8s.event.count',
  /** The Event's namespace. */
  namespace: 'k8s.namespace.name',
  /** The kind of the object the Event is about. */
  objectKind: 'k8s.object.kind',
  /** The name of the object the Event is about. */
  objectName: 'k8s.object.name',
  /** The uid of the object the Event is about. */
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
