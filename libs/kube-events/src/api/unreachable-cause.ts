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
    chain.push(cause as NetworkErrorDetails);
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
