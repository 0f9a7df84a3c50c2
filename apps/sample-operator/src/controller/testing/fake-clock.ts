import type { Clock, TimerHandle } from '../clock.js';

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A {@link Clock} that moves only when told: {@link advance} runs the timers
 * that fall due, in order. For unit tests of delays without waiting for them.
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Map<number, FakeTimer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, delayMs), seq: id, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.timers.delete(handle as number);
  }

  /** Delays of the pending timers from now, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((timer) => timer.at - this.time).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, running each timer that falls due at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = [...this.timers.entries()]
        .filter(([, timer]) => timer.at <= end)
        .sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      const [id, timer] = next;
      this.timers.delete(id);
      this.time = timer.at;
      timer.callback();
    }
    this.time = end;
  }
}
