// The sample operator's ConfigMirrors, and the ConfigMaps it reads and copies, as the cluster admin of an
// end-to-end test writes and reads them.
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import type {
  ConfigMirror,
  ConfigMirrorCondition,
} from '../../../apps/sample-operator/src/config-mirror/config-mirror.types.js';
import {
  CONFIG_MIRROR_API_VERSION,
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_KIND,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
} from '../../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import { deleteConfigMirror } from './operator-fixtures.js';

const MIRRORS = { group: CONFIG_MIRROR_GROUP, version: CONFIG_MIRROR_VERSION, plural: CONFIG_MIRROR_PLURAL };

/** ConfigMirrors and ConfigMaps through the admin's clients. */
export class ConfigMirrors {
  private readonly core: CoreV1Api;
  private readonly customObjects: CustomObjectsApi;

  constructor(admin: KubeConfig) {
    this.core = admin.makeApiClient(CoreV1Api);
    this.customObjects = admin.makeApiClient(CustomObjectsApi);
  }

  async create(namespace: string, name: string, spec: ConfigMirror['spec']): Promise<ConfigMirror> {
    return (await this.customObjects.createNamespacedCustomObject({
      ...MIRRORS,
      namespace,
      body: { apiVersion: CONFIG_MIRROR_API_VERSION, kind: CONFIG_MIRROR_KIND, metadata: { name, namespace }, spec },
    })) as ConfigMirror;
  }

  async read(namespace: string, name: string): Promise<ConfigMirror> {
    return (await this.customObjects.getNamespacedCustomObject({ ...MIRRORS, namespace, name })) as ConfigMirror;
  }

  /** The mirror's `Ready` condition, once the operator set one. */
  async ready(namespace: string, name: string): Promise<ConfigMirrorCondition | undefined> {
    return (await this.read(namespace, name)).status?.conditions?.find((condition) => condition.type === 'Ready');
  }

  /** Deletes the mirror and waits until it is gone (see {@link deleteConfigMirror}). */
  delete(namespace: string, name: string): Promise<void> {
    return deleteConfigMirror(this.customObjects, namespace, name);
  }

  /** Creates the ConfigMap `namespace/name` with `data`: a mirror's source, or what a copy must not overwrite. */
  createConfigMap(namespace: string, name: string, data: Record<string, string>): Promise<V1ConfigMap> {
    return this.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace }, data } });
  }

  /** A ConfigMap, or `undefined` when there is none. */
  async configMap(namespace: string, name: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }
}
