import type { V1ConfigMap, V1Namespace, V1ObjectMeta } from '@kubernetes/client-node';
import {
  ACCEPT_MIRRORS_FROM_LABEL_PREFIX,
  MANAGED_BY_LABEL,
  MIRROR_NAME_LABEL,
  MIRROR_OWNER_ANNOTATION,
  MIRROR_OWNER_UID_ANNOTATION,
  MIRROR_SOURCE_ANNOTATION,
} from './config-mirror.constants.js';
import type { ConfigMirror } from './config-mirror.types.js';

/**
 * What the operator's caches keep of each object: its identity and the
 * labels and annotations the operator reads, nothing a tenant can make
 * large (data, managedFields, other annotations). The caches are then as
 * big as the number of objects, whatever their content.
 */

/** A ConfigMap as its informer keeps it: name, namespace, versions and the operator's own labels and annotations. */
export function trimConfigMap(configMap: V1ConfigMap): V1ConfigMap {
  const metadata = configMap.metadata ?? {};
  return {
    metadata: {
      ...identity(metadata),
      ...present(
        'labels',
        pick(metadata.labels, (key) => key === MANAGED_BY_LABEL || key === MIRROR_NAME_LABEL),
      ),
      ...present(
        'annotations',
        pick(
          metadata.annotations,
          (key) =>
            key === MIRROR_OWNER_ANNOTATION || key === MIRROR_OWNER_UID_ANNOTATION || key === MIRROR_SOURCE_ANNOTATION,
        ),
      ),
    },
  };
}

/** A Namespace as its informer keeps it: its name and its `accept-from.mirror.kube-events.dev/…` labels. */
export function trimNamespace(namespace: V1Namespace): V1Namespace {
  const metadata = namespace.metadata ?? {};
  return {
    metadata: {
      ...identity(metadata),
      ...present(
        'labels',
        pick(metadata.labels, (key) => key.startsWith(ACCEPT_MIRRORS_FROM_LABEL_PREFIX)),
      ),
    },
  };
}

/** A ConfigMirror as its informer keeps it: identity, generation, spec and status; no labels, annotations or managedFields. */
export function trimConfigMirror(mirror: ConfigMirror): ConfigMirror {
  return {
    ...(mirror.apiVersion ? { apiVersion: mirror.apiVersion } : {}),
    ...(mirror.kind ? { kind: mirror.kind } : {}),
    metadata: {
      ...identity(mirror.metadata),
      name: mirror.metadata.name,
      namespace: mirror.metadata.namespace,
      ...(mirror.metadata.generation !== undefined ? { generation: mirror.metadata.generation } : {}),
    },
    spec: mirror.spec,
    ...(mirror.status ? { status: mirror.status } : {}),
  };
}

function identity(metadata: V1ObjectMeta): V1ObjectMeta {
  return {
    ...(metadata.name !== undefined ? { name: metadata.name } : {}),
    ...(metadata.namespace !== undefined ? { namespace: metadata.namespace } : {}),
    ...(metadata.uid !== undefined ? { uid: metadata.uid } : {}),
    ...(metadata.resourceVersion !== undefined ? { resourceVersion: metadata.resourceVersion } : {}),
  };
}

function pick(
  entries: Record<string, string> | undefined,
  keep: (key: string) => boolean,
): Record<string, string> | undefined {
  if (!entries) return undefined;
  const kept = Object.entries(entries).filter(([key]) => keep(key));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

function present<K extends string>(
  key: K,
  value: Record<string, string> | undefined,
): Partial<Record<K, Record<string, string>>> {
  return value ? ({ [key]: value } as Record<K, Record<string, string>>) : {};
}
