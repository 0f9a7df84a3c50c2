import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MIRROR_NAME_LABEL,
  MIRROR_OWNER_ANNOTATION,
  MIRROR_OWNER_UID_ANNOTATION,
  MIRROR_SOURCE_ANNOTATION,
} from './config-mirror.constants.js';
import type { ConfigMirror } from './config-mirror.types.js';

/**
 * The copy of `source` a ConfigMirror keeps in `namespace`. An owner
 * reference cannot cross namespaces, so the copy names its ConfigMirror in a
 * label (the name) and annotations (`namespace/name`, and its uid, which is
 * what the controller trusts: see {@link copyClaim}). The copy is never
 * immutable, even when the source is, so that it can follow the source.
 */
export function desiredCopy(mirror: ConfigMirror, source: V1ConfigMap, namespace: string): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: source.metadata!.name,
      namespace,
      labels: {
        [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
        [MIRROR_NAME_LABEL]: mirror.metadata.name,
      },
      annotations: {
        [MIRROR_OWNER_ANNOTATION]: `${mirror.metadata.namespace}/${mirror.metadata.name}`,
        ...(mirror.metadata.uid ? { [MIRROR_OWNER_UID_ANNOTATION]: mirror.metadata.uid } : {}),
        [MIRROR_SOURCE_ANNOTATION]: `${source.metadata!.namespace}/${source.metadata!.name}`,
      },
    },
    ...(source.data !== undefined ? { data: { ...source.data } } : {}),
    ...(source.binaryData !== undefined ? { binaryData: { ...source.binaryData } } : {}),
  };
}

/** `namespace/name` of the ConfigMirror that manages `configMap`, if it is a copy. */
export function copyOwner(configMap: V1ConfigMap): string | undefined {
  if (configMap.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_VALUE) return undefined;
  return configMap.metadata.annotations?.[MIRROR_OWNER_ANNOTATION];
}

/** Who a ConfigMap says wrote it: the mirror's `namespace/name` and uid. Anyone can write these; check them. */
export interface CopyClaim {
  owner: string;
  uid: string;
}

/** What `configMap`'s labels and annotations claim about its owner, if they claim one in full. */
export function copyClaim(configMap: V1ConfigMap): CopyClaim | undefined {
  const owner = copyOwner(configMap);
  const uid = configMap.metadata?.annotations?.[MIRROR_OWNER_UID_ANNOTATION];
  return owner && uid ? { owner, uid } : undefined;
}

/** Whether `existing` holds `desired`'s content, labels and annotations (other keys may be added by others). */
export function copyIsCurrent(existing: V1ConfigMap, desired: V1ConfigMap): boolean {
  return (
    sameEntries(existing.data, desired.data) &&
    sameEntries(existing.binaryData, desired.binaryData) &&
    includes(existing.metadata?.labels, desired.metadata?.labels) &&
    includes(existing.metadata?.annotations, desired.metadata?.annotations)
  );
}

/**
 * The object to `replace` `existing` with: the desired content, keeping the
 * labels and annotations others added, and `existing`'s resourceVersion so a
 * concurrent change makes the write fail (409) instead of being lost.
 */
export function updatedCopy(existing: V1ConfigMap, desired: V1ConfigMap): V1ConfigMap {
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      resourceVersion: existing.metadata?.resourceVersion,
      labels: { ...existing.metadata?.labels, ...desired.metadata?.labels },
      annotations: { ...existing.metadata?.annotations, ...desired.metadata?.annotations },
    },
  };
}

function sameEntries(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = Object.entries(a ?? {});
  const right = b ?? {};
  return left.length === Object.keys(right).length && left.every(([key, value]) => right[key] === value);
}

function includes(actual: Record<string, string> | undefined, expected: Record<string, string> | undefined): boolean {
  return Object.entries(expected ?? {}).every(([key, value]) => actual?.[key] === value);
}
