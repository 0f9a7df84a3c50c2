import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS, ItemExponentialBackoff } from './backoff.js';

describe('ItemExponentialBackoff', () => {
  it("uses client-go's defaults: 5 ms doubling to 1000 s", () => {
    expect(DEFAULT_BASE_DELAY_MS).toBe(5);
    expect(DEFAULT_MAX_DELAY_MS).toBe(1_000_000);
    const backoff = new ItemExponentialBackoff<string>();
    const delays = Array.from({ length: 20 }, () => backoff.when('default/a'));
    expect(delays.slice(0, 6)).toEqual([5, 10, 20, 40, 80, 160]);
    expect(delays[17]).toBe(5 * 2 ** 17);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
  });

  it('stays at the ceiling however many failures pile up', () => {
    const backoff = new ItemExponentialBackoff<string>();
    let last = 0;
    for (let i = 0; i < 5_000; i++) last = backoff.when('a');
    expect(last).toBe(1_000_000);
    expect(backoff.numRequeues('a')).toBe(5_000);
  });

  it('backs each item off independently', () => {
    const backoff = new ItemExponentialBackoff<string>();
    backoff.when('a');
    backoff.when('a');
    expect(backoff.when('b')).toBe(5);
    expect(backoff.when('a')).toBe(20);
    expect(backoff.numRequeues('a')).toBe(3);
    expect(backoff.numRequeues('b')).toBe(1);
  });

  it('starts over after forget', () => {
    const backoff = new ItemExponentialBackoff<string>();
    backoff.when('a');
    backoff.when('a');
    backoff.forget('a');
    expect(backoff.numRequeues('a')).toBe(0);
    expect(backoff.when('a')).toBe(5);
  });

  it('takes a custom base and ceiling', () => {
    const backoff = new ItemExponentialBackoff<string>({ baseDelayMs: 100, maxDelayMs: 250 });
    expect([backoff.when('a'), backoff.when('a'), backoff.when('a')]).toEqual([100, 200, 250]);
  });

  it('rejects a ceiling below the base, and a base that cannot grow', () => {
    expect(() => new ItemExponentialBackoff({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(RangeError);
    expect(() => new ItemExponentialBackoff({ baseDelayMs: -1 })).toThrow(/baseDelayMs=-1/);
    // A zero base would never grow: a failing item would be retried in a tight loop.
    expect(() => new ItemExponentialBackoff({ baseDelayMs: 0 })).toThrow(/baseDelayMs=0/);
  });
});
