import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

/**
 * Provides the one {@link KubeConfig} of the process, and the API clients made
 * from it. The operator's informers and clients and the event recorder all use
 * it, so they talk to the same cluster as the same identity.
 */
@Global()
@Module({})
export class KubeModule {
  /**
   * @param kubeConfig the cluster to use; without it, `KubeConfig.loadFromDefault()`
   *   (`$KUBECONFIG`, else `~/.kube/config`, else the in-cluster service account).
   */
  static forRoot(kubeConfig?: KubeConfig): DynamicModule {
    return {
      module: KubeModule,
      providers: [
        {
          provide: KubeConfig,
          useFactory: () => kubeConfig ?? loadDefaultKubeConfig(),
        },
        { provide: CoreV1Api, inject: [KubeConfig], useFactory: (kc: KubeConfig) => kc.makeApiClient(CoreV1Api) },
        {
          provide: CustomObjectsApi,
          inject: [KubeConfig],
          useFactory: (kc: KubeConfig) => kc.makeApiClient(CustomObjectsApi),
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
