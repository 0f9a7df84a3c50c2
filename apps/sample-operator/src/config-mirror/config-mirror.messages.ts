/** The texts a person reads: Event notes, condition messages and errors. */

export const sourceNotFound = (source: string) => `source ConfigMap ${source} not found`;

export const targetNamespacesNotFound = (namespaces: readonly string[]) =>
  namespaces.length === 1
    ? `target namespace ${namespaces[0]} not found`
    : `target namespaces ${namespaces.join(', ')} not found`;

export const sourceNotAllowed = (sourceNamespace: string, own: string) =>
  `spec.sourceNamespace ${sourceNamespace} is refused: a ConfigMirror copies only from its own namespace (${own}); ` +
  `nothing was read from ${sourceNamespace}`;

export const targetsNotAllowed = (namespaces: readonly string[], from: string, label: string) =>
  namespaces.length === 1
    ? `target namespace ${namespaces[0]} does not accept mirrors from ${from}: it needs the label ${label}=true`
    : `target namespaces ${namespaces.join(', ')} do not accept mirrors from ${from}: each needs the label ${label}=true`;

export const targetNotManaged = (target: string, mirror: string) =>
  `ConfigMap ${target} already exists and is not managed by ConfigMirror ${mirror}; ` +
  `delete it or remove its namespace from targetNamespaces`;

export const targetIsSource = (source: string) =>
  `targetNamespaces lists the source's own namespace: the copy would be ConfigMap ${source} itself`;

export const noTargets = () => 'spec.targetNamespaces is empty: nothing to copy to';

export const apiRequestFailed = (verb: string, what: string, detail: string) => `could not ${verb} ${what}: ${detail}`;

export const notOptedIn = (failure: string, namespace: string, role: string) =>
  `${failure} (the API server lets the operator into namespace ${namespace} only once it opts in: ` +
  `a RoleBinding there of the ClusterRole ${role} to the operator's service account)`;

export const copied = (source: string, namespaces: readonly string[]) =>
  `copied ConfigMap ${source} to ${namespaces.join(', ')}`;

export const inSync = (source: string, namespaces: readonly string[]) =>
  `ConfigMap ${source} is mirrored to ${namespaces.join(', ')}`;
