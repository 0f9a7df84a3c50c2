import { WRITE_RATE_ADAPTATION, WriteRate } from './budgets.js';

describe('WriteRate', () => {
  it('starts at the configured rate and halves on an overload answer to a write sent since the last halving', () => {
    const rate = new WriteRate(100, 0);
    expect(rate.qps).toBe(100);
    expect(rate.overloaded(5, 10)).toBe(true);
    expect(rate.qps).toBe(50);
    // Answers to writes sent before the halving tell of the old rate.
    expect(rate.overloaded(9, 20)).toBe(false);
    expect(rate.qps).toBe(50);
    expect(rate.overloaded(10, 30)).toBe(true);
    expect(rate.qps).toBe(25);
  });

  it('never goes below the floor, nor above a configured rate lower than it', () => {
    const rate = new WriteRate(100, 0);
    for (let t = 0; t < 20_000; t += 1_000) rate.overloaded(t, t);
    expect(rate.qps).toBe(WRITE_RATE_ADAPTATION.floorQps);
    const slow = new WriteRate(0.5, 0);
    slow.overloaded(0, 0);
    expect(slow.qps).toBe(0.5);
  });

  it('recovers to the configured rate while the server admits writes, and no further', () => {
    const rate = new WriteRate(100, 0);
    for (let t = 0; t < 10_000; t += 1_000) rate.overloaded(t, t);
    const lowest = rate.qps;
    // The last halving was at 9 s: one second of admitted writes later, the rate has gained a tenth of the configured one.
    let t = 10_000;
    rate.admitted(t);
    expect(rate.qps).toBeCloseTo(lowest + 100 * WRITE_RATE_ADAPTATION.recoveryPerSecond);
    for (; t < 30_000; t += 100) rate.admitted(t);
    expect(rate.qps).toBe(100);
    expect(rate.admitted(t + 1_000)).toBe(false);
  });

  it('does not count a quiet spell as more than one second of admitted writes', () => {
    const rate = new WriteRate(100, 0);
    rate.overloaded(0, 0);
    rate.admitted(60_000);
    expect(rate.qps).toBeCloseTo(50 + 100 * WRITE_RATE_ADAPTATION.recoveryPerSecond);
  });

  it('says the writes are throttled while the rate is lowered, and for a full recovery’s time after an overload at the floor', () => {
    const rate = new WriteRate(100, 0);
    expect(rate.throttled(0)).toBe(false);
    rate.overloaded(0, 1_000);
    expect(rate.throttled(1_000)).toBe(true);
    for (let t = 1_000; t < 20_000; t += 100) rate.admitted(t);
    expect(rate.qps).toBe(100);
    // Back at the configured rate, and the last overload a full recovery's time ago.
    expect(rate.throttled(20_000)).toBe(false);

    // At a floor it cannot go below, an overload answer leaves the rate as it is, and still tells of throttling.
    const slow = new WriteRate(0.5, 0);
    slow.overloaded(0, 0);
    expect(slow.qps).toBe(0.5);
    expect(slow.throttled(9_999)).toBe(true);
    expect(slow.throttled(10_000)).toBe(false);
  });
});
