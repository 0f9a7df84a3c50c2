// The sample operator started in the test's own process, as its main.ts starts it (the same Nest application),
// with options over its environment and the handles the in-process end-to-end tests read.
import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { KubeEventsHealth, type KubeEventsHealthState } from 'nestjs-kube-events';
import {
  ConfigMirrorController,
  type CacheStats,
} from '../../../apps/sample-operator/src/config-mirror/config-mirror.controller.js';
import { LeaderElection } from '../../../apps/sample-operator/src/leader-election/leader-election.js';
import { createOperator, listenForProbes } from '../../../apps/sample-operator/src/operator.js';
import type { OperatorOptions } from '../../../apps/sample-operator/src/operator.options.js';

export type { PublicOperatorStatus } from '../../../apps/sample-operator/src/health/health.controller.js';

/** An operator running in this process, as {@link startOperator} returns it. */
export interface RunningOperator {
  app: INestApplication;
  controller: ConfigMirrorController;
  /** Leader election, when it is on (`leaderElect`). */
  leaderElection?: Pick<LeaderElection, 'whenLeading' | 'whenLost'>;
  /** The port of the probes (`/healthz`, `/readyz`, `/status`), when `healthProbePort` was given. */
  healthProbePort?: number;
  /** Resolves once the informers have synced (with leader election, once this replica leads). */
  whenReady(): Promise<void>;
  /** What `/status` shows in words and counts, here with the caches and the Events' findings in full. */
  status(): { controller: { running: boolean; synced: boolean; cache: CacheStats }; events: KubeEventsHealthState };
  /** Closes the application: stops the watches, drains the reconciles, releases the Lease. */
  stop(): Promise<void>;
}

/** Starts the operator in this process with `options` over its environment; does not wait for the informers. */
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
  const events = app.get(KubeEventsHealth);
  let stopping: Promise<void> | undefined;
  return {
    app,
    controller,
    ...(election.elector ? { leaderElection: election } : {}),
    ...(healthProbePort !== undefined ? { healthProbePort } : {}),
    whenReady: () => controller.whenReady(),
    status: () => ({
      controller: { running: controller.isRunning, synced: controller.isReady, cache: controller.cacheStats() },
      events: events.state(),
    }),
    stop: () => (stopping ??= app.close()),
  };
}
