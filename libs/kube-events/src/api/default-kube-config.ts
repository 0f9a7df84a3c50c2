import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findHomeDir, KubeConfig } from '@kubernetes/client-node';
import { NO_KUBECONFIG } from '../kube-events.messages.js';
import { followTokenFiles } from './token-files.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The KubeConfig a recorder uses when none is given: the pod's service
 * account when running in a cluster, else `$KUBECONFIG` or `~/.kube/config`,
 * whose `token-file` users read their file again as it rotates
 * ({@link followTokenFiles}).
 *
 * @throws Error naming the places looked in when there is none: client-node
 * would otherwise fall back to `http://localhost:8080`, the application
 * would start, and every publish would fail.
 */
export function loadDefaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  const serviceHostSet = Boolean(process.env.KUBERNETES_SERVICE_HOST);
  if (serviceHostSet && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kubeConfig.loadFromCluster();
    return kubeConfig;
  }
  const kubeconfigEnv = process.env.KUBECONFIG;
  const listed = (kubeconfigEnv ?? '').split(delimiter).filter(Boolean);
  const home = findHomeDir();
  const homeConfig = home ? join(home, '.kube', 'config') : undefined;
  const found = listed.length > 0 ? listed.some(isReadable) : homeConfig !== undefined && isReadable(homeConfig);
  // On Windows client-node also asks WSL for a kubeconfig: let it try before giving up.
  if (found || process.platform === 'win32') {
    kubeConfig.loadFromDefault();
    followTokenFiles(kubeConfig, listed.length > 0 ? listed : homeConfig ? [homeConfig] : []);
  }
  if (!found && (process.platform !== 'win32' || isLocalhostFallback(kubeConfig))) {
    throw new Error(
      NO_KUBECONFIG({ serviceAccountToken: SERVICE_ACCOUNT_TOKEN, serviceHostSet, kubeconfigEnv, homeConfig }),
    );
  }
  return kubeConfig;
}

/** A file, or a pipe (`KUBECONFIG=<(kubectl config view --raw)`); not a directory. */
function isReadable(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What client-node's `loadFromDefault` configures when it found nothing. */
function isLocalhostFallback(kubeConfig: KubeConfig): boolean {
  const cluster = kubeConfig.getCurrentCluster();
  return cluster?.name === 'cluster' && cluster.server === 'http://localhost:8080';
}
