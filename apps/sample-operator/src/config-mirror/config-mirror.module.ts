import { Module } from '@nestjs/common';
import { ConfigMirrorController } from './config-mirror.controller.js';
import { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';

/**
 * The ConfigMirror controller: reconciler, status writer and controller loop.
 * Needs the `KubeModule` clients, the operator's options and an `EventRecorder` in scope.
 */
@Module({
  providers: [ConfigMirrorStatusWriter, ConfigMirrorReconciler, ConfigMirrorController],
  exports: [ConfigMirrorController, ConfigMirrorReconciler],
})
export class ConfigMirrorModule {}
