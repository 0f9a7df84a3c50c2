import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeEventsModule } from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { ConfigMirrorModule } from './config-mirror/config-mirror.module.js';
import { CONFIG_MIRROR_CONTROLLER } from './config-mirror/config-mirror.constants.js';
import { HealthController } from './health/health.controller.js';
import { KubeModule } from './kube/kube.module.js';
import { LeaderElection } from './leader-election/leader-election.js';
import {
  OPERATOR_OPTIONS,
  operatorConfig,
  type OperatorOptions,
  type ResolvedOperatorOptions,
} from './operator.options.js';
import { TelemetryModule } from './telemetry/telemetry.module.js';

/**
 * The whole operator: its options (global, as `OPERATOR_OPTIONS`), one KubeConfig for every client, the Event
 * recorder (instance: the pod name), the ConfigMirror controller, the leader election that runs it, the probes.
 */
@Global()
@Module({})
export class OperatorModule {
  /** @param overrides over the environment's settings (an operator started by a test or a script). */
  static forRoot(overrides: OperatorOptions = {}): DynamicModule {
    const options = {
      provide: OPERATOR_OPTIONS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<{ operator: ResolvedOperatorOptions }, true>) => ({
        ...config.get('operator', { infer: true }),
        ...overrides,
      }),
    };
    return {
      module: OperatorModule,
      imports: [
        ConfigModule.forRoot(operatorConfig),
        KubeModule,
        KubeEventsModule.forRootAsync({
          isGlobal: true,
          inject: [KubeConfig, OPERATOR_OPTIONS],
          useFactory: (kubeConfig: KubeConfig, options: ResolvedOperatorOptions) => ({
            reporter: { controller: CONFIG_MIRROR_CONTROLLER, instance: options.instance },
            kubeConfig,
            // A new leader, or the operator after a restart, continues the failure series left on the server.
            resumeSeries: true,
            ...(options.publishTimeoutMs !== undefined ? { timeout: options.publishTimeoutMs } : {}),
          }),
        }),
        ConfigMirrorModule,
        TerminusModule,
        TelemetryModule,
      ],
      controllers: [HealthController],
      providers: [options, LeaderElection, KubeEventsHealthIndicator],
      exports: [OPERATOR_OPTIONS],
    };
  }
}
