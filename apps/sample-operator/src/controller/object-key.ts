import type { KubernetesObject } from '@kubernetes/client-node';

/** The work-queue key of an object: `namespace/name`, or `name` when cluster-scoped (client-go's `MetaNamespaceKeyFunc`). */
export function objectKey(object: KubernetesObject): string {
  const { namespace, name } = object.metadata ?? {};
  if (!name) throw new Error('object has no metadata.name');
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by {@link objectKey}. */
export function splitObjectKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
