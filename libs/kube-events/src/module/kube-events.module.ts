import { Module, type DynamicModule } from '@nestjs/common';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ConfigurableKubeEventsModule,
  KUBE_EVENTS_ASYNC_OPTIONS_TYPE,
  KUBE_EVENTS_MODULE_OPTIONS,
  KUBE_EVENTS_OPTIONS_TYPE,
} from './kube-events.module-definition.js';
import type { KubeEventsModuleOptions } from '../kube-events.interfaces.js';
import { EventRecorder } from '../recorder/event-recorder.js';
import { getEventRecorderToken } from '../recorder/recorder-tokens.js';
import { INVALID_OPTIONS, NOT_A_RECORDER_NAME } from '../kube-events.messages.js';
import { EventSinksModule } from '../sinks/event-sinks.module.js';
import { KubeEventsMetrics } from '../metrics/kube-events-metrics.js';
import { KubeEventsMetricsModule } from '../metrics/kube-events-metrics.module.js';
import { PublishesFailuresModule } from '../publishes-failures/publishes-failures.module.js';
import { recorderSinksProvider } from '../sinks/recorder-sinks.js';
import { EventsApi } from '../api/events-api.js';
import { loadDefaultKubeConfig } from '../api/default-kube-config.js';
import { KubeEventsHealth } from '../health/kube-events-health.js';
import { getKubeEventsHealthToken } from '../health/health-tokens.js';
import { PermissionCheck } from '../permissions/permission-check.js';
import { permissionCheckMode, resolveRecorderOptions } from '../recorder/recorder-options.js';

/**
 * Provides an `EventRecorder` for one controller, wraps the methods
 * decorated with `@PublishesFailures`, subscribes the `@KubeEventsSink`
 * providers and the built-in sinks (`logEvents`, metrics) to the recorder's
 * outcomes, and provides {@link KubeEventsMetrics}. Import it once per
 * recorder, in the root module, with `isGlobal: true` when feature modules
 * inject the recorder; several controllers in one process each register
 * theirs under a `name`.
 *
 * Without `kubeConfig`, the recorder uses the pod's service account, else
 * `$KUBECONFIG` or `~/.kube/config`, and start-up fails when there is none.
 * An empty `reporter.instance` (`POD_NAME` set but empty) counts as unset:
 * the instance is then the controller name.
 *
 * @example
 * KubeEventsModule.forRoot({ reporter: { controller: 'example.com/widget-controller', instance: process.env.POD_NAME } })
 */
@Module({})
export class KubeEventsModule extends ConfigurableKubeEventsModule {
  /** Registers a recorder with the given options, validated at start-up. */
  static override forRoot(options: typeof KUBE_EVENTS_OPTIONS_TYPE): DynamicModule {
    return withRecorder(super.forRoot(options), options.name);
  }

  /** Registers a recorder whose options come from a factory, a class or an existing provider. */
  static override forRootAsync(options: typeof KUBE_EVENTS_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withRecorder(super.forRootAsync(options), options.name);
  }
}

function withRecorder(definition: DynamicModule, name: string | undefined): DynamicModule {
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw new Error(INVALID_OPTIONS('name', NOT_A_RECORDER_NAME(name)));
  const token = getEventRecorderToken(name);
  const kubeConfigToken = `KUBE_EVENTS:kube-config:${name ?? ''}`;
  const eventsApiToken = `KUBE_EVENTS:events-api:${name ?? ''}`;
  const permissionsToken = `KUBE_EVENTS:permissions:${name ?? ''}`;
  return {
    ...definition,
    imports: [...(definition.imports ?? []), PublishesFailuresModule, EventSinksModule, KubeEventsMetricsModule],
    providers: [
      ...(definition.providers ?? []),
      {
        provide: kubeConfigToken,
        // The options are checked before the kubeconfig is looked for, so a bad one fails start-up by name.
        useFactory: (options: KubeEventsModuleOptions) => {
          resolveRecorderOptions(options);
          return options.kubeConfig ?? loadDefaultKubeConfig();
        },
        inject: [KUBE_EVENTS_MODULE_OPTIONS],
      },
      {
        provide: eventsApiToken,
        useFactory: (kubeConfig: KubeConfig, options: KubeEventsModuleOptions, metrics: KubeEventsMetrics) => {
          const eventsApi = new EventsApi(kubeConfig, { controller: options.reporter.controller });
          // The flow is the pool's to know: the metrics read it from here when scraped. The options were checked
          // with the kubeconfig, which this takes.
          if (options.metrics !== false)
            metrics.followWritesFlow(options.reporter.controller, () => eventsApi.eventWritesFlow());
          return eventsApi;
        },
        inject: [kubeConfigToken, KUBE_EVENTS_MODULE_OPTIONS, KubeEventsMetrics],
      },
      {
        provide: permissionsToken,
        useFactory: (options: KubeEventsModuleOptions, kubeConfig: KubeConfig, eventsApi: EventsApi) => {
          const { reporter, timeout, resumeSeries } = resolveRecorderOptions(options);
          return new PermissionCheck(eventsApi, {
            mode: permissionCheckMode(options.permissionCheck),
            controller: reporter.controller,
            verbs: resumeSeries ? ['create', 'get', 'patch', 'list'] : ['create', 'get', 'patch'],
            // In a pod, client-node's in-cluster config names the ServiceAccount's namespace; kubectl's default otherwise.
            homeNamespace: kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace || 'default',
            timeoutMs: timeout,
          });
        },
        inject: [KUBE_EVENTS_MODULE_OPTIONS, kubeConfigToken, eventsApiToken],
      },
      {
        provide: token,
        useFactory: (options: KubeEventsModuleOptions, eventsApi: EventsApi, permissions: PermissionCheck) =>
          new EventRecorder(options, permissions.watch(eventsApi)),
        inject: [KUBE_EVENTS_MODULE_OPTIONS, eventsApiToken, permissionsToken],
      },
      {
        provide: getKubeEventsHealthToken(name),
        useFactory: (recorder: EventRecorder, permissions: PermissionCheck, eventsApi: EventsApi) =>
          new KubeEventsHealth(recorder, permissions, () => eventsApi.eventWritesFlow()),
        inject: [token, permissionsToken, eventsApiToken],
      },
      recorderSinksProvider(name, token, KUBE_EVENTS_MODULE_OPTIONS, KubeEventsMetrics),
    ],
    exports: [...(definition.exports ?? []), token, getKubeEventsHealthToken(name), KubeEventsMetricsModule],
  };
}
