import { open } from 'node:fs/promises';
import type { User } from '@kubernetes/client-node';
import { TOKEN_FILE_EMPTY, TOKEN_FILE_TOO_LARGE } from '../kube-events.messages.js';
import { truncateText } from '../event-rules/note-truncation.js';
import { MAX_REQUEST_HEADER_BYTES, trimSpace } from './credential-headers.js';

/**
 * How long a token read from a file is used before the file is read again:
 * client-go's `NewCachedFileTokenSource` (a minute, half the time between
 * the kubelet's refresh of a projected token and its expiry).
 */
const TOKEN_FILE_PERIOD_MS = 60_000;

/** The most of a token file's path that a message shows, in UTF-8 bytes. */
const MAX_PATH_BYTES = 256;

/** What the token file authenticator is given by client-node's authentication: its `authProvider` names the file. */
interface TokenFileUser {
  authProvider?: { config?: { tokenFile?: unknown } };
}

/** A token file that cannot give a token: its message says why, without the file's content. */
export class TokenFileRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileRefused';
  }
}

/**
 * The authentication of a user whose token is read from a file (a
 * kubeconfig's `token-file`, the in-cluster ServiceAccount token), as
 * client-go's `cachingTokenSource` over a `fileTokenSource` does it, in
 * place of client-node's, which reads the whole file synchronously, sends
 * it untrimmed, and keeps it a minute even after the server refused it:
 * - the file is read without blocking, at most {@link MAX_REQUEST_HEADER_BYTES}
 *   of it: a longer token fits in no request the API server accepts, and is
 *   refused with a `PublishCredentialError` before any request;
 * - its token is trimmed of surrounding white space as Go's
 *   `strings.TrimSpace` does (`echo "$TOKEN" > file` ends it with a newline);
 *   an empty one is refused;
 * - it is read again once a minute, and at the next request after the
 *   server refused (401) a token read before that request
 *   ({@link forgetReadBefore}, client-go's `ResetTokenOlderThan`).
 */
export class TokenFileAuthenticator {
  private cached: { file: string; token: string; readAt: number } | undefined;
  private reading: { file: string; token: Promise<string> } | undefined;

  /** client-node's test: users whose auth-provider names a token file (what `followTokenFiles` and `loadFromCluster` make). */
  isAuthProvider(user: User): boolean {
    const file = (user as TokenFileUser).authProvider?.config?.tokenFile;
    return typeof file === 'string' && file.length > 0;
  }

  /** Sets the `Authorization` header from the file's token. */
  async applyAuthentication(user: User, options: { headers?: Record<string, string> }): Promise<void> {
    const file = (user as TokenFileUser).authProvider!.config!.tokenFile as string;
    const token = await this.token(file);
    options.headers = { ...options.headers, Authorization: `Bearer ${token}` };
  }

  /**
   * Forgets the token when it was read at or before `time` (epoch ms),
   * when a request that carried it was refused (401): the next request reads
   * the file again. A token read since then is kept.
   */
  forgetReadBefore(time: number): void {
    if (this.cached && this.cached.readAt <= time) this.cached = undefined;
  }

  private token(file: string): Promise<string> {
    const cached = this.cached;
    if (cached?.file === file && Date.now() - cached.readAt < TOKEN_FILE_PERIOD_MS)
      return Promise.resolve(cached.token);
    // Requests that need the file while it is read share the one read.
    if (this.reading?.file === file) return this.reading.token;
    const readAt = Date.now();
    const token = readToken(file).then(
      (read) => {
        this.cached = { file, token: read, readAt };
        return read;
      },
      (error: unknown) => {
        // client-go goes on with the token it has when the file cannot be read again.
        if (cached?.file === file) return cached.token;
        throw error;
      },
    );
    const reading = {
      file,
      token: token.finally(() => {
        if (this.reading === reading) this.reading = undefined;
      }),
    };
    this.reading = reading;
    return reading.token;
  }
}

/**
 * The token in `file`: at most {@link MAX_REQUEST_HEADER_BYTES} read, trimmed;
 * refused when longer or empty. A file that cannot be read rejects with
 * the file system's error, which a credential failure names by its code.
 */
async function readToken(file: string): Promise<string> {
  const shown = truncateText(file, MAX_PATH_BYTES);
  const content = await readAtMost(file, MAX_REQUEST_HEADER_BYTES + 1);
  if (content.length > MAX_REQUEST_HEADER_BYTES) throw new TokenFileRefused(TOKEN_FILE_TOO_LARGE(shown));
  const token = trimSpace(content.toString('utf8'));
  if (!token) throw new TokenFileRefused(TOKEN_FILE_EMPTY(shown));
  return token;
}

/** The first `limit` bytes of `file` (all of it when shorter). */
async function readAtMost(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(limit);
    let filled = 0;
    while (filled < limit) {
      const { bytesRead } = await handle.read(buffer, filled, limit - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
