import 'reflect-metadata';
import { Logger, type INestApplicationContext, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  healthSummary,
  KubeEventsHealth,
  type KubeEventsHealthState,
  type KubeEventsHealthSummary,
} from 'nestjs-kube-events';
import { ConfigMirrorController, type CacheStats } from './config-mirror/config-mirror.controller.js';
import { HealthServer } from './health/health-server.js';
import { LeaderElector } from './leader-election/leader-elector.js';
import { LeaseLock } from './leader-election/lease-lock.js';
import { OperatorModule } from './operator.module.js';
import { OperatorShutdown } from './operator-shutdown.js';
import { boundedApiClient } from './kube/bounded-api-client.js';
import {
  leaseRequestTimeoutMs,
  resolveOperatorOptions,
  type OperatorOptions,
  type ResolvedOperatorOptions,
} from './operator.options.js';
import { redactingLogger } from './redaction/redacting-logger.js';

/** How long past its lease duration a leader that has not renewed still counts as alive (client-go's healthz adaptor uses 20 s). */
const LIVENESS_TOLERANCE_MS = 20_000;

/** A running operator, as {@link startOperator} returns it. */
export interface RunningOperator {
  app: INestApplicationContext;
  controller: ConfigMirrorController;
  /** `reportingInstance` of its Events; with leader election, its identity in the Lease. */
  instance: string;
  /** Leader election, when it is on (`leaderElect`); undefined otherwise. */
  leaderElection?: OperatorLeaderElection;
  /** The port of the health probes (`/healthz`, `/readyz`, `/status`), when `healthProbePort` was given. */
  healthProbePort?: number;
  /**
   * Resolves once the informers have synced: from then on, changes are
   * reconciled. With leader election, only once this replica leads.
   */
  whenReady(): Promise<void>;
  /** Who leads, whether the controller runs; `/status` shows its {@link publicStatus}. */
  status(): OperatorStatus;
  /**
   * Stops the watches, drains the reconciles in flight and closes the
   * application; then, with leader election, releases the Lease if this
   * replica holds it (it keeps renewing it until then), so that another
   * replica takes over at once: what `app.close()` does, and Nest's shutdown
   * hooks on a signal. A second call waits for the first.
   */
  stop(): Promise<void>;
  /** Runs `step` at the end of the shutdown, once the Lease is released and the health server closed. */
  afterShutdown(step: () => Promise<void>): void;
}

/** This replica's view of the election. */
export interface OperatorLeaderElection {
  /** `namespace/name` of the Lease. */
  readonly lease: string;
  /** The holder of the Lease as this replica last saw it; `''` when nobody holds it. */
  readonly leader: string;
  /** Whether this replica leads (and so runs the controller). */
  readonly isLeader: boolean;
  /** Resolves when this replica acquires the Lease and starts the controller. */
  whenLeading(): Promise<void>;
  /**
   * Resolves, with the reason, when this replica loses the Lease: it could
   * not renew it within the renew deadline, or someone else holds it. The
   * controller is stopping by then and does not start again; `main.ts` then
   * stops the operator and exits 1, as controller-runtime does, for the
   * Deployment to restart it as a candidate.
   */
  whenLost(): Promise<string>;
}

/** What `RunningOperator.status()` returns, in this process: `/status` shows only its {@link publicStatus}. */
export interface OperatorStatus {
  instance: string;
  leaderElection:
    | { enabled: false }
    | { enabled: true; lease: string; leader: string; isLeader: boolean; state: LeaderElector['state'] };
  /** Whether the controller runs and has synced, and what its caches hold (their size does not grow with what tenants put in ConfigMaps). */
  controller: { running: boolean; synced: boolean; cache: CacheStats };
  /**
   * The Event recorder's health: whether Events can be written, and if not why (permissions missing, by
   * namespace and verb; credentials failing; the API server unreachable). Never a reason to restart or to
   * be not ready: the operator's work is the copies, Events only report on it.
   */
  events: KubeEventsHealthState;
}

/**
 * What `/status` answers, to anyone who reaches the health port: the pod's
 * name, the Lease holder, and the controller's and the Events' state in
 * words and counts (`deploy/network-policy.yaml` says so). Namespaces,
 * addresses and error texts stay in {@link OperatorStatus} and the log.
 */
export interface PublicOperatorStatus {
  instance: string;
  leaderElection:
    { enabled: false } | { enabled: true; leader: string; isLeader: boolean; state: LeaderElector['state'] };
  controller: { running: boolean; synced: boolean };
  events: KubeEventsHealthSummary;
}

/** The part of `status` that `/status` shows. */
function publicStatus(status: OperatorStatus): PublicOperatorStatus {
  const { leaderElection: election, controller } = status;
  return {
    instance: status.instance,
    leaderElection: election.enabled
      ? { enabled: true, leader: election.leader, isLeader: election.isLeader, state: election.state }
      : { enabled: false },
    controller: { running: controller.running, synced: controller.synced },
    events: healthSummary(status.events),
  };
}

