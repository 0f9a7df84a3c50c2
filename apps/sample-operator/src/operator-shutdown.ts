import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';

/**
 * What the operator does around Nest's shutdown of its application (on
 * SIGTERM through `enableShutdownHooks`, or `app.close()`), in Nest's order:
 * the `beginning` steps first, before the controller drains its reconciles
 * (this module is destroyed before the modules it imports); the `afterEvents`
 * steps last, once the recorder has written its last Events (it does so
 * before application shutdown): release the Lease, close the health server,
 * flush the telemetry.
 */
@Injectable()
export class OperatorShutdown implements OnModuleDestroy, OnApplicationShutdown {
  private readonly beginning: (() => void)[] = [];
  private readonly afterEvents: (() => Promise<void>)[] = [];
  private readonly logger = new Logger('Operator');

  /** Runs `step` as the shutdown begins. */
  whenBeginning(step: () => void): void {
    this.beginning.push(step);
  }

  /** Runs `step` once the Events are written, after the steps added before it. */
  afterEventsWritten(step: () => Promise<void>): void {
    this.afterEvents.push(step);
  }

  onModuleDestroy(): void {
    for (const step of this.beginning) step();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const step of this.afterEvents) {
      // One step failing (the Lease could not be released, say) leaves the next to run.
      await step().catch((error: unknown) => this.logger.error(`while shutting down: ${String(error)}`));
    }
  }
}
