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
import { LeaderElector, type LeaderElectorState } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';

/** How long past its lease duration a leader that has not renewed still counts as alive (client-go's healthz adaptor uses 20 s). */
const LIVENESS_TOLERANCE_MS = 20_000;

/**
 * This replica's leader election (`LEADER_ELECT=true`), in the application's
 * lifecycle: it campaigns once the application has bootstrapped, starts the
 * ConfigMirror controller when it leads, and abandons it when it loses. On
 * shutdown it releases the Lease last: the controller drains on module
 * destroy, the recorder writes its last Events before application shutdown,
 * and only then does `onApplicationShutdown` run. Without leader election
 * the controller starts by itself, and this only answers the probes.
 */
@Injectable()
export class LeaderElection implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly elector: LeaderElector | undefined;
  private readonly logger = new Logger('Operator');
  private closing = false;
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
    const { instance } = options;
    const { leaseName, namespace, leaseDurationMs, renewDeadlineMs, retryPeriodMs } = options.leaderElection;
    const leases = boundedApiClient(kubeConfig, CoordinationV1Api, leaseRequestTimeoutMs(options));
    const lock = new LeaseLock(leases, namespace, leaseName);
    const lease = lock.describe();
    this.elector = new LeaderElector({
      lock,
      identity: instance,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      callbacks: {
        onStartedLeading: () => {
          if (this.closing) return;
          this.logger.log(`${instance} leads (lease ${lease}): starting the ConfigMirror controller`);
          controller.start();
          leads();
        },
        onLostLeadership: (reason) => {
          this.logger.error(`${instance} lost the lease ${lease} (${reason}): stopping the ConfigMirror controller`);
          // Another replica may be reconciling already: the reconciles in flight are cancelled, not drained.
          controller
            .abandon(`lost the lease ${lease}: ${reason}`)
            .catch((error: unknown) => this.logger.error(`could not stop the controller: ${String(error)}`));
          loses(reason);
        },
        onNewLeader: (identity) => {
          if (!identity) this.logger.log(`nobody leads: lease ${lease} was released`);
          else if (identity !== instance) this.logger.log(`${identity} leads (lease ${lease}); ${instance} stands by`);
        },
      },
    });
    this.logger.log(
      `leader election on: lease ${lease}, identity ${instance} ` +
        `(lease ${leaseDurationMs} ms, renew deadline ${renewDeadlineMs} ms, retry ${retryPeriodMs} ms)`,
    );
  }

  /** Whether leader election is on. */
  get enabled(): boolean {
    return this.elector !== undefined;
  }

  /** `namespace/name` of the Lease; `''` without leader election. */
  get lease(): string {
    return this.elector?.describe() ?? '';
  }

  /** The holder of the Lease as this replica last saw it; `''` when nobody holds it. */
  get leader(): string {
    return this.elector?.leader ?? '';
  }

  /** Whether this replica leads (and so runs the controller). */
  get isLeader(): boolean {
    return this.elector?.isLeader ?? false;
  }

  /** The elector's state; `off` without leader election. */
  get state(): LeaderElectorState | 'off' {
    return this.elector?.state ?? 'off';
  }

  /** Resolves when this replica acquires the Lease and starts the controller. */
  whenLeading(): Promise<void> {
    return this.leading;
  }

  /** Resolves, with the reason, when this replica loses the Lease; its controller is stopping by then. */
  whenLost(): Promise<string> {
    return this.lost;
  }

  /** Liveness: a problem a restart would fix (the elector stuck, a leader that stopped renewing), in words and counts. */
  liveness(): string | undefined {
    return this.elector?.check(LIVENESS_TOLERANCE_MS);
  }

  /** Readiness: a follower is ready (it serves probes and stands by); a replica stopping, or that lost the Lease, is not. */
  readiness(): string | undefined {
    if (this.closing) return 'stopping';
    return this.state === 'lost' ? 'lost the leader lease' : undefined;
  }

  onApplicationBootstrap(): void {
    this.elector?.start();
  }

  onModuleDestroy(): void {
    this.closing = true;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.elector?.stop();
  }
}
