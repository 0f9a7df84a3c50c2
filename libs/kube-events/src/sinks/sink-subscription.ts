import type { Logger } from '@nestjs/common';
import type { Observable, Subscription } from 'rxjs';
import type { EventSink } from './event-sink.js';
import { SINK_LOG_INTERVAL_MS } from '../kube-events.constants.js';
import { SINK_FAILED, SINK_OVERLOADED } from '../kube-events.messages.js';
import type { PublishOutcome } from '../recorder/publish/index.js';
import { timerDelay } from '../time/system-clock.js';

/**
 * One sink's subscription to a recorder's outcomes, isolated so that the sink
 * can neither fail nor slow a publish or another sink: `handle` is called
 * synchronously and never awaited; a throw or rejection is caught and
 * logged; at most `maxInFlight` calls stay unsettled, and outcomes past that
 * are counted in {@link missed} instead of being queued. Log lines about one
 * sink come at most once per {@link SINK_LOG_INTERVAL_MS}.
 */
export class SinkSubscription {
  /** Outcomes not given to the sink because `maxInFlight` calls were unsettled. */
  missed = 0;
  /** Calls that threw or rejected. */
  failures = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly subscription: Subscription;
  private lastLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    outcomes$: Observable<PublishOutcome>,
    private readonly sink: EventSink,
    /** The sink's name in log lines. */
    readonly label: string,
    private readonly maxInFlight: number,
    private readonly logger: Logger,
  ) {
    this.subscription = outcomes$.subscribe((outcome) => this.deliver(outcome));
  }

  /** How many `handle()` calls are unsettled now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Waits until the sink's unsettled calls settle, or `timeoutMs` passes. */
  async settle(timeoutMs: number): Promise<void> {
    if (!this.inFlight.size) return;
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timerDelay(timeoutMs));
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.inFlight]), elapsed]);
    clearTimeout(timer);
  }

  unsubscribe(): void {
    this.subscription.unsubscribe();
  }

  private deliver(outcome: PublishOutcome): void {
    if (this.inFlight.size >= this.maxInFlight) {
      this.missed++;
      this.throttledLog(() => this.logger.warn(SINK_OVERLOADED(this.label, this.maxInFlight, this.missed)));
      return;
    }
    let result: void | Promise<void>;
    try {
      result = this.sink.handle(outcome);
    } catch (error) {
      this.failed(error);
      return;
    }
    if (typeof (result as PromiseLike<void> | undefined)?.then !== 'function') return;
    const call: Promise<void> = Promise.resolve(result).then(
      () => {
        this.inFlight.delete(call);
      },
      (error: unknown) => {
        this.inFlight.delete(call);
        this.failed(error);
      },
    );
    this.inFlight.add(call);
  }

  private failed(error: unknown): void {
    this.failures++;
    this.throttledLog(() => this.logger.error(SINK_FAILED(this.label, error, this.failures)));
  }

  private throttledLog(log: () => void): void {
    const now = Date.now();
    if (now - this.lastLoggedAt < SINK_LOG_INTERVAL_MS) return;
    this.lastLoggedAt = now;
    log();
  }
}
