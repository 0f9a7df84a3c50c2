import { Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { startTelemetry, type Telemetry } from './telemetry.js';

/** OpenTelemetry, when configured: started before any reconcile, shut down after the operator's last spans. */
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
