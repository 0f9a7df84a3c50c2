import type { PublishOutcome } from '../recorder/publish/index.js';

/**
 * Receives every outcome of a recorder's publishes: a webhook, an audit
 * log, a chat notification. Register one as a provider decorated with
 * `@KubeEventsSink()`.
 *
 * `handle` is called as the outcome happens, in order, and is never awaited
 * by a publish: keep its synchronous part short and return a promise for
 * slow work. A throw or a rejection is logged and affects neither publishing
 * nor the other sinks; a sink with too many unsettled calls misses outcomes
 * (see `KubeEventsSinkOptions.maxInFlight`) until it catches up.
 *
 * @example
 * @KubeEventsSink()
 * @Injectable()
 * export class SlackSink implements EventSink {
 *   constructor(private readonly slack: SlackClient) {}
 *   async handle(outcome: PublishOutcome) {
 *     if (outcome.kind === 'created' && outcome.event.type === 'Warning') await this.slack.post(outcome.event.note);
 *   }
 * }
 */
export interface EventSink {
  /** Called once per outcome, never awaited by the publish; a throw or a rejection is logged. */
  handle(outcome: PublishOutcome): void | Promise<void>;
}
