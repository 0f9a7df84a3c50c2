import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { getKubeEventsHealthToken } from '../health/health-tokens.js';
import type { KubeEventsHealth } from '../health/kube-events-health.js';
import { healthSummary } from '../health/health-summary.js';
import { NO_RECORDER_HEALTH } from '../kube-events.messages.js';

/** Options of {@link KubeEventsHealthIndicator.isHealthy}. */
export interface KubeEventsHealthCheckOptions {
  /**
   * The recorder to report, as registered with `KubeEventsModule.forRoot({ name })`.
   * @default the default recorder
   */
  recorder?: string;
}

/**
 * Reports a recorder's health to `@nestjs/terminus`, from
 * `nestjs-kube-events/terminus`: `down` when its Events cannot be written
 * (the credentials failing, the API server unreachable for longer than the
 * recorder's timeout, or a permission for `create`, `get` or `patch`
 * missing in every namespace it publishes to); `degraded` when some are
 * held back while others are written (the server throttling the writes
 * with `429`s, occurrences queued to retry a failed write, a permission
 * missing in some of the namespaces published to but not the others);
 * `up` otherwise; with the state in words and counts as its details
 * (`KubeEventsHealthSummary`): a health endpoint is usually read
 * without authentication, so the body names no namespace, address, path or
 * error text. Those are in `KubeEventsHealth.state()` and the log lines.
 *
 * `degraded` is terminus 12's: the check answers 200 with the overall
 * status `degraded`. Terminus 11 knows `up` and `down` only (and leaves an
 * indicator of any other status out of its answer), so there a degraded
 * recorder is `up`, its details saying how many reasons hold Events back
 * (`degraded`).
 *
 * Put it in a readiness check, or in an endpoint no probe restarts the
 * pod for, never in a liveness check: Events are informational, and an API
 * server outage must not restart a controller that is otherwise healthy.
 * The state recovers by itself (the first write answered, a Role applied
 * and seen by the next review), so readiness comes back without a restart.
 *
 * @example
 * \@Controller('health')
 * export class HealthController {
 *   constructor(private readonly health: HealthCheckService, private readonly kubeEvents: KubeEventsHealthIndicator) {}
 *
 *   \@Get('ready')
 *   \@HealthCheck()
 *   ready() {
 *     return this.health.check([() => this.kubeEvents.isHealthy()]);
 *   }
 * }
 */
@Injectable()
export class KubeEventsHealthIndicator {
  /** Nest injects terminus's `HealthIndicatorService` (import `TerminusModule`) and the module reference. */
  constructor(
    private readonly healthIndicatorService: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * The recorder's health under `key`: `{ [key]: { status: 'up' | 'degraded' | 'down', ...summary } }`.
   * @throws Error when no `KubeEventsModule` registered that recorder
   */
  isHealthy<const Key extends string = 'kube-events'>(
    key: Key = 'kube-events' as Key,
    options: KubeEventsHealthCheckOptions = {},
  ): HealthIndicatorResult<Key> {
    const indicator = this.healthIndicatorService.check(key);
    const summary = healthSummary(this.healthOf(options.recorder).state());
    if (!summary.writable) return indicator.down({ ...summary });
    // Terminus 11 has no degraded status: up, with the summary's `degraded` count saying why not fully.
    if (summary.degraded > 0 && typeof indicator.degraded === 'function') return indicator.degraded({ ...summary });
    return indicator.up({ ...summary });
  }

  private healthOf(recorder: string | undefined): KubeEventsHealth {
    try {
      return this.moduleRef.get<KubeEventsHealth>(getKubeEventsHealthToken(recorder), { strict: false });
    } catch {
      throw new Error(NO_RECORDER_HEALTH(recorder));
    }
  }
}
