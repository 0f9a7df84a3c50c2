import { FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('stands still until advanced, then reads the time it was moved to', async () => {
    const clock = new FakeClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advance(250);
    expect(clock.now()).toBe(1_250);
  });

  it('fires the timers due within an advance in time order, each at its own time, ties in the order they were set', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const mark = (name: string) => () => fired.push(`${name}@${clock.now()}`);
    clock.setTimer(30, mark('c'));
    clock.setTimer(10, mark('a'));
    clock.setTimer(10, mark('b'));
    clock.setTimer(31, mark('late'));

    await clock.advance(30);

    expect(fired).toEqual(['a@10', 'b@10', 'c@30']);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.msUntilNextTimer()).toBe(1);
  });

  it('fires, within the same advance, a timer that work started by an earlier timer set after promise jobs', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    // A backoff, then a retry set from the continuation of the first attempt, as the write loop does.
    clock.setTimer(100, () => {
      void Promise.resolve()
        .then(() => undefined)
        .then(() => clock.setTimer(200, () => fired.push(clock.now())));
    });

    await clock.advance(299);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual([300]);
  });

  it('settles sleep() once advanced by its time, and never fires a timer that was cleared', async () => {
    const clock = new FakeClock();
    let slept = false;
    void clock.sleep(50).then(() => (slept = true));
    const cleared = clock.setTimer(10, () => {
      throw new Error('a cleared timer fired');
    });
    clock.clearTimer(cleared);
    clock.clearTimer(undefined);

    await clock.advance(49);
    expect(slept).toBe(false);
    await clock.advance(1);
    expect(slept).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fires a timer set for no time, or for a negative one, on the next advance', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimer(0, () => fired.push(0));
    clock.setTimer(-5, () => fired.push(-5));
    clock.setTimer(Number.NaN, () => fired.push(Number.NaN));
    await clock.advance(0);
    expect(fired).toEqual([0, -5, Number.NaN]);
  });

  it('refuses to go back in time', async () => {
    await expect(new FakeClock().advance(-1)).rejects.toThrow(RangeError);
  });
});
