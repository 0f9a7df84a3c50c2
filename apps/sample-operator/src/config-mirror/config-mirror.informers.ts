import type { CoreV1Api, CustomObjectsApi, KubeConfig, V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { ResilientInformer } from '../controller/informer.js';
import { setHeaderOptions } from '@kubernetes/client-node';
import { METADATA_ONLY_LIST } from '../kube/trimming-watch.js';
import {
  CONFIG_MIRROR_API_VERSION,
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
  COPIES_CLUSTER_ROLE,
  MIRRORS_CLUSTER_ROLE,
} from './config-mirror.constants.js';
import type { ConfigMirror, ConfigMirrorList } from './config-mirror.types.js';
import { trimConfigMap, trimConfigMirror, trimNamespace } from './trimmed-objects.js';

/** Options shared by the operator's informers. */
export interface InformerSettings {
  resyncPeriodMs: number;
}

const RBAC_HINT = 'does the service account have the RBAC of apps/sample-operator/deploy/rbac.yaml?';

/** Lists and watches ConfigMirrors in every namespace, keeping what a reconcile reads (spec, status, identity). */
export function configMirrorInformer(
  kubeConfig: KubeConfig,
  customObjects: CustomObjectsApi,
  settings: InformerSettings,
): ResilientInformer<ConfigMirror> {
  return new ResilientInformer<ConfigMirror>({
    name: CONFIG_MIRROR_PLURAL,
    kubeConfig,
    path: `/apis/${CONFIG_MIRROR_API_VERSION}/${CONFIG_MIRROR_PLURAL}`,
    list: async () =>
      (await customObjects.listCustomObjectForAllNamespaces({
        group: CONFIG_MIRROR_GROUP,
        version: CONFIG_MIRROR_VERSION,
        resourcePlural: CONFIG_MIRROR_PLURAL,
      })) as ConfigMirrorList,
    trim: trimConfigMirror,
    resyncPeriodMs: settings.resyncPeriodMs,
    hint: (statusCode) =>
      statusCode === 404
        ? 'is the ConfigMirror CRD installed? (kubectl apply -f apps/sample-operator/deploy/crd.yaml)'
        : statusCode === 403
          ? RBAC_HINT
          : undefined,
  });
}

/** Lists and watches Namespaces (their names and accept-from labels): a target that comes to accept copies gets them at once. */
export function namespaceInformer(kubeConfig: KubeConfig, core: CoreV1Api): ResilientInformer<V1Namespace> {
  return new ResilientInformer<V1Namespace>({
    name: 'namespaces',
    kubeConfig,
    path: '/api/v1/namespaces',
    list: () => core.listNamespace(),
    trim: trimNamespace,
    hint: (statusCode) => (statusCode === 403 ? RBAC_HINT : undefined),
  });
}

/**
 * Lists and watches the ConfigMaps of one namespace, metadata only: their
 * changes queue the mirrors they are the source or a copy of, and a
 * reconcile reads the content it needs. The operator may list them only
 * where the namespace opted in (a RoleBinding of one of its ClusterRoles).
 */
export function configMapInformer(
  kubeConfig: KubeConfig,
  core: CoreV1Api,
  namespace: string,
): ResilientInformer<V1ConfigMap> {
  return new ResilientInformer<V1ConfigMap>({
    name: `configmaps in ${namespace}`,
    kubeConfig,
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`,
    list: () => core.listNamespacedConfigMap({ namespace }, setHeaderOptions('Accept', METADATA_ONLY_LIST)),
    trim: trimConfigMap,
    metadataOnly: true,
    hint: (statusCode) =>
      statusCode === 403
        ? `namespace ${namespace} has not opted in: it needs a RoleBinding of the ClusterRole ${MIRRORS_CLUSTER_ROLE} ` +
          `(for its ConfigMirrors) or ${COPIES_CLUSTER_ROLE} (for copies) to the operator's service account`
        : undefined,
  });
}
