import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';

/** A ConfigMap in `default` with a uid derived from its name, as an informer would hand it over. */
export const configMap = (name = 'app'): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
});

/** A Warning a controller would publish when its sync fails. */
export const syncFailed: KubeEvent = {
  type: 'Warning',
  reason: 'SyncFailed',
  action: 'Sync',
  note: 'source is missing',
};
