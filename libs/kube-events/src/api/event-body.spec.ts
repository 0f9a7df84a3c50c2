import { V1MicroTime } from '@kubernetes/client-node';
import { microTime } from './event-body.js';

describe('microTime', () => {
  it.each([
    Date.UTC(2026, 10, 30, 13, 8, 33, 123),
    Date.UTC(2026, 0, 1, 0, 0, 0, 0),
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(1999, 8, 9, 9, 9, 9, 9),
    Date.UTC(1000, 0, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    0,
    -1,
    Date.UTC(10000, 0, 1),
    Date.UTC(999, 11, 31),
    -62198755200000,
  ])('writes %d as client-node’s V1MicroTime does, six fractional digits', (epochMs) => {
    const time = new V1MicroTime(epochMs);
    expect(microTime(time)).toBe(time.toISOString());
    expect(microTime(new Date(epochMs))).toBe(time.toISOString());
  });

  it('refuses an invalid date, as toISOString does', () => {
    expect(() => microTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
