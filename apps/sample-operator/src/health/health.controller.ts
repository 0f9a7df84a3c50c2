import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { KubeEventsHealthSummary } from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { ConfigMirrorController } from '../config-mirror/config-mirror.controller.js';
import { LeaderElection } from '../leader-election/leader-election.js';
import type { LeaderElectorState } from '../leader-election/leader-elector.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { AddressedByIpGuard } from './addressed-by-ip.guard.js';

/**
 * What `/status` answers, to anyone who reaches the health port: the pod's
 * name, the Lease holder, and the controller's and the Events' state in
 * words and counts (`deploy/network-policy.yaml` says so). Namespaces,
 * addresses and error texts stay in `RunningOperator.status()` and the log.
 */
export interface PublicOperatorStatus {
  instance: string;
  leaderElection: { enabled: false } | { enabled: true; leader: string; isLeader: boolean; state: LeaderElectorState };
  controller: { running: boolean; synced: boolean };
  /** `KubeEventsHealthIndicator`'s answer: `up` while Events can be written. */
  events: KubeEventsHealthSummary & { status: 'up' | 'down' };
}

/**
 * The operator's probes, on its health port, every replica alike (the
 * leader and its followers). Neither probe depends on Events: they only
 * report on the copies, and an API server outage must not restart or
 * unready an operator otherwise healthy. `/status` shows them.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly kubeEvents: KubeEventsHealthIndicator,
    private readonly election: LeaderElection,
    private readonly controller: ConfigMirrorController,
    @Inject(OPERATOR_OPTIONS) private readonly options: ResolvedOperatorOptions,
  ) {}

  /** Liveness: the elector's health (client-go's healthz adaptor); 503 tells kubelet to restart the pod. */
  @Get(['healthz', 'livez'])
  @HealthCheck()
  live() {
    return this.health.check([() => this.electionCheck(this.election.liveness())]);
  }

  /** Readiness: not while stopping, nor once the Lease is lost. */
  @Get('readyz')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.electionCheck(this.election.readiness())]);
  }

  /** Who leads, whether the controller runs, and the Event recorder's health (never a reason for 503). */
  @Get('status')
  @UseGuards(AddressedByIpGuard)
  status(): PublicOperatorStatus {
    const { election } = this;
    return {
      instance: this.options.instance,
      leaderElection: election.enabled
        ? {
            enabled: true,
            leader: election.leader,
            isLeader: election.isLeader,
            state: election.state as LeaderElectorState,
          }
        : { enabled: false },
      controller: { running: this.controller.isRunning, synced: this.controller.isReady },
      events: this.kubeEvents.isHealthy('events').events as PublicOperatorStatus['events'],
    };
  }

  private electionCheck(problem: string | undefined) {
    const check = this.indicators.check('leaderElection');
    return problem ? check.down({ state: this.election.state, problem }) : check.up({ state: this.election.state });
  }
}
