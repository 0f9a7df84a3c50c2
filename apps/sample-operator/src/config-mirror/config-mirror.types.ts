import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';

/** `spec` of a ConfigMirror: which ConfigMap to copy where. */
export interface ConfigMirrorSpec {
  /** Name of the source ConfigMap. */
  sourceName: string;
  /** Namespace of the source ConfigMap; the ConfigMirror's own namespace when unset. */
  sourceNamespace?: string;
  /** Namespaces that receive a copy (same name as the source). */
  targetNamespaces: string[];
}

/** A condition, as Kubernetes API conventions define it (`metav1.Condition`). */
export interface ConfigMirrorCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** CamelCase, machine-readable cause of the last transition. */
  reason: string;
  /** What a person needs to know. */
  message: string;
  /** RFC 3339; changes only when `status` changes. */
  lastTransitionTime: string;
  /** The `metadata.generation` this condition was computed from. */
  observedGeneration?: number;
}

/** `status` of a ConfigMirror, written through the status subresource. */
export interface ConfigMirrorStatus {
  /** The `metadata.generation` last reconciled. */
  observedGeneration?: number;
  conditions?: ConfigMirrorCondition[];
  /** Namespaces that hold an up-to-date copy. */
  syncedNamespaces?: string[];
}

/** The ConfigMirror custom resource (`mirror.kube-events.dev/v1alpha1`, namespaced). */
export interface ConfigMirror extends KubernetesObject {
  metadata: V1ObjectMeta & { name: string; namespace: string };
  spec: ConfigMirrorSpec;
  status?: ConfigMirrorStatus;
}

/** The list the API server returns for ConfigMirrors. */
export interface ConfigMirrorList {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: ConfigMirror[];
}
