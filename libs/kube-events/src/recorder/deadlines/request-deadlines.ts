import { PublishTimeoutError } from '../../errors.js';
import { DeadlineLine } from './deadline-line.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

/** A request on its way, until it settles or its deadline passes. */
interface BoundedRequest {
  readonly deadline: number;
  readonly controller: AbortController;
  /** Told what the request rejected with, or the timeout: whichever comes first, once. */
  readonly failed: (error: PublishTimeoutError) => void;
  /** Told its answer or its failure already: what comes after is dropped. */
  settled: boolean;
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
   * Runs `work`, aborted once the timeout has passed, and calls `answered`
   * with what it resolves to or `failed` with what it rejects with, once:
   * at the timeout at the latest, whatever the request does, with what the
   * aborted request says it was waiting for (an exec credential plugin,
   * say), or else with {@link PublishTimeoutError}. What `work` rejects
   * with is passed through `asError` first. Callbacks, not a promise: a
   * write's answer reaches its sender in the same step.
   */
  run<T, E>(
    work: (signal: AbortSignal) => Promise<T>,
    answered: (value: T) => void,
    failed: (error: E | PublishTimeoutError) => void,
    asError: (error: unknown) => E,
  ): void {
    const deadline = this.clock.now() + this.timeout;
    const controller = this.controllerFor(deadline);
    const request: BoundedRequest = {
      deadline,
      controller,
      failed,
      settled: false,
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
        if (!this.settle(request)) return;
        answered(value);
      },
      (error: unknown) => {
        if (!this.settle(request)) return;
        failed(asError(error));
      },
    );
  }

  /** {@link run} as a promise, for the requests that are not a write's (an annotation, say). */
  bound<T>(work: (signal: AbortSignal) => Promise<T>, asError: (error: unknown) => unknown = sameError): Promise<T> {
    return new Promise<T>((resolve, reject) => this.run(work, resolve, reject, asError));
  }

  /** Whether this is the request's first outcome; if so, it leaves the line. */
  private settle(request: BoundedRequest): boolean {
    if (request.settled) return false;
    request.settled = true;
    this.line.remove(request);
    return true;
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
    setImmediate(() => {
      if (request.settled) return;
      request.settled = true;
      request.failed(error);
    });
  }
}

function sameError(error: unknown): unknown {
  return error;
}
