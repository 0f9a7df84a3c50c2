import 'reflect-metadata';
import type { INestApplicationContext, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigMirrorController } from './config-mirror/config-mirror.controller.js';
import { OperatorModule } from './operator.module.js';
import type { OperatorOptions } from './operator.options.js';

/** A running operator, as {@link startOperator} returns it. */
export interface RunningOperator {
  app: INestApplicationContext;
  controller: ConfigMirrorController;
  /** Resolves once the informers have synced: from then on, changes are reconciled. */
  whenReady(): Promise<void>;
  /** Stops the watches, drains the reconciles in flight and closes the application. */
  stop(): Promise<void>;
}

/** Nest options for {@link startOperator}. */
export interface StartOperatorOptions {
  /** @default Nest's console logger */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Starts the operator in this process: creates the Nest application context
 * (which starts the informers and workers) and returns without waiting for
 * the informers to sync; await `whenReady()` for that.
 *
 * @example
 * const operator = await startOperator({ kubeConfig, retryMaxDelayMs: 2_000 });
 * await operator.whenReady();
 * // … create ConfigMirrors, watch their Events …
 * await operator.stop();
 */
export async function startOperator(
  options: OperatorOptions = {},
  nest: StartOperatorOptions = {},
): Promise<RunningOperator> {
  const app = await NestFactory.createApplicationContext(OperatorModule.forRoot(options), {
    abortOnError: false,
    ...(nest.logger !== undefined ? { logger: nest.logger } : {}),
  });
  const controller = app.get(ConfigMirrorController);
  return {
    app,
    controller,
    whenReady: () => controller.whenReady(),
    stop: () => app.close(),
  };
}
