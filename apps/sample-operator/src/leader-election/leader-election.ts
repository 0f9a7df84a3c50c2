import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { ConfigMirrorController } from '../config-mirror/config-mirror.controller.js';
import { boundedApiClient } from '../kube/bounded-api-client.js';
import { leaseRequestTimeoutMs, OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { LeaderElector } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';

/**
 * This replica's leader election (`LEADER_ELECT=true`) in the application's
 * lifecycle: it campaigns once the application has bootstrapped, starts the
 * ConfigMirror controller when it leads and abandons it when it loses. It
 * releases the Lease last: the controller drains on module destroy, the
 * recorder writes its last Events before application shutdown, and only then
 * does `onApplicationShutdown` run. Without leader election, `elector` is
 * undefined and the controller starts by itself.
 */
@Injectable()
export class LeaderElection implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  readonly elector: LeaderElector | undefined;
  private shuttingDown = false;
  private readonly leading: Promise<void>;
  private readonly lost: Promise<string>;

  constructor(
    @Inject(OPERATOR_OPTIONS) options: ResolvedOperatorOptions,
    kubeConfig: KubeConfig,
    controller: ConfigMirrorController,
  ) {
    let leads!: () => void;
    let loses!: (reason: string) => void;
    this.leading = new Promise((resolve) => (leads = resolve));
    this.lost = new Promise((resolve) => (loses = resolve));
    if (!options.leaderElect) return;
    const { instance, leaderElection: settings } = options;
    const leases = boundedApiClient(kubeConfig, CoordinationV1Api, leaseRequestTimeoutMs(options));
    const lock = new LeaseLock(leases, settings.namespace, settings.leaseName);
    const lease = lock.describe();
    const logger = new Logger('Operator');
    this.elector = new LeaderElector({
      ...settings,
      lock,
      identity: instance,
      callbacks: {
        onStartedLeading: () => {
          if (this.closing) return;
          logger.log(`${instance} leads (lease ${lease}): starting the ConfigMirror controller`);
          controller.start();
          leads();
        },
        onLostLeadership: (reason) => {
          logger.error(`${instance} lost the lease ${lease} (${reason}): stopping the ConfigMirror controller`);
          // Another replica may be reconciling already: the reconciles in flight are cancelled, not drained.
          controller
            .abandon(`lost the lease ${lease}: ${reason}`)
            .catch((error: unknown) => logger.error(`could not stop the controller: ${String(error)}`));
          loses(reason);
        },
        onNewLeader: (identity) => {
          if (!identity) logger.log(`nobody leads: lease ${lease} was released`);
          else if (identity !== instance) logger.log(`${identity} leads (lease ${lease}); ${instance} stands by`);
        },
      },
    });
    logger.log(
      `leader election on: lease ${lease}, identity ${instance} (lease ${settings.leaseDurationMs} ms, ` +
        `renew deadline ${settings.renewDeadlineMs} ms, retry ${settings.retryPeriodMs} ms)`,
    );
  }

  /** Whether the application is shutting down: no controller starts from then on, and the replica is not ready. */
  get closing(): boolean {
    return this.shuttingDown;
  }

  /** Resolves when this replica acquires the Lease and starts the controller. */
  whenLeading(): Promise<void> {
    return this.leading;
  }

  /** Resolves, with the reason, when this replica loses the Lease; its controller is stopping by then. */
  whenLost(): Promise<string> {
    return this.lost;
  }

  onApplicationBootstrap(): void {
    this.elector?.start();
  }

  onModuleDestroy(): void {
    this.shuttingDown = true;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.elector?.stop();
  }
}
