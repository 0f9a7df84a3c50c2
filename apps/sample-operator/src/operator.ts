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
  leaderElection?: Pick<LeaderElection, 'lease' | 'leader' | 'isLeader' | 'whenLeading' | 'whenLost'>;
  /** The port of the health probes (`/healthz`, `/readyz`, `/status`), when `healthProbePort` was given. */
  healthProbePort?: number;
  /** Resolves once the informers have synced (with leader election, once this replica leads). */
  whenReady(): Promise<void>;
  /** Who leads, whether the controller runs; `/status` shows it in words and counts. */
  status(): OperatorStatus;
  /** Closes the application: stops the watches, drains the reconciles, releases the Lease. A second call waits for the first. */
  stop(): Promise<void>;
}

/** What `RunningOperator.status()` returns, in this process: namespaces and error texts included. */
export interface OperatorStatus {
  instance: string;
  leaderElection:
    | { enabled: false }
    | { enabled: true; lease: string; leader: string; isLeader: boolean; state: LeaderElection['state'] };
  /** Whether the controller runs and has synced, and what its caches hold. */
  controller: { running: boolean; synced: boolean; cache: CacheStats };
  /** The Event recorder's health: never a reason to restart or to be not ready. */
  events: KubeEventsHealthState;
}

/** Nest options for {@link startOperator}. */
export interface StartOperatorOptions {
  /** Where the operator logs, behind the credential redaction. @default Nest's console logger */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Serves the probes on the health port when one is set (`HEALTH_PROBE_PORT`,
 * `healthProbePort`), else only initialises the application; resolves with the port.
 */
export async function listenForProbes(app: INestApplication): Promise<number | undefined> {
  const { healthProbePort: port, healthProbeBindAddress: host } = app.get<ResolvedOperatorOptions>(OPERATOR_OPTIONS);
  if (port === undefined) {
    await app.init();
    return undefined;
  }
  const server = (await (host === undefined ? app.listen(port) : app.listen(port, host))) as Server;
  const { port: listening } = server.address() as AddressInfo;
  new Logger('Operator').log(
    `health probes on ${host ?? 'every address'}, port ${listening} (/healthz, /readyz, /status; no authentication)`,
  );
  return listening;
}

/**
 * Starts the operator in this process, as `main.ts` does, with `options` over
 * the environment's settings, and returns without waiting for the informers
 * to sync; await `whenReady()` for that.
 *
 * @example
 * const operator = await startOperator({ kubeConfig, retryMaxDelayMs: 2_000 });
 * await operator.whenReady();
 * await operator.stop();
 */
export async function startOperator(
  options: OperatorOptions = {},
  nest: StartOperatorOptions = {},
): Promise<RunningOperator> {
  const app = await NestFactory.create(OperatorModule.forRoot(options), {
    logger: redactingLogger(nest.logger),
    abortOnError: false,
    forceCloseConnections: true,
  });
  const healthProbePort = await listenForProbes(app).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const controller = app.get(ConfigMirrorController);
  const election = app.get(LeaderElection);
  const events = app.get(KubeEventsHealth);
  const { instance } = app.get<ResolvedOperatorOptions>(OPERATOR_OPTIONS);
  let stopping: Promise<void> | undefined;
  return {
    app,
    controller,
    instance,
    ...(election.enabled ? { leaderElection: election } : {}),
    ...(healthProbePort !== undefined ? { healthProbePort } : {}),
    whenReady: () => controller.whenReady(),
    status: () => ({
      instance,
      leaderElection: election.enabled
        ? {
            enabled: true,
            lease: election.lease,
            leader: election.leader,
            isLeader: election.isLeader,
            state: election.state,
          }
        : { enabled: false },
      controller: { running: controller.isRunning, synced: controller.isReady, cache: controller.cacheStats() },
      events: events.state(),
    }),
    stop: () => (stopping ??= app.close()),
  };
}
