import { describeUnreachable } from './unreachable-cause.js';

/** fetch's shape: "fetch failed", the Node error two levels down. */
const fetchFailed = (cause: object) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('inner'), { cause }) });

describe('describeUnreachable', () => {
  it('names a refused connection with its address', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '127.0.0.1',
      port: 6443,
    });
    expect(describeUnreachable(fetchFailed(refused))).toBe('connect ECONNREFUSED 127.0.0.1:6443');
  });

  it('names a host that does not resolve', () => {
    const unknown = Object.assign(new Error('getaddrinfo ENOTFOUND api.example.invalid'), {
      code: 'ENOTFOUND',
      hostname: 'api.example.invalid',
    });
    expect(describeUnreachable(fetchFailed(unknown))).toBe('getaddrinfo ENOTFOUND api.example.invalid');
  });

  it('says that the server closed a pooled connection, and which', () => {
    const closed = Object.assign(new Error('other side closed'), {
      code: 'UND_ERR_SOCKET',
      socket: { remoteAddress: '10.0.0.1', remotePort: 443 },
    });
    expect(describeUnreachable(fetchFailed(closed))).toBe(
      'the connection to 10.0.0.1:443 was closed by the server (other side closed)',
    );
  });

  it('falls back to the chain of messages', () => {
    expect(describeUnreachable(new Error('outer', { cause: new Error('certificate has expired') }))).toBe(
      'outer: certificate has expired',
    );
    expect(describeUnreachable('plain')).toBe('plain');
  });
});
