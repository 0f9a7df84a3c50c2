import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { ConfigMirrorController } from '../config-mirror/config-mirror.controller.js';
import { boundedApiClient } from '../kube/bounded-api-client.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { LeaderElector } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';

/**
 * Leader election (`LEADER_ELECT=true`; else `elector` is undefined): it campaigns once the application has
 * bootstrapped and runs the controller while it leads. It releases the Lease in the last hook, after the controller
 * drained (module destroy) and the recorder wrote its last Events (before application shutdown).
 */
@Injectable()
export class LeaderElection implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly elector: LeaderElector | undefined;
  private readonly leading = Promise.withResolvers<void>();
  private readonly lost = Promise.withResolvers<string>();

  constructor(
    @Inject(OPERATOR_OPTIONS) options: ResolvedOperatorOptions,
    kubeConfig: KubeConfig,
    controller: ConfigMirrorController,
  ) {
    if (!options.leaderElect) return;
    const { instance, leaderElection: settings } = options;
    // Half the renew deadline when shorter, so a leader tries twice to renew before it steps down.
    const timeoutMs = Math.max(1, Math.floor(Math.min(options.requestTimeoutMs, settings.renewDeadlineMs / 2)));
    const leases = boundedApiClient(kubeConfig, CoordinationV1Api, timeoutMs);
    const lock = new LeaseLock(leases, settings.namespace, settings.leaseName);
    const [lease, logger] = [lock.describe(), new Logger('Operator')];
    this.elector = new LeaderElector({
      ...settings,
      lock,
      identity: instance,
      callbacks: {
        onStartedLeading: () => {
          if (controller.isStopping) return;
          logger.log(`${instance} leads (lease ${lease}): starting the ConfigMirror controller`);
          controller.start();
          this.leading.resolve();
        },
        onLostLeadership: (reason) => {
          logger.error(`${instance} lost the lease ${lease} (${reason}): stopping the ConfigMirror controller`);
          // Another replica may be reconciling already: the reconciles in flight are cancelled, not drained.
          controller
            .abandon(`lost the lease ${lease}: ${reason}`)
            .catch((error: unknown) => logger.error(`could not stop the controller: ${String(error)}`));
          this.lost.resolve(reason);
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

  /** Resolves when this replica acquires the Lease and starts the controller. */
  whenLeading = () => this.leading.promise;

  /** Resolves, with the reason, when this replica loses the Lease; its controller is stopping by then. */
  whenLost = () => this.lost.promise;

  onApplicationBootstrap = () => this.elector?.start();

  onApplicationShutdown = () => this.elector?.stop();
}
