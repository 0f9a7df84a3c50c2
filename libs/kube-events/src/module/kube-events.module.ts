import { Module, type DynamicModule } from '@nestjs/common';
import {
  ConfigurableKubeEventsModule,
  KUBE_EVENTS_ASYNC_OPTIONS_TYPE,
  KUBE_EVENTS_MODULE_OPTIONS,
  KUBE_EVENTS_OPTIONS_TYPE,
} from './kube-events.module-definition.js';
import type { KubeEventsModuleOptions, ResolvedRecorderOptions } from '../kube-events.interfaces.js';
import { resolveRecorderOptions } from '../recorder/recorder-options.js';
import { EventRecorder } from '../recorder/event-recorder.js';
import { getEventRecorderToken } from '../recorder/recorder-tokens.js';
import { INVALID_OPTIONS, NOT_A_RECORDER_NAME } from '../kube-events.messages.js';
import { EventSinksModule } from '../sinks/event-sinks.module.js';
import { KubeEventsMetrics } from '../metrics/kube-events-metrics.js';
import { KubeEventsMetricsModule } from '../metrics/kube-events-metrics.module.js';
import { PublishesFailuresModule } from '../publishes-failures/publishes-failures.module.js';
import { PublishesConditionChangesModule } from '../condition-changes/publishes-condition-changes.module.js';
import { recorderSinksProvider } from '../sinks/recorder-sinks.js';
import { getKubeEventsHealthToken } from '../health/health-tokens.js';
import { RecorderConnection } from './recorder-connection.js';
import { overrideWithModuleClass } from './module-override.js';

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
 * In a test of a module that imports it, `Test.createTestingModule(…)`
 * `.overrideModule(KubeEventsModule).useModule(KubeEventsTestingModule.forRoot())`
 * replaces every `forRoot`/`forRootAsync` import of it, and
 * `.overrideProvider(EventRecorder)` replaces the recorder alone: neither
 * then looks for a kubeconfig.
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

// `overrideModule(KubeEventsModule)` in a test then replaces the `forRoot(…)` an application imports.
overrideWithModuleClass(KubeEventsModule);

function withRecorder(definition: DynamicModule, name: string | undefined): DynamicModule {
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw new Error(INVALID_OPTIONS('name', NOT_A_RECORDER_NAME(name)));
  const token = getEventRecorderToken(name);
  const connectionToken = `KUBE_EVENTS:connection:${name ?? ''}`;
  // Resolved once, before the connection looks for a kubeconfig (a bad option fails start-up by name first):
  // the connection, the recorder and the sinks read the same options, and the recorder keeps their note redactor.
  const resolvedOptionsToken = `KUBE_EVENTS:resolved-options:${name ?? ''}`;
  return {
    ...definition,
    imports: [
      ...(definition.imports ?? []),
      PublishesFailuresModule,
      PublishesConditionChangesModule,
      EventSinksModule,
      KubeEventsMetricsModule,
    ],
    providers: [
      ...(definition.providers ?? []),
      {
        provide: resolvedOptionsToken,
        useFactory: (options: KubeEventsModuleOptions) => resolveRecorderOptions(options),
        inject: [KUBE_EVENTS_MODULE_OPTIONS],
      },
      { provide: connectionToken, useFactory: () => new RecorderConnection() },
      {
        provide: token,
        useFactory: (options: ResolvedRecorderOptions, connection: RecorderConnection, metrics: KubeEventsMetrics) =>
          new EventRecorder(options, connection.open(options, metrics)),
        inject: [resolvedOptionsToken, connectionToken, KubeEventsMetrics],
      },
      {
        provide: getKubeEventsHealthToken(name),
        useFactory: (recorder: EventRecorder, connection: RecorderConnection) => connection.health(recorder),
        inject: [token, connectionToken],
      },
      recorderSinksProvider(name, token, resolvedOptionsToken, KubeEventsMetrics),
    ],
    exports: [...(definition.exports ?? []), token, getKubeEventsHealthToken(name), KubeEventsMetricsModule],
  };
}
