import { Subject, type Observable } from 'rxjs';
import { monotonicNow } from './monotonic-clock.js';
import type { Series } from './series.js';
import type { WriteBudget } from './write-budget.js';
import { timerDelay } from '../timer-delay.js';

/**
 * How often, at most, the line waiting for the recorder-wide budget is
 * served. Each time it is, every write the budget allows by then goes out
 * together: at 100 writes/s, ten writes per wake-up rather than one, so the
 * process wakes (timer, then answers) a tenth as often. That measured ~40 %
 * less CPU per write in `npm run bench:clientgo` (workload C). A write the
 * budget holds waits at most this much longer; the budget's rate is kept,
 * since a burst too small to hold a batch is served as soon as it is full.
 */
const LINE_SERVICE_INTERVAL_MS = 100;

/**
 * Decides when each series' next write goes out: at once when nothing
 * holds it back; else on a timer of its own while its backoff or its
 * object's budget holds it, then in one first-in-first-out line, served by
 * one timer, for the recorder-wide budget, served in batches (see
 * {@link LINE_SERVICE_INTERVAL_MS}). Owns every timer of the write path.
 * It only says when: each series whose write may go now comes out of
 * `due$`, and whoever writes subscribes; it knows nothing of the writer.
 */
export class WriteScheduler {
  private readonly timers = new Map<Series, NodeJS.Timeout>();
  /** Series waiting only for the recorder-wide budget, in order. */
  private readonly line = new Set<Series>();
  private lineTimer: NodeJS.Timeout | undefined;
  private readonly due = new Subject<Series>();
  /** Series whose next write may go now, each as soon as it may (synchronously, within `schedule` or a timer). */
  readonly due$: Observable<Series> = this.due.asObservable();

  constructor(private readonly budget: WriteBudget) {}

  /** Sends the series' next write as soon as its backoff and the budgets allow; does nothing while one is in flight or planned. */
  schedule(series: Series, atHeadOfLine = false): void {
    const batch = series.queue[0];
    if (!batch || series.state === 'writing' || this.timers.has(series) || (!atHeadOfLine && this.line.has(series)))
      return;
    const now = monotonicNow();
    const waited = now - batch.first.publishedAt;
    const objectWait = series.object ? this.budget.msUntilObjectWrite(series.object, waited, now) : 0;
    const wait = Math.max(series.retryAt - now, objectWait);
    if (wait > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(series);
        this.schedule(series);
      }, timerDelay(wait));
      timer.unref();
      this.timers.set(series, timer);
    } else if ((atHeadOfLine || !this.line.size) && this.budget.tryTakeFolded(series.object, waited, now)) {
      this.due.next(series);
    } else {
      this.line.add(series);
      this.armLineTimer();
    }
  }

  /** Stops scheduling the series, as when `flush()` writes it itself. */
  cancel(series: Series): void {
    clearTimeout(this.timers.get(series));
    this.timers.delete(series);
    this.line.delete(series);
  }

  private armLineTimer(): void {
    if (this.lineTimer || !this.line.size) return;
    const now = monotonicNow();
    // Served once the interval has passed, unless a bucket smaller than a batch fills first and would waste tokens.
    const batchWait = Math.min(LINE_SERVICE_INTERVAL_MS, this.budget.msUntilRecorderFull(now));
    const wait = Math.max(1, this.budget.msUntilRecorderWrite(now), batchWait);
    this.lineTimer = setTimeout(() => {
      this.lineTimer = undefined;
      for (const series of this.line) {
        if (this.budget.msUntilRecorderWrite(monotonicNow()) > 0) break;
        this.line.delete(series);
        this.schedule(series, true);
      }
      this.armLineTimer();
    }, timerDelay(wait));
    this.lineTimer.unref();
  }
}
