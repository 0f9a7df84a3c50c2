import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { Controller, Get, Inject, MisdirectedException, Req } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { KubeEventsHealthSummary } from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { ConfigMirrorController } from '../config-mirror/config-mirror.controller.js';
import { LeaderElection } from '../leader-election/leader-election.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';

/** How long past its lease duration a leader that has not renewed still counts as alive (client-go's healthz adaptor uses 20 s). */
const LIVENESS_TOLERANCE_MS = 20_000;

/** What `/status` answers, to anyone who reaches the port: names of pods, and the rest in words and counts. */
export type PublicOperatorStatus = ReturnType<HealthController['status']>;

/** The probes, on every replica. Neither depends on Events: an API server outage must not restart the operator. */
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
    const problem = lost ? 'lost the leader lease' : this.controller.isStopping ? 'stopping' : undefined;
    return this.health.check([() => this.electionCheck(problem)]);
  }

  // 421 unless addressed to an IP or `localhost`, as kubelet and `kubectl port-forward` are: a web page whose name
  // was rebound to the pod's address cannot read it.
  /** Who leads, whether the controller runs, and the recorder's health (never a reason for 503). */
  @Get('status')
  status(@Req() request: IncomingMessage) {
    const host = request.headers.host ?? '';
    const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
    if (name && !isIP(name) && name.toLowerCase() !== 'localhost') throw new MisdirectedException();
    const { elector } = this.election;
    return {
      instance: this.options.instance,
      leaderElection: elector
        ? { enabled: true as const, leader: elector.leader, isLeader: elector.isLeader, state: elector.state }
        : { enabled: false as const },
      controller: { running: this.controller.isRunning, synced: this.controller.isReady },
      // KubeEventsHealthIndicator's answer: `up` while Events can be written, `degraded` while some are held back,
      // and why in words and counts.
      events: this.kubeEvents.isHealthy('events').events as KubeEventsHealthSummary & {
        status: 'up' | 'degraded' | 'down';
      },
    };
  }

  private electionCheck(problem: string | undefined) {
    const [check, state] = [this.indicators.check('leaderElection'), this.election.elector?.state ?? 'off'];
    return problem ? check.down({ state, problem }) : check.up({ state });
  }
}
