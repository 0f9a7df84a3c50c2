import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, type INestApplication, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeEventsHealth, type KubeEventsHealthState } from 'nestjs-kube-events';
import { ConfigMirrorController, type CacheStats } from './config-mirror/config-mirror.controller.js';
import { LeaderElection } from './leader-election/leader-election.js';
import { OperatorModule } from './operator.module.js';
import { OPERATOR_OPTIONS, type OperatorOptions, type ResolvedOperatorOptions } from './operator.options.js';
import { redactingLogger } from './redaction/redacting-logger.js';

export type { PublicOperatorStatus } from './health/health.controller.js';

/** A running operator, as {@link startOperator} returns it. */
export interface RunningOperator {
  app: INestApplication;
  controller: ConfigMirrorController;
  /** `reportingInstance` of its Events; with leader election, its identity in the Lease. */
  instance: string;
  /** Leader election, when it is on (`leaderElect`). */
  leaderElection?: Pick<LeaderElection, 'whenLeading' | 'whenLost'>;
  /** The port of the probes (`/healthz`, `/readyz`, `/status`), when `healthProbePort` was given. */
  healthProbePort?: number;
  /** Resolves once the informers have synced (with leader election, once this replica leads). */
  whenReady(): Promise<void>;
  /** The state `/status` shows in words and counts, here with the Lease, the caches and the Events' findings. */
  status(): {
    leaderElection: { enabled: boolean; lease?: string; leader?: string; isLeader?: boolean };
    controller: { running: boolean; synced: boolean; cache: CacheStats };
    events: KubeEventsHealthState;
  };
  /** Closes the application: stops the watches, drains the reconciles, releases the Lease. */
  stop(): Promise<void>;
}

/** Creates the operator's application: Nest's HTTP adapter for the probes, every log line redacted. */
export function createOperator(overrides?: OperatorOptions, logger?: LoggerService | LogLevel[] | false) {
  return NestFactory.create(OperatorModule.forRoot(overrides), {
    logger: redactingLogger(logger),
    abortOnError: false,
    forceCloseConnections: true,
  });
}

/** Listens on the health port when one is set (`HEALTH_PROBE_PORT`), else only initialises; resolves with the port. */
export async function listenForProbes(app: INestApplication): Promise<number | undefined> {
  const { healthProbePort: port, healthProbeBindAddress: host } = app.get<ResolvedOperatorOptions>(OPERATOR_OPTIONS);
  if (port === undefined) {
    await app.init();
    return undefined;
  }
  const server = (await (host === undefined ? app.listen(port) : app.listen(port, host))) as Server;
  const listening = (server.address() as AddressInfo).port;
  new Logger('Operator').log(
    `health probes on ${host ?? 'every address'}, port ${listening} (/healthz, /readyz, /status; no authentication)`,
  );
  return listening;
}

/**
 * Starts the operator in this process, as `main.ts` does, with `options` over
 * the environment's, and returns without waiting for the informers to sync.
 *
 * @example
 * const operator = await startOperator({ kubeConfig, retryMaxDelayMs: 2_000 });
 * await operator.whenReady();
 * await operator.stop();
 */
export async function startOperator(
  options: OperatorOptions = {},
  nest: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<RunningOperator> {
  const app = await createOperator(options, nest.logger);
  const healthProbePort = await listenForProbes(app).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const controller = app.get(ConfigMirrorController);
  const election = app.get(LeaderElection);
  const { elector } = election;
  const events = app.get(KubeEventsHealth);
  let stopping: Promise<void> | undefined;
  return {
    app,
    controller,
    instance: app.get<ResolvedOperatorOptions>(OPERATOR_OPTIONS).instance,
    ...(elector ? { leaderElection: election } : {}),
    ...(healthProbePort !== undefined ? { healthProbePort } : {}),
    whenReady: () => controller.whenReady(),
    status: () => ({
      leaderElection: elector
        ? { enabled: true, lease: elector.describe(), leader: elector.leader, isLeader: elector.isLeader }
        : { enabled: false },
      controller: { running: controller.isRunning, synced: controller.isReady, cache: controller.cacheStats() },
      events: events.state(),
    }),
    stop: () => (stopping ??= app.close()),
  };
}
