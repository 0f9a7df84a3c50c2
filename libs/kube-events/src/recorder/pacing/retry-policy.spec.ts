import { RETRY_BACKOFF, retryDelay } from './retry-policy.js';

describe('retryDelay', () => {
  it('takes Retry-After as a floor and spreads the retries above it', () => {
    const delays = Array.from({ length: 200 }, () => retryDelay(1, 1_000));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1_000 * (1 + RETRY_BACKOFF.jitter));
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(100);
  });

  it('doubles up to its cap without Retry-After', () => {
    const { initialMs, maxMs, jitter } = RETRY_BACKOFF;
    expect(retryDelay(1)).toBeGreaterThanOrEqual(initialMs);
    expect(retryDelay(2)).toBeGreaterThanOrEqual(2 * initialMs);
    expect(retryDelay(20)).toBeLessThanOrEqual(maxMs * (1 + jitter));
  });
});
