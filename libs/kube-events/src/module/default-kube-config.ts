import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The KubeConfig a recorder uses when none is given: the pod's service
 * account when running in a cluster, else `$KUBECONFIG` or `~/.kube/config`.
 */
export function loadDefaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}
