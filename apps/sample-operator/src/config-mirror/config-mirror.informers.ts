import type { CoreV1Api, CustomObjectsApi, KubeConfig, V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { ResilientInformer } from '../controller/informer.js';
import {
  CONFIG_MIRROR_API_VERSION,
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
} from './config-mirror.constants.js';
import type { ConfigMirror, ConfigMirrorList } from './config-mirror.types.js';

/** Options shared by the operator's informers. */
export interface InformerSettings {
  resyncPeriodMs: number;
}

/** Lists and watches ConfigMirrors in every namespace. */
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
    resyncPeriodMs: settings.resyncPeriodMs,
    hint: (statusCode) =>
      statusCode === 404
        ? 'is the ConfigMirror CRD installed? (kubectl apply -f apps/sample-operator/deploy/crd.yaml)'
        : statusCode === 403
          ? 'does the service account have the RBAC of apps/sample-operator/deploy/rbac.yaml?'
          : undefined,
  });
}

/** Lists and watches Namespaces: a target that comes to accept a mirror's copies gets them at once. */
export function namespaceInformer(kubeConfig: KubeConfig, core: CoreV1Api): ResilientInformer<V1Namespace> {
  return new ResilientInformer<V1Namespace>({
    name: 'namespaces',
    kubeConfig,
    path: '/api/v1/namespaces',
    list: () => core.listNamespace(),
    hint: (statusCode) =>
      statusCode === 403
        ? 'does the service account have the RBAC of apps/sample-operator/deploy/rbac.yaml?'
        : undefined,
  });
}

/** Lists and watches ConfigMaps in every namespace: sources and copies. */
export function configMapInformer(kubeConfig: KubeConfig, core: CoreV1Api): ResilientInformer<V1ConfigMap> {
  return new ResilientInformer<V1ConfigMap>({
    name: 'configmaps',
    kubeConfig,
    path: '/api/v1/configmaps',
    list: () => core.listConfigMapForAllNamespaces(),
    hint: (statusCode) =>
      statusCode === 403
        ? 'does the service account have the RBAC of apps/sample-operator/deploy/rbac.yaml?'
        : undefined,
  });
}
