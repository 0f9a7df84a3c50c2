// Another user's view of the same API server, or the same user's of another server: for refusals a test provokes.
import { KubeConfig } from '@kubernetes/client-node';

/** A KubeConfig for the API server `admin` names, with another user's token, or pointing at another server. */
export function kubeConfigWith(admin: KubeConfig, changes: { token?: string; server?: string }): KubeConfig {
  const cluster = admin.getCurrentCluster()!;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ ...cluster, name: 'cluster', server: changes.server ?? cluster.server }],
    users: [{ name: 'user', token: changes.token ?? admin.getCurrentUser()!.token }],
    contexts: [{ name: 'context', cluster: 'cluster', user: 'user' }],
    currentContext: 'context',
  });
  return kubeConfig;
}