/** Nest options for {@link startOperator}. */
export interface StartOperatorOptions {
  /**
   * Where the operator logs; whatever it is, every line passes the operator's
   * credential redaction first.
   * @default Nest's console logger
   */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Starts the operator in this process: creates the Nest application context
 * and returns without waiting for the informers to sync; await `whenReady()`
 * for that. Without leader election the controller starts with the
 * application; with it (`leaderElect`), the replica first campaigns for the
 * Lease, and starts the controller only once it holds it.
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
  const resolved = resolveOperatorOptions(options);
  const app = await NestFactory.createApplicationContext(OperatorModule.forRoot(resolved), {
    abortOnError: false,
    logger: redactingLogger(nest.logger),
  });
  const controller = app.get(ConfigMirrorController);
  const eventsHealth = app.get(KubeEventsHealth);
  const shutdown = app.get(OperatorShutdown);
  const logger = new Logger('Operator');
  let closing = false;
  shutdown.whenBeginning(() => (closing = true));

  let election: ReturnType<typeof campaign> | undefined;
  const status = (): OperatorStatus => ({
    instance: resolved.instance,
    leaderElection: election
      ? {
          enabled: true,
          lease: election.elector.describe(),
          leader: election.elector.leader,
          isLeader: election.elector.isLeader,
          state: election.elector.state,
        }
      : { enabled: false },
    controller: { running: controller.isRunning, synced: controller.isReady, cache: controller.cacheStats() },
    events: eventsHealth.state(),
  });

  let health: HealthServer | undefined;
  let healthProbePort: number | undefined;
  try {
    election = resolved.leaderElect ? campaign(app, controller, resolved, logger, () => closing) : undefined;
    if (resolved.healthProbePort !== undefined) {
      health = new HealthServer({
        live: () => election?.elector.check(LIVENESS_TOLERANCE_MS),
        // A follower is ready: it serves probes and stands by. A controller that stopped (the Lease lost) is not.
        ready: () => (closing ? 'stopping' : election?.elector.state === 'lost' ? 'lost the leader lease' : undefined),
        status: () => publicStatus(status()),
      });
      healthProbePort = await health.listen(resolved.healthProbePort, resolved.healthProbeBindAddress);
      logger.log(
        `health probes on ${resolved.healthProbeBindAddress ?? 'every address'}, port ${healthProbePort} ` +
          '(/healthz, /readyz, /status; no authentication)',
      );
    }
    election?.elector.start();
  } catch (error) {
    await health?.close();
    await app.close();
    throw error;
  }
  // The controllers drain and the Events are written while the Lease is still renewed; released only then.
  if (election) shutdown.afterEventsWritten(() => election.elector.stop());
  if (health) shutdown.afterEventsWritten(() => health.close());
  let stopping: Promise<void> | undefined;

  return {
    app,
    controller,
    instance: resolved.instance,
    ...(election ? { leaderElection: view(election) } : {}),
    ...(healthProbePort !== undefined ? { healthProbePort } : {}),
    whenReady: () => controller.whenReady(),
    status,
    stop: () => (stopping ??= app.close()),
    afterShutdown: (step) => shutdown.afterEventsWritten(step),
  };
}

function view({ elector, leading, lost }: ReturnType<typeof campaign>): OperatorLeaderElection {
  return {
    lease: elector.describe(),
    get leader() {
      return elector.leader;
    },
    get isLeader() {
      return elector.isLeader;
    },
    whenLeading: () => leading,
    whenLost: () => lost,
  };
}

/** Creates this replica's {@link LeaderElector}: the controller runs while it leads, and stops when it loses. */
function campaign(
  app: INestApplicationContext,
  controller: ConfigMirrorController,
  options: ResolvedOperatorOptions,
  logger: Logger,
  closing: () => boolean,
): { elector: LeaderElector; leading: Promise<void>; lost: Promise<string> } {
  const { leaseName, namespace, leaseDurationMs, renewDeadlineMs, retryPeriodMs } = options.leaderElection;
  const leases = boundedApiClient(app.get(KubeConfig), CoordinationV1Api, leaseRequestTimeoutMs(options));
  const lock = new LeaseLock(leases, namespace, leaseName);
  let resolveLeading!: () => void;
  let resolveLost!: (reason: string) => void;
  const leading = new Promise<void>((resolve) => (resolveLeading = resolve));
  const lost = new Promise<string>((resolve) => (resolveLost = resolve));
  const elector = new LeaderElector({
    lock,
    identity: options.instance,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    callbacks: {
      onStartedLeading: () => {
        if (closing()) return;
        logger.log(`${options.instance} leads (lease ${lock.describe()}): starting the ConfigMirror controller`);
        controller.start();
        resolveLeading();
      },
      onLostLeadership: (reason) => {
        logger.error(
          `${options.instance} lost the lease ${lock.describe()} (${reason}): stopping the ConfigMirror controller`,
        );
        // Another replica may be reconciling already: the reconciles in flight are cancelled, not drained.
        controller
          .abandon(`lost the lease ${lock.describe()}: ${reason}`)
          .catch((error: unknown) => logger.error(`could not stop the controller: ${String(error)}`));
        resolveLost(reason);
      },
      onNewLeader: (identity) => {
        if (!identity) logger.log(`nobody leads: lease ${lock.describe()} was released`);
        else if (identity !== options.instance)
          logger.log(`${identity} leads (lease ${lock.describe()}); ${options.instance} stands by`);
      },
    },
  });
  logger.log(
    `leader election on: lease ${lock.describe()}, identity ${options.instance} ` +
      `(lease ${leaseDurationMs} ms, renew deadline ${renewDeadlineMs} ms, retry ${retryPeriodMs} ms)`,
  );
  return { elector, leading, lost };
}
