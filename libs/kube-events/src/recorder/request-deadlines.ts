import { PublishTimeoutError } from '../errors.js';
import { InsertionOrder } from './insertion-order.js';
import type { WriteClock } from './write-clock.js';

/** A request on its way, until it settles or its deadline passes. */
interface BoundedRequest {
  readonly deadline: number;
  readonly controller: AbortController;
  readonly reject: (error: PublishTimeoutError) => void;
  previous: BoundedRequest | undefined;
  next: BoundedRequest | undefined;
}

/**
 * Bounds every request by the recorder's timeout. Every request has the same
 * timeout, so their deadlines come in the order they were sent: one line and
 * one timer serve them all, rather than a timer and a race per request.
 */
export class RequestDeadlines {
  private readonly line = new InsertionOrder<BoundedRequest>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: WriteClock,
    private readonly timeout: number,
  ) {}

  /**
   * Runs `work`, aborted once the timeout has passed; settles right then,
   * whatever the request does: with what the aborted request says it was
   * waiting for (an exec credential plugin, say), or else with
   * {@link PublishTimeoutError}.
   */
  bound<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      const request: BoundedRequest = {
        deadline: this.clock.now() + this.timeout,
        controller,
        reject,
        previous: undefined,
        next: undefined,
      };
      this.line.push(request);
      this.arm();
      work(controller.signal).then(
        (value) => {
          this.settled(request);
          resolve(value);
        },
        (error: unknown) => {
          this.settled(request);
          reject(error);
        },
      );
    });
  }

  private settled(request: BoundedRequest): void {
    this.line.remove(request);
    // Left armed, so that the next request finds it; the process waits for no request that has settled.
    if (!this.line.first) this.timer?.unref();
  }

  private arm(): void {
    const first = this.line.first;
    if (!first) return;
    if (this.timer) this.timer.ref();
    else this.timer = this.clock.after(first.deadline - this.clock.now(), () => this.expire(), true);
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    // A timeout longer than a timer holds is waited out in turns: a deadline not come yet is set again.
    for (let request = this.line.first; request && request.deadline <= now; request = this.line.first) {
      this.line.remove(request);
      const error = new PublishTimeoutError(this.timeout);
      request.controller.abort(error);
      // After the promise callbacks the abort runs: a request that heeds it rejects first, saying more.
      setImmediate(() => request.reject(error));
    }
    if (this.line.first) this.arm();
  }
}
