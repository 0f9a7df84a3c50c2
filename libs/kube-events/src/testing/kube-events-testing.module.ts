// First, for the `nestjs-kube-events/testing` entry: a clear error on an unsupported Node.js before client-node and undici load.
import '../runtime-check.js';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { EventRecorder } from '../recorder/event-recorder.js';
import { EventSinksModule } from '../sinks/event-sinks.module.js';
import { getEventRecorderToken } from '../recorder/recorder-tokens.js';
import { KubeEventsMetrics } from '../metrics/kube-events-metrics.js';
import { PublishesFailuresModule } from '../publishes-failures/publishes-failures.module.js';
import { PublishesConditionChangesModule } from '../condition-changes/publishes-condition-changes.module.js';
import { recorderSinksProvider } from '../sinks/recorder-sinks.js';
import { getKubeEventsHealthToken } from '../health/health-tokens.js';
import { healthWithoutReview } from '../health/health-without-review.js';
import { FakeEventRecorder, type FakeEventRecorderOptions } from './fake-event-recorder.js';
import { InMemoryMetricsModule } from './in-memory-metrics.module.js';

const FAKE_RECORDER_OPTIONS = 'KUBE_EVENTS:fake-recorder-options';

/** Options of {@link KubeEventsTestingModule.forRoot}. */
export interface KubeEventsTestingModuleOptions extends FakeEventRecorderOptions {
  /**
   * Stands in for the recorder registered with this `name`; without one, for the default recorder.
   * @default the default recorder
   */
  name?: string;
  /**
   * Makes the fake injectable in every module, as production code often
   * registers its recorder with `isGlobal`, so that feature modules under
   * test resolve it without importing this module.
   * @default true
   */
  isGlobal?: boolean;
}

/**
 * Replaces `KubeEventsModule` in users' unit tests: provides a
 * {@link FakeEventRecorder} under the same injection tokens (the
 * `EventRecorder` class, or `getEventRecorderToken(name)` and
 * `@InjectEventRecorder(name)`), so services get it injected,
 * `@PublishesFailures` methods publish to it, `@KubeEventsSink` providers
 * receive its outcomes, `KubeEventsMetrics` counts them (in memory only,
 * never in prom-client's registry) and `KubeEventsHealth` (with
 * `KubeEventsHealthIndicator`) reads the fake's state. No API server is
 * needed.
 *
 * @example
 * const app = await Test.createTestingModule({
 *   imports: [KubeEventsTestingModule.forRoot()],
 *   providers: [WidgetReconciler],
 * }).compile();
 * await app.init();
 * const recorder = app.get(FakeEventRecorder);
 * await app.get(WidgetReconciler).reconcile(widget).catch(() => undefined);
 * recorder.expectEvent({ type: 'Warning', reason: 'ReconcileFailed', regarding: 'w1', count: 1 });
 */
@Module({})
export class KubeEventsTestingModule {
  /** Provides a {@link FakeEventRecorder} in place of the recorder named `options.name` (the default one without). */
  static forRoot(options: KubeEventsTestingModuleOptions = {}): DynamicModule {
    const { name, isGlobal = true, ...recorderOptions } = options;
    const token = getEventRecorderToken(name);
    const providers: Provider[] = [
      { provide: FAKE_RECORDER_OPTIONS, useValue: recorderOptions },
      { provide: token, useFactory: () => new FakeEventRecorder(recorderOptions, true) },
      recorderSinksProvider(name, token, FAKE_RECORDER_OPTIONS, KubeEventsMetrics),
      {
        // The fake's health, as the module provides the recorder's: no permission check, nothing to review.
        provide: getKubeEventsHealthToken(name),
        inject: [token],
        useFactory: healthWithoutReview,
      },
    ];
    const exports: DynamicModule['exports'] = [token, getKubeEventsHealthToken(name), InMemoryMetricsModule];
    if (name === undefined) {
      providers.push({ provide: FakeEventRecorder, useExisting: EventRecorder });
      exports.push(FakeEventRecorder);
    }
    return {
      module: KubeEventsTestingModule,
      global: isGlobal,
      imports: [PublishesFailuresModule, PublishesConditionChangesModule, EventSinksModule, InMemoryMetricsModule],
      providers,
      exports,
    };
  }
}
