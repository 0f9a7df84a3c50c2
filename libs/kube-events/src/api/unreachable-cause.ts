import { redactCredentials } from '../text/credential-redaction.js';

/** The parts of a Node network error that say why a server could not be reached. */
interface NetworkErrorDetails {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
  message?: string;
  /** undici's SocketError: the connection it was on. */
  socket?: { remoteAddress?: string; remotePort?: number };
}

/** Error codes of a connection that could not be made: no route, no listener, no name, no time. */
const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Error codes OpenSSL and Node give a TLS handshake that failed: the certificate, the protocol. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|UNABLE_TO_|SELF_SIGNED|HOSTNAME_MISMATCH|ALTNAME/;

/**
 * Whether a request that got no answer failed to make its connection
 * (refused, a name that does not resolve, a connect timeout, a TLS
 * handshake that failed), as opposed to losing an established one (a
 * reset, a close, a cut answer). Only the first says the server cannot be
 * reached: a kept-alive connection closed by a load balancer's idle
 * timeout or a server's graceful shutdown says nothing of the next one.
 */
export function isFailedConnectionAttempt(error: unknown): boolean {
  for (
    let cause: unknown = error, depth = 0;
    cause && typeof cause === 'object' && depth < 8;
    cause = (cause as Error).cause, depth++
  ) {
    const { code, syscall, message } = cause as NetworkErrorDetails;
    if (syscall === 'connect' || syscall === 'getaddrinfo' || syscall === 'queryA' || syscall === 'queryAaaa')
      return true;
    // A read or write that timed out or failed was on a connection already made.
    const established = syscall === 'read' || syscall === 'write';
    if (code && !established && (CONNECT_CODES.has(code) || TLS_CODE.test(code))) return true;
    // Node's reset during a TLS handshake carries ECONNRESET, and says so only in its message.
    if (message?.includes('before secure TLS connection was established')) return true;
  }
  return false;
}

/** What a cause keeps of each error it was made from, when it cannot be kept as it is. */
const KEPT_FIELDS = ['code', 'syscall', 'errno', 'address', 'port', 'hostname'] as const;

/**
 * `error`, to keep as the cause of a publish's error, unless one of its
 * causes carries what it was given (Node's `ERR_INVALID_URL` keeps the URL
 * as `input`, with a proxy's password in it; `util.inspect` prints it):
 * then a copy of the chain, each error's redacted message and its network
 * fields only (code, syscall, address, port), which say as much of why.
 */
export function safeCause(error: unknown): unknown {
  let carriesInput = false;
  for (
    let cause: unknown = error, depth = 0;
    cause && typeof cause === 'object' && depth < 8;
    cause = (cause as Error).cause, depth++
  ) {
    if (Object.hasOwn(cause, 'input')) carriesInput = true;
  }
  return carriesInput ? copied(error, 0) : error;
}

function copied(error: unknown, depth: number): unknown {
  if (!error || typeof error !== 'object') return typeof error === 'string' ? redactCredentials(error) : undefined;
  const { message, cause } = error as Error;
  const next = depth < 7 && cause !== undefined ? copied(cause, depth + 1) : undefined;
  const copy = new Error(
    redactCredentials(typeof message === 'string' ? message : ''),
    next === undefined ? undefined : { cause: next },
  );
  for (const field of KEPT_FIELDS) {
    const value = (error as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number')
      Object.assign(copy, { [field]: typeof value === 'string' ? redactCredentials(value) : value });
  }
  return copy;
}

/** undici's limit on an answer's headers (`maxHeaderSize`, 16 KiB by default), in KiB, for the message that says it was passed. */
export const MAX_ANSWER_HEADER_KIB = 16;

/**
 * Whether `error` (or a cause) is undici's refusal of an answer whose
 * headers pass its limit: the server answered, with more than can be
 * read. It is a bad answer, not an unreachable server.
 */
export function isOversizedAnswer(error: unknown): boolean {
  for (
    let cause: unknown = error, depth = 0;
    cause && typeof cause === 'object' && depth < 8;
    cause = (cause as Error).cause, depth++
  ) {
    if ((cause as NetworkErrorDetails).code === 'UND_ERR_HEADERS_OVERFLOW') return true;
  }
  return false;
}

/**
 * Why a request got no answer, from the innermost cause that says it:
 * `connect ECONNREFUSED 127.0.0.1:6443`, `getaddrinfo ENOTFOUND api.example`,
 * a TLS failure, a keep-alive connection the server closed. fetch wraps these two `cause` levels down under "fetch failed".
 */
export function describeUnreachable(error: unknown): string {
  const chain: NetworkErrorDetails[] = [];
  for (
    let cause: unknown = error;
    cause && typeof cause === 'object' && chain.length < 8;
    cause = (cause as Error).cause
  ) {
    chain.push(cause);
  }
  const innermost = [...chain].reverse().find((cause) => cause.code || cause.syscall);
  if (innermost?.code === 'UND_ERR_SOCKET') {
    // A pooled keep-alive connection the server closed: it went down, or restarted.
    const { remoteAddress, remotePort } = innermost.socket ?? {};
    const where = remoteAddress ? ` to ${remoteAddress}${remotePort ? `:${remotePort}` : ''}` : '';
    return `the connection${where} was closed by the server (${innermost.message ?? 'other side closed'})`;
  }
  if (innermost) {
    const where = innermost.address
      ? `${innermost.address}${innermost.port ? `:${innermost.port}` : ''}`
      : innermost.hostname;
    const message = innermost.message ?? '';
    // Node's own message already reads "connect ECONNREFUSED 127.0.0.1:6443".
    if (innermost.code && message.includes(innermost.code)) return message;
    return [innermost.syscall, innermost.code, where].filter(Boolean).join(' ') + (message ? ` (${message})` : '');
  }
  const messages = chain.map((cause) => cause.message).filter(Boolean);
  return messages.join(': ') || String(error);
}
