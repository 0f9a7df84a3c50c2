import { Module, type DynamicModule } from '@nestjs/common';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { ConfigMirrorController } from './config-mirror.controller.js';
import { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';

/**
 * The ConfigMirror controller: reconciler, status writer and controller loop.
 * Needs the `KubeModule` clients and an `EventRecorder` in scope.
 */
@Module({})
export class ConfigMirrorModule {
  static forRoot(options: ResolvedOperatorOptions): DynamicModule {
    return {
      module: ConfigMirrorModule,
      providers: [
        { provide: OPERATOR_OPTIONS, useValue: options },
        ConfigMirrorStatusWriter,
        ConfigMirrorReconciler,
        ConfigMirrorController,
      ],
      exports: [ConfigMirrorController, ConfigMirrorReconciler],
    };
  }
}
