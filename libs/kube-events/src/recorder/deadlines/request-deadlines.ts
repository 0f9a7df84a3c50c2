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
 * How many requests one abort signal serves at most: each adds an abort
 * listener to it, and adding or removing one walks those already there.
 */
const REQUESTS_PER_SIGNAL = 8;

/**
 * Bounds every request by the recorder's timeout. Every request has the same
 * timeout: one line of deadlines and one timer serve them all
 * ({@link DeadlineLine}), rather than a timer and a race per request.
 * Requests with the same deadline (sent in the same millisecond of the
 * clock) share an abort signal, which aborts for all of them at once:
 * a signal costs an `EventTarget` and its listener map.
 */
export class RequestDeadlines {
  private readonly line: DeadlineLine<BoundedRequest>;
  /** The controller of the requests last sent, due at {@link sharedDeadline}, and how many it serves. */
  private shared: AbortController | undefined;
  private sharedDeadline = Number.NaN;
  private sharedBy = 0;

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
    const deadline = this.clock.now() + this.timeout;
    const controller = this.controllerFor(deadline);
    return new Promise<T>((resolve, reject) => {
      const request: BoundedRequest = {
        deadline,
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

  /**
   * The controller of a request due at `deadline`: that of the requests sent
   * just before it, while it serves. One aborted is past its deadline, which
   * a new request's (now plus a positive timeout) never equals.
   */
  private controllerFor(deadline: number): AbortController {
    const shared = this.shared;
    if (shared && deadline === this.sharedDeadline && this.sharedBy < REQUESTS_PER_SIGNAL) {
      this.sharedBy++;
      return shared;
    }
    this.shared = new AbortController();
    this.sharedDeadline = deadline;
    this.sharedBy = 1;
    return this.shared;
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
