import { PublishTimeoutError } from '../../errors.js';
import { DeadlineLine } from './deadline-line.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

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
 * timeout: one line of deadlines and one timer serve them all
 * ({@link DeadlineLine}), rather than a timer and a race per request.
 */
export class RequestDeadlines {
  private readonly line: DeadlineLine<BoundedRequest>;

  constructor(
    private readonly clock: KubeEventsClock,
    private readonly timeout: number,
  ) {
    this.line = new DeadlineLine(clock, (request) => this.expired(request));
  }

  /**
   * Runs `work`, aborted once the timeout has passed; settles right then,
   * whatever the request does: with what the aborted request says it was
   * waiting for (an exec credential plugin, say), or else with
   * {@link PublishTimeoutError}. What `work` rejects with is passed
   * through `asError` first, in the same step (no promise more per request).
   */
  bound<T>(work: (signal: AbortSignal) => Promise<T>, asError: (error: unknown) => unknown = sameError): Promise<T> {
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      const request: BoundedRequest = {
        deadline: this.clock.now() + this.timeout,
        controller,
        reject,
        previous: undefined,
        next: undefined,
      };
      this.line.add(request);
      let working: Promise<T>;
      try {
        working = work(controller.signal);
      } catch (error) {
        // Thrown before any promise: it settles the request as a rejection would, and leaves the line.
        working = Promise.reject(error);
      }
      working.then(
        (value) => {
          this.line.remove(request);
          resolve(value);
        },
        (error: unknown) => {
          this.line.remove(request);
          reject(asError(error));
        },
      );
    });
  }

  private expired(request: BoundedRequest): void {
    const error = new PublishTimeoutError(this.timeout);
    request.controller.abort(error);
    // After the promise callbacks the abort runs: a request that heeds it rejects first, saying more.
    setImmediate(() => request.reject(error));
  }
}

function sameError(error: unknown): unknown {
  return error;
}
