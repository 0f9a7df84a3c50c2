import { Logger } from '@nestjs/common';
import type { WorkQueue } from './work-queue.js';

/**
 * Processes one item; a rejection sends the item back with backoff, and so
 * does resolving `'requeue'` (an item that must run again, but did not fail:
 * its backoff grows, and nothing is logged).
 */
export type ItemHandler<T> = (item: T) => Promise<void | 'requeue'>;

/** Options of {@link QueueWorkers}. */
export interface QueueWorkersOptions {
  /**
   * How many items are processed at once.
   * @default 2
   */
  concurrency?: number;
  /**
   * Logger for failed items.
   * @default new Logger('QueueWorkers')
   */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Runs `concurrency` workers over a {@link WorkQueue}, client-go's
 * `processNextWorkItem` loop: an item that fails is re-added rate limited
 * (its backoff grows), an item that succeeds has its backoff forgotten.
 */
export class QueueWorkers<T> {
  readonly concurrency: number;
  private readonly logger: Pick<Logger, 'warn'>;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly queue: WorkQueue<T>,
    private readonly handler: ItemHandler<T>,
    options: QueueWorkersOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${this.concurrency}`);
    }
    this.logger = options.logger ?? new Logger(QueueWorkers.name);
  }

  /** Starts the workers. Calling it again while they run does nothing. */
  start(): void {
    if (this.loops.length > 0) return;
    this.loops = Array.from({ length: this.concurrency }, () => this.work());
  }

  /** Shuts the queue down and resolves once every item in flight has been processed. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.loops);
    await this.queue.drain();
  }

  private async work(): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (item === undefined) return;
      try {
        if ((await this.handler(item)) === 'requeue') this.queue.addRateLimited(item);
        else this.queue.forget(item);
      } catch (error) {
        this.logger.warn(
          `${String(item)} failed (attempt ${this.queue.numRequeues(item) + 1}), retrying with backoff: ${describe(error)}`,
        );
        this.queue.addRateLimited(item);
      } finally {
        this.queue.done(item);
      }
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
