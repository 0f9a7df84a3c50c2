import { Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { startTelemetry, type Telemetry } from './telemetry.js';

/**
 * OpenTelemetry, when the environment configures it (see `startTelemetry`): started before any reconcile, and,
 * imported by the operator's module, shut down after its hooks, so the spans of the last reconciles are exported.
 */
@Module({})
export class TelemetryModule implements OnModuleInit, OnApplicationShutdown {
  private telemetry: Telemetry | undefined;

  async onModuleInit(): Promise<void> {
    this.telemetry = await startTelemetry();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.telemetry?.shutdown();
  }
}
