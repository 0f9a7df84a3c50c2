import { PublishApiError, PublishCredentialError, PublishTimeoutError } from '../errors.js';
import { connectionVerdict } from './error-verdicts.js';

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
