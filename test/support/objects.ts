import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';

/** Where a {@link configMap} is, and what the API server gave it. */
export interface ObjectPlace {
  /** @default 'default' */
  namespace?: string;
  /** @default `uid-<name>` */
  uid?: string;
  /** Left out unless given. */
  resourceVersion?: string;
}

/** A ConfigMap in `default` with a uid derived from its name, as an informer would hand it over. */
export const configMap = (
  name = 'app',
  { namespace = 'default', uid = `uid-${name}`, resourceVersion }: ObjectPlace = {},
): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid, ...(resourceVersion !== undefined && { resourceVersion }) },
});

/** A Warning a controller would publish when its sync fails. */
export const syncFailed: KubeEvent = {
  type: 'Warning',
  reason: 'SyncFailed',
  action: 'Sync',
  note: 'source is missing',
};

/** The Warning a `@PublishesFailures` method publishes by default, with a note. */
export const reconcileFailed: KubeEvent = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source missing',
};
