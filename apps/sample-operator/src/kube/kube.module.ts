import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { boundedApiClient } from './bounded-api-client.js';

/**
 * Provides the one {@link KubeConfig} of the process, and the API clients made
 * from it, each request of which is bounded by `requestTimeoutMs`. The
 * operator's informers and clients and the event recorder all use it, so
 * they talk to the same cluster as the same identity.
 */
@Global()
@Module({})
export class KubeModule {
  /**
   * @param kubeConfig the cluster to use; without it, `KubeConfig.loadFromDefault()`
   *   (`$KUBECONFIG`, else `~/.kube/config`, else the in-cluster service account).
   * @param requestTimeoutMs the bound on each request of the clients (reads, lists, writes).
   */
  static forRoot(kubeConfig: KubeConfig | undefined, requestTimeoutMs: number): DynamicModule {
    return {
      module: KubeModule,
      providers: [
        {
          provide: KubeConfig,
          useFactory: () => kubeConfig ?? loadDefaultKubeConfig(),
        },
        {
          provide: CoreV1Api,
          inject: [KubeConfig],
          useFactory: (kc: KubeConfig) => boundedApiClient(kc, CoreV1Api, requestTimeoutMs),
        },
        {
          provide: CustomObjectsApi,
          inject: [KubeConfig],
          useFactory: (kc: KubeConfig) => boundedApiClient(kc, CustomObjectsApi, requestTimeoutMs),
        },
      ],
      exports: [KubeConfig, CoreV1Api, CustomObjectsApi],
    };
  }
}

function loadDefaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error('no Kubernetes cluster configured: set KUBECONFIG, or run in a pod with a service account');
  }
  return kubeConfig;
}
