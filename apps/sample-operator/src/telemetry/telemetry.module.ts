import { Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { startTelemetry, type Telemetry } from './telemetry.js';

@Injectable()
class TelemetryLifecycle implements OnModuleInit, OnApplicationShutdown {
  private telemetry: Telemetry | undefined;
  async onModuleInit() {
    this.telemetry = await startTelemetry();
  }
  async onApplicationShutdown() {
    await this.telemetry?.shutdown();
  }
}

/**
 * OpenTelemetry, when the environment configures it (see `startTelemetry`): started before any reconcile, and,
 * imported by the operator's module, shut down after its hooks, so the spans of the last reconciles are exported.
 */
@Module({ providers: [TelemetryLifecycle] })
export class TelemetryModule {}
