import { Injectable, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { startTelemetry, type Telemetry } from './telemetry.js';

/** Starts OpenTelemetry when the environment configures it, before any reconcile; flushes it last on shutdown. */
@Injectable()
class TelemetryLifecycle implements OnModuleInit, OnApplicationShutdown {
  private telemetry: Telemetry | undefined;

  async onModuleInit(): Promise<void> {
    this.telemetry = await startTelemetry();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.telemetry?.shutdown().catch((error: unknown) => new Logger('Telemetry').warn(String(error)));
  }
}

/**
 * OpenTelemetry for the operator (see `startTelemetry`). Imported by the
 * operator's module, so Nest shuts it down after the operator's own hooks:
 * the spans of the last reconciles and of the Lease's release are exported.
 */
@Module({ providers: [TelemetryLifecycle] })
export class TelemetryModule {}
