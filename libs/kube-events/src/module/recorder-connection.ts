import type { BeforeApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ResolvedRecorderOptions } from '../kube-events.interfaces.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { EventsApi, type EventsWriter } from '../api/events-api.js';
import { loadDefaultKubeConfig } from '../api/default-kube-config.js';
import type { KubeEventsMetrics } from '../metrics/kube-events-metrics.js';
import { PermissionCheck } from '../permissions/permission-check.js';
import { KubeEventsHealth } from '../health/kube-events-health.js';
import { healthWithoutReview } from '../health/health-without-review.js';

/**
 * The cluster side of one recorder of `KubeEventsModule`: its kubeconfig,
 * its Events API client and its permission check. The recorder's provider
 * opens it, so that a test that replaces that provider
 * (`overrideProvider(EventRecorder)`) needs no kubeconfig and reviews no
 * permission, and the health then reads the replacement alone.
 */
export class RecorderConnection implements OnModuleInit, BeforeApplicationShutdown {
  private opened: { eventsApi: EventsApi; permissions: PermissionCheck } | undefined;

  /** Finds the kubeconfig and returns the writer the recorder writes through. */
  open(options: ResolvedRecorderOptions, metrics: KubeEventsMetrics): EventsWriter {
    const { reporter, timeout, resumeSeries } = options;
    const kubeConfig = options.kubeConfig ?? loadDefaultKubeConfig();
    const eventsApi = new EventsApi(kubeConfig, { controller: reporter.controller });
    // The flow is the pool's to know: the metrics read it from here when scraped.
    if (options.metrics) metrics.followWritesFlow(reporter.controller, () => eventsApi.eventWritesFlow());
    const permissions = new PermissionCheck(eventsApi, {
      mode: options.permissionCheck,
      controller: reporter.controller,
      verbs: resumeSeries ? ['create', 'get', 'patch', 'list'] : ['create', 'get', 'patch'],
      // In a pod, client-node's in-cluster config names the ServiceAccount's namespace; kubectl's default otherwise.
      homeNamespace: kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace || 'default',
      timeoutMs: timeout,
    });
    this.opened = { eventsApi, permissions };
    return permissions.watch(eventsApi);
  }

  /** The health of `recorder`: with the permission check and the writes flow once opened. */
  health(recorder: EventRecorder): KubeEventsHealth {
    if (!this.opened) return healthWithoutReview(recorder);
    const { eventsApi, permissions } = this.opened;
    return new KubeEventsHealth(recorder, permissions, () => eventsApi.eventWritesFlow());
  }

  /** Starts the permission check's start-up review (with `fail`, waits for it). */
  async onModuleInit(): Promise<void> {
    await this.opened?.permissions.onModuleInit();
  }

  /** Stops the permission check's reviews. */
  beforeApplicationShutdown(): void {
    this.opened?.permissions.beforeApplicationShutdown();
  }
}
