import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { KubeEventsHealthSummary } from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { ConfigMirrorController } from '../config-mirror/config-mirror.controller.js';
import { LeaderElection } from '../leader-election/leader-election.js';
import type { LeaderElectorState } from '../leader-election/leader-elector.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { AddressedByIpGuard } from './addressed-by-ip.guard.js';

/** How long past its lease duration a leader that has not renewed still counts as alive (client-go's healthz adaptor uses 20 s). */
const LIVENESS_TOLERANCE_MS = 20_000;

/**
 * What `/status` answers, to anyone who reaches the health port: the pod's name, the Lease holder, and the
 * controller's and the Events' state in words and counts. Namespaces, addresses and error texts stay in the log.
 */
export interface PublicOperatorStatus {
  instance: string;
  leaderElection: { enabled: false } | { enabled: true; leader: string; isLeader: boolean; state: LeaderElectorState };
  controller: { running: boolean; synced: boolean };
  /** `KubeEventsHealthIndicator`'s answer: `up` while Events can be written. */
  events: KubeEventsHealthSummary & { status: 'up' | 'down' };
}

/**
 * The probes, on every replica (the leader and its followers). Neither depends on Events, which only report on
 * the copies: an API server outage must not restart an operator otherwise healthy, nor take it out of service.
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

  /** Liveness: the elector's `check` (client-go's healthz adaptor): stuck, or a leader that stopped renewing. */
  @Get(['healthz', 'livez'])
  @HealthCheck()
  live() {
    return this.health.check([() => this.electionCheck(this.election.elector?.check(LIVENESS_TOLERANCE_MS))]);
  }

  /** Readiness: a follower is ready (it stands by); a replica stopping, or that lost the Lease, is not. */
  @Get('readyz')
  @HealthCheck()
  ready() {
    const lost = this.election.elector?.state === 'lost';
    return this.health.check([
      () => this.electionCheck(this.election.closing ? 'stopping' : lost ? 'lost the leader lease' : undefined),
    ]);
  }

  /** Who leads, whether the controller runs, and the Event recorder's health (never a reason for 503). */
  @Get('status')
  @UseGuards(AddressedByIpGuard)
  status(): PublicOperatorStatus {
    const { elector } = this.election;
    return {
      instance: this.options.instance,
      leaderElection: elector
        ? { enabled: true, leader: elector.leader, isLeader: elector.isLeader, state: elector.state }
        : { enabled: false },
      controller: { running: this.controller.isRunning, synced: this.controller.isReady },
      events: this.kubeEvents.isHealthy('events').events as PublicOperatorStatus['events'],
    };
  }

  private electionCheck(problem: string | undefined) {
    const check = this.indicators.check('leaderElection');
    const state = this.election.elector?.state ?? 'off';
    return problem ? check.down({ state, problem }) : check.up({ state });
  }
}
