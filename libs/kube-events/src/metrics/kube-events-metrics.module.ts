import { Module } from '@nestjs/common';
import { KubeEventsMetrics } from './kube-events-metrics.js';

/**
 * Holds the application's one {@link KubeEventsMetrics}, which every
 * recorder's outcomes are counted in. Its factory waits for prom-client's
 * dynamic import, so the metrics are registered before the application starts.
 */
@Module({
  providers: [{ provide: KubeEventsMetrics, useFactory: () => KubeEventsMetrics.create() }],
  exports: [KubeEventsMetrics],
})
export class KubeEventsMetricsModule {}
