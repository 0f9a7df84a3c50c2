import { toMicroTime } from './micro-time.js';

describe('toMicroTime', () => {
  it('writes RFC 3339 with exactly six fractional digits', () => {
    const time = toMicroTime(Date.UTC(2026, 10, 30, 13, 8, 33, 123));
    expect(time).toBe('2026-11-30T13:08:33.123000Z');
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });
});
