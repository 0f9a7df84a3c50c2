import { QueueWorkers } from './queue-workers.js';
import { FakeClock } from 'nestjs-kube-events/testing';
import { WorkQueue } from './work-queue.js';
import { flush } from '../../../../test/support/flush.js';

/** The clock's one pending timer, as a count and how far off it is. */
function pendingTimer(clock: FakeClock): { count: number; inMs: number | undefined } {
  return { count: clock.pendingTimers, inMs: clock.msUntilNextTimer() };
}

/** A handler whose calls stay pending until the test settles them. */
class ControlledHandler {
  readonly calls: string[] = [];
  private readonly pending = new Map<
    string,
    { resolve: (value: void | 'requeue') => void; reject: (error: Error) => void }[]
  >();

  readonly handle = (item: string): Promise<void | 'requeue'> => {
    this.calls.push(item);
    return new Promise((resolve, reject) => {
      const list = this.pending.get(item) ?? [];
      list.push({ resolve, reject });
      this.pending.set(item, list);
    });
  };

  get inFlight(): number {
    return [...this.pending.values()].reduce((sum, list) => sum + list.length, 0);
  }

  succeed(item: string): void {
    this.take(item).resolve();
  }

  requeue(item: string): void {
    this.take(item).resolve('requeue');
  }

  fail(item: string, message = 'boom'): void {
    this.take(item).reject(new Error(message));
  }

  private take(item: string) {
    const next = this.pending.get(item)?.shift();
    if (!next) throw new Error(`no pending call for ${item}`);
    return next;
  }
}

describe('QueueWorkers', () => {
  let clock: FakeClock;
  let queue: WorkQueue<string>;
  let handler: ControlledHandler;
  let warnings: string[];
  let workers: QueueWorkers<string>;

  beforeEach(() => {
    clock = new FakeClock();
    queue = new WorkQueue<string>({ clock });
    handler = new ControlledHandler();
    warnings = [];
    workers = new QueueWorkers(queue, handler.handle, {
      concurrency: 2,
      logger: { warn: (message: string) => void warnings.push(message) },
    });
  });

  afterEach(async () => {
    queue.shutDown();
  });

  it('processes at most `concurrency` items at once', async () => {
    workers.start();
    ['a', 'b', 'c', 'd'].forEach((item) => queue.add(item));
    await flush();
    expect(handler.calls).toEqual(['a', 'b']);
    expect(handler.inFlight).toBe(2);

    handler.succeed('a');
    await flush();
    expect(handler.calls).toEqual(['a', 'b', 'c']);
    expect(handler.inFlight).toBe(2);
  });

  it('retries a failed item with growing backoff and forgets it after a success', async () => {
    workers.start();
    queue.add('a');
    await flush();

    handler.fail('a', 'source ConfigMap default/x not found');
    await flush();
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 5 });
    expect(warnings[0]).toContain('source ConfigMap default/x not found');
    await clock.advance(5);
    await flush();
    expect(handler.calls).toEqual(['a', 'a']);

    handler.fail('a');
    await flush();
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 10 });
    await clock.advance(10);
    await flush();

    handler.succeed('a');
    await flush();
    expect(queue.numRequeues('a')).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(handler.calls).toEqual(['a', 'a', 'a']);
  });

  it("runs an item that resolved 'requeue' again with growing backoff, without a warning", async () => {
    workers.start();
    queue.add('a');
    await flush();

    handler.requeue('a');
    await flush();
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 5 });
    await clock.advance(5);
    await flush();
    handler.requeue('a');
    await flush();
    expect(pendingTimer(clock)).toEqual({ count: 1, inMs: 10 });
    await clock.advance(10);
    await flush();
    expect(handler.calls).toEqual(['a', 'a', 'a']);
    expect(warnings).toEqual([]);
  });

  it('reprocesses an item changed while it was in flight, after it finishes, never concurrently', async () => {
    workers.start();
    queue.add('a');
    await flush();
    queue.add('a');
    await flush();
    expect(handler.inFlight).toBe(1);
    handler.succeed('a');
    await flush();
    expect(handler.calls).toEqual(['a', 'a']);
  });

  it('on stop, starts nothing new and resolves once the items in flight are done', async () => {
    workers.start();
    ['a', 'b', 'c'].forEach((item) => queue.add(item));
    await flush();
    let stopped = false;
    const stopping = workers.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);

    handler.succeed('a');
    await flush();
    expect(stopped).toBe(false);
    handler.fail('b');
    await stopping;
    expect(handler.calls).toEqual(['a', 'b']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects a concurrency that is not a positive integer', () => {
    expect(() => new QueueWorkers(queue, handler.handle, { concurrency: 0 })).toThrow(/positive integer/);
  });
});
