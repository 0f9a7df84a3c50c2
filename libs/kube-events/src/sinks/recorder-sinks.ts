import { type BeforeApplicationShutdown, type FactoryProvider, type InjectionToken } from '@nestjs/common';
import { LibraryLogger } from '../text/library-logger.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import type { EventSink } from './event-sink.js';
import { DEFAULT_SINK_MAX_IN_FLIGHT } from '../kube-events.constants.js';
import { LogEventSink } from './log-event.sink.js';
import { OpenTelemetryLogSink } from './opentelemetry-log.sink.js';
import { SinkSubscription } from './sink-subscription.js';

/**
 * The provider of a recorder's sinks, shared by the module and the testing
 * module: `logEvents`, `logRecords` and `metrics` come from the recorder's
 * options (resolved by the module, as given to the testing module).
 */
export function recorderSinksProvider(
  name: string | undefined,
  recorderToken: InjectionToken,
  optionsToken: InjectionToken,
  metricsToken: InjectionToken,
): FactoryProvider<RecorderSinks> {
  return {
    provide: RecorderSinks,
    useFactory: (
      options: { logEvents?: boolean; metrics?: boolean; logRecords?: boolean },
      recorder: EventRecorder,
      metrics: EventSink,
    ) =>
      new RecorderSinks(name ?? null, recorder, {
        logEvents: options.logEvents === true,
        logRecords: options.logRecords === true,
        metrics: options.metrics === false ? undefined : metrics,
      }),
    inject: [optionsToken, recorderToken, metricsToken],
  };
}

/** The sinks built into the library, switched on per recorder. */
export interface BuiltInSinks {
  /** The `logEvents` option: one log line per outcome. */
  logEvents?: boolean;
  /** The `logRecords` option: one OpenTelemetry log record per outcome. */
  logRecords?: boolean;
  /** Where the recorder's outcomes are counted (`KubeEventsMetrics`), unless its `metrics` option is `false`. */
  metrics?: EventSink;
}

/**
 * The sinks of one recorder, each subscribed to its `outcomes$` on its own
 * (see {@link SinkSubscription}): the built-in ones from construction, the
 * `@KubeEventsSink` providers once the explorer has found them.
 *
 * Before application shutdown it has the recorder shut down (which writes what
 * the recorder has folded, so that sinks see the final counts), waits for
 * the sinks' unsettled calls for at most the recorder's timeout, and
 * unsubscribes them.
 */
export class RecorderSinks implements BeforeApplicationShutdown {
  private readonly subscriptions: SinkSubscription[] = [];
  private readonly logger = new LibraryLogger('KubeEventsSinks');

  constructor(
    /** The recorder's `name`; `null` for the default recorder. */
    readonly recorderName: string | null,
    private readonly recorder: EventRecorder,
    builtIn: BuiltInSinks = {},
  ) {
    if (builtIn.metrics) this.attach(builtIn.metrics, 'KubeEventsMetrics');
    if (builtIn.logEvents) this.attach(new LogEventSink(), 'LogEventSink');
    if (builtIn.logRecords) this.attach(OpenTelemetryLogSink.create(), 'OpenTelemetryLogSink');
  }

  /** The sinks attached so far, by label. */
  get sinks(): readonly SinkSubscription[] {
    return this.subscriptions;
  }

  /** Subscribes a sink to the recorder's outcomes. */
  attach(sink: EventSink, label: string, maxInFlight = DEFAULT_SINK_MAX_IN_FLIGHT): SinkSubscription {
    const subscription = new SinkSubscription(this.recorder.outcomes$, sink, label, maxInFlight, this.logger);
    this.subscriptions.push(subscription);
    return subscription;
  }

  /** Shuts the recorder down first (Nest calls this before the recorder's own hook, which then waits for the same). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.recorder.onApplicationShutdown();
    await Promise.all(this.subscriptions.map((subscription) => subscription.settle(this.recorder.timeout)));
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }
}
