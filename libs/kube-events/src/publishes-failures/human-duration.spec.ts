import { humanDuration } from './human-duration.js';

describe('humanDuration', () => {
  it.each([
    [0, '0ms'],
    [850.4, '850ms'],
    [1_000, '1s'],
    [42_400, '42s'],
    [59_600, '1m'],
    [130_000, '2m10s'],
    [3_600_000, '1h'],
    [3 * 3_600_000 + 5 * 60_000 + 20_000, '3h5m'],
    [2 * 86_400_000 + 4 * 3_600_000, '2d4h'],
    [-5, '0ms'],
    [Number.NaN, '0ms'],
  ])('%p ms reads %p', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
