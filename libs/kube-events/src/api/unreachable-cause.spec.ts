import { describeUnreachable, isFailedConnectionAttempt } from './unreachable-cause.js';

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

describe('isFailedConnectionAttempt', () => {
  const nodeError = (message: string, fields: object) => Object.assign(new Error(message), fields);

  it.each([
    [
      'a refused connection',
      nodeError('connect ECONNREFUSED 127.0.0.1:6443', { code: 'ECONNREFUSED', syscall: 'connect' }),
    ],
    [
      'a name that does not resolve',
      nodeError('getaddrinfo ENOTFOUND api.invalid', { code: 'ENOTFOUND', syscall: 'getaddrinfo' }),
    ],
    ['a connect timeout', nodeError('Connect Timeout Error', { code: 'UND_ERR_CONNECT_TIMEOUT' })],
    ['an untrusted certificate', nodeError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })],
    ['a wrong host name', nodeError('Hostname/IP does not match', { code: 'ERR_TLS_CERT_ALTNAME_INVALID' })],
    [
      'a reset during the TLS handshake',
      nodeError('Client network socket disconnected before secure TLS connection was established', {
        code: 'ECONNRESET',
      }),
    ],
  ])('says %s failed to connect', (_, cause) => {
    expect(isFailedConnectionAttempt(fetchFailed(cause))).toBe(true);
  });

  it.each([
    ['a reset of an established connection', nodeError('read ECONNRESET', { code: 'ECONNRESET', syscall: 'read' })],
    ['a connection the server closed', nodeError('other side closed', { code: 'UND_ERR_SOCKET' })],
    ['a read that timed out', nodeError('read ETIMEDOUT', { code: 'ETIMEDOUT', syscall: 'read' })],
    ['a body cut short', new TypeError('terminated')],
  ])('says %s is not a failed connection attempt', (_, cause) => {
    expect(isFailedConnectionAttempt(fetchFailed(cause))).toBe(false);
  });
});
