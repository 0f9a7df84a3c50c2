import { PublishApiError, PublishCredentialError, PublishTimeoutError } from '../../errors.js';
import { connectionVerdict, RETRY_BACKOFF, retryDelay } from './retry-policy.js';

const noAnswer = (cause: object) =>
  new PublishApiError('The API server could not be reached', undefined, undefined, {
    cause: new TypeError('fetch failed', { cause }),
  });

describe('connectionVerdict', () => {
  it('tells a failed connection attempt from a lost connection, an answer, a timeout and missing credentials', () => {
    expect(connectionVerdict(noAnswer({ code: 'ECONNREFUSED', syscall: 'connect' }))).toBe('unconnected');
    expect(connectionVerdict(noAnswer({ code: 'ECONNRESET', syscall: 'read' }))).toBe('lost');
    expect(connectionVerdict(noAnswer({ code: 'UND_ERR_SOCKET', message: 'other side closed' }))).toBe('lost');
    expect(connectionVerdict(new PublishApiError('unavailable', 503))).toBe('answered');
    expect(connectionVerdict(new PublishApiError('cut', 201, undefined, { mayHaveApplied: true }))).toBe('answered');
    expect(connectionVerdict(new PublishTimeoutError(300))).toBe('timed-out');
    expect(connectionVerdict(new PublishCredentialError('the plugin failed'))).toBe('unsent');
  });
});

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
