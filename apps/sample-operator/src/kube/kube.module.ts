import { Global, Module } from '@nestjs/common';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { boundedApiClient } from './bounded-api-client.js';

/**
 * Provides the one {@link KubeConfig} of the process, and the API clients made
 * from it. The
 * operator's informers and clients and the event recorder all use it, so
 * they talk to the same cluster as the same identity. The cluster is the
 * options' `kubeConfig`, else `KubeConfig.loadFromDefault()` (`$KUBECONFIG`,
 * else `~/.kube/config`, else the in-cluster service account); each request
 * is bounded by `requestTimeoutMs`.
 */
@Global()
@Module({
  providers: [
    {
      provide: KubeConfig,
      inject: [OPERATOR_OPTIONS],
      useFactory: (options: ResolvedOperatorOptions) => options.kubeConfig ?? loadDefaultKubeConfig(),
    },
    {
      provide: CoreV1Api,
      inject: [KubeConfig, OPERATOR_OPTIONS],
      useFactory: (kc: KubeConfig, options: ResolvedOperatorOptions) =>
        boundedApiClient(kc, CoreV1Api, options.requestTimeoutMs),
    },
    {
      provide: CustomObjectsApi,
      inject: [KubeConfig, OPERATOR_OPTIONS],
      useFactory: (kc: KubeConfig, options: ResolvedOperatorOptions) =>
        boundedApiClient(kc, CustomObjectsApi, options.requestTimeoutMs),
    },
  ],
  exports: [KubeConfig, CoreV1Api, CustomObjectsApi],
})
export class KubeModule {}

function loadDefaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error('no Kubernetes cluster configured: set KUBECONFIG, or run in a pod with a service account');
  }
  return kubeConfig;
}
