import { SetMetadata } from '@nestjs/common';
import { KUBE_EVENTS_SINK_METADATA } from '../kube-events.constants.js';

/** Which recorder a sink listens to, and how much it may fall behind. */
export interface KubeEventsSinkOptions {
  /**
   * The recorder whose outcomes the sink receives, by the `name` given to `forRoot`.
   * @default the default recorder
   */
  recorder?: string;
  /**
   * How many of the sink's `handle()` calls may be unsettled at once; past
   * it the sink misses outcomes, which are counted and logged, so a sink
   * that never answers holds no more than this.
   * @default 100
   */
  maxInFlight?: number;
}

/**
 * Makes a provider an {@link EventSink} of a recorder: it receives every
 * outcome of that recorder's publishes from the time the application starts
 * until it shuts down.
 *
 * Sinks are found by discovery, as `@PublishesFailures` methods are, rather
 * than listed in a `forRoot({ sinks })` option: a sink stays a provider of
 * its own module and injects what it needs from there (an HTTP client, its
 * configuration), which a provider declared inside `KubeEventsModule` could
 * not; and the decorator names its recorder, so several recorders each get
 * their own sinks. Request-scoped providers are skipped with a warning.
 *
 * @example
 * @KubeEventsSink({ recorder: 'billing' })
 * @Injectable()
 * export class AuditSink implements EventSink {
 *   handle(outcome: PublishOutcome) { ... }
 * }
 */
export const KubeEventsSink = (options: KubeEventsSinkOptions = {}): ClassDecorator =>
  SetMetadata(KUBE_EVENTS_SINK_METADATA, options);
