import { Module } from '@nestjs/common';
import { KubeEventsMetrics } from '../metrics/kube-events-metrics.js';

/** Provides {@link KubeEventsMetrics} without prom-client, so tests never touch its process-wide registry. */
@Module({
  providers: [{ provide: KubeEventsMetrics, useFactory: () => new KubeEventsMetrics() }],
  exports: [KubeEventsMetrics],
})
export class InMemoryMetricsModule {}
