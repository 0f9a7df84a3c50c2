import { systemClock, type KubeEventsClock, type KubeEventsTimer } from 'nestjs-kube-events';
import { ItemExponentialBackoff, type RateLimiter } from './backoff.js';

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions<T> {
  /**
   * Decides the delay of {@link WorkQueue.addRateLimited}.
   * @default new ItemExponentialBackoff() (5 ms doubling to 1000 s)
   */
  rateLimiter?: RateLimiter<T>;
  /**
   * Source of time for delayed adds.
   * @default systemClock
   */
  clock?: KubeEventsClock;
}

interface Waiting {
  readyAt: number;
  timer: KubeEventsTimer;
}

/**
 * A rate-limited work queue with client-go's guarantees:
 *
 * - an item is queued at most once, however often it is added (keys, not events);
 * - an item is never handed to two workers at once: added while it is being
 *   processed, it is queued again when {@link done} is called for it;
 * - {@link addAfter} and {@link addRateLimited} delay an add; of several
 *   pending delays for one item, the earliest wins;
 * - {@link forget} resets the item's backoff once it has been processed well.
 *
 * Workers loop on {@link get} → process → {@link done}.
 * {@link shutDown} drops queued and delayed items, makes every `get` resolve
 * `undefined`, and lets the items in flight finish; {@link drain} waits for them.
 */
export class WorkQueue<T> {
  private readonly rateLimiter: RateLimiter<T>;
  private readonly clock: KubeEventsClock;
  private readonly queue: T[] = [];
  /** Items waiting to be processed: queued, or re-added while processing. */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, Waiting>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private drainers: (() => void)[] = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.rateLimiter = options.rateLimiter ?? new ItemExponentialBackoff<T>();
    this.clock = options.clock ?? systemClock;
  }

  /** Number of items ready to be handed out. */
  get length(): number {
    return this.queue.length;
  }

  /** Number of items handed out and not yet {@link done}. */
  get inFlight(): number {
    return this.processing.size;
  }

  /** Number of items waiting for a delayed add. */
  get delayed(): number {
    return this.waiting.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues `item` now, unless it is queued already. Ignored after {@link shutDown}. */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /** Queues `item` after `delayMs`; an earlier pending delay for it is kept. */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const pending = this.waiting.get(item);
    if (pending) {
      if (pending.readyAt <= readyAt) return;
      this.clock.clearTimer(pending.timer);
    }
    // Holds the process, as a pending retry is work the operator still has to do.
    const timer = this.clock.setTimer(
      delayMs,
      () => {
        this.waiting.delete(item);
        this.add(item);
      },
      true,
    );
    this.waiting.set(item, { readyAt, timer });
  }

  /** Queues `item` after the delay its rate limiter gives for one more failure. */
  addRateLimited(item: T): void {
    if (this.shuttingDown) return;
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears `item`'s failure history. Call it when `item` was processed successfully. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many times `item` has been retried since it was last forgotten. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /**
   * Hands out the next item, waiting for one if the queue is empty.
   * Resolves `undefined` once the queue is shut down.
   * The caller must call {@link done} with the item when it has finished with it.
   */
  get(): Promise<T | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const item = this.queue.shift();
    if (item !== undefined) return Promise.resolve(this.startProcessing(item));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks `item` as processed; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    if (!this.processing.delete(item)) return;
    if (this.dirty.has(item) && !this.shuttingDown) {
      this.enqueue(item);
    }
    if (this.processing.size === 0) {
      const drainers = this.drainers;
      this.drainers = [];
      for (const resolve of drainers) resolve();
    }
  }

  /**
   * Stops the queue: later adds are ignored, queued and delayed items are
   * dropped, and every pending or later {@link get} resolves `undefined`.
   * Items already handed out stay in flight until {@link done}.
   */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) this.clock.clearTimer(timer);
    this.waiting.clear();
    this.queue.length = 0;
    this.dirty.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  /** Resolves when no item is in flight. */
  drain(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainers.push(resolve));
  }

  private enqueue(item: T): void {
    const getter = this.getters.shift();
    if (getter) {
      getter(this.startProcessing(item));
    } else {
      this.queue.push(item);
    }
  }

  private startProcessing(item: T): T {
    this.dirty.delete(item);
    this.processing.add(item);
    return item;
  }
}
