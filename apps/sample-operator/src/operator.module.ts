import { Module, type DynamicModule } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeEventsModule } from 'nestjs-kube-events';
import { ConfigMirrorModule } from './config-mirror/config-mirror.module.js';
import { CONFIG_MIRROR_CONTROLLER } from './config-mirror/config-mirror.constants.js';
import { KubeModule } from './kube/kube.module.js';
import { OperatorShutdown } from './operator-shutdown.js';
import { resolveOperatorOptions, type OperatorOptions } from './operator.options.js';

/**
 * The whole operator: one KubeConfig for every client, an Event recorder
 * reporting as `mirror.kube-events.dev/configmirror-controller` (instance: the
 * pod name), and the ConfigMirror controller.
 */
@Module({})
export class OperatorModule {
  static forRoot(options: OperatorOptions = {}): DynamicModule {
    const resolved = resolveOperatorOptions(options);
    return {
      module: OperatorModule,
      imports: [
        KubeModule.forRoot(resolved.kubeConfig, resolved.requestTimeoutMs),
        KubeEventsModule.forRootAsync({
          isGlobal: true,
          inject: [KubeConfig],
          useFactory: (kubeConfig: KubeConfig) => ({
            reporter: { controller: CONFIG_MIRROR_CONTROLLER, instance: resolved.instance },
            kubeConfig,
            // A new leader, or the operator after a restart, continues the failure series left on the server.
            resumeSeries: true,
            ...(resolved.publishTimeoutMs !== undefined ? { timeout: resolved.publishTimeoutMs } : {}),
          }),
        }),
        ConfigMirrorModule.forRoot(resolved),
      ],
      providers: [OperatorShutdown],
    };
  }
}
