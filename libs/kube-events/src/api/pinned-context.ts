import type { KubeConfig } from '@kubernetes/client-node';
import { PublishCredentialError } from '../errors.js';
import { CONTEXT_GONE, CONTEXT_MOVED } from '../kube-events.messages.js';
import { truncateText } from '../event-rules/note-truncation.js';
import { TokenFileAuthenticator } from './token-file-authenticator.js';

/** The most of a context's name that a message shows, in UTF-8 bytes. */
const MAX_CONTEXT_NAME_BYTES = 256;

/** client-node's authenticators, private in its typings. */
interface Authenticators {
  authenticators?: unknown[];
}

/**
 * A KubeConfig held to the context that was current when it was pinned,
 * for good: what client-node reads through it (the cluster, the user, the
 * TLS material, the credentials) comes from that context, whatever the
 * current context of the KubeConfig becomes (`setCurrentContext`, a
 * `loadFromString` naming another one). The context's own material is
 * read as it is now: a token or certificate rotated in place, a kubeconfig
 * loaded again with the same context, are used.
 *
 * Its authenticators are its own, fresh: client-node's keep one cache per
 * KubeConfig across users (the token file's token, OIDC's expiry), which
 * would hand this context a token read for another one. A token file is
 * read by a {@link TokenFileAuthenticator} (bounded, trimmed, without
 * blocking), ahead of client-node's.
 */
export class PinnedContext {
  /** The KubeConfig as client-node's authentication reads it: this context current, its authenticators its own. */
  readonly kubeConfig: KubeConfig;
  /** The context's name, as it was current. */
  readonly name: string;
  /** Its cluster's server then: the one requests go to. */
  private readonly server: string | undefined;
  /** The authentication of a user whose token is in a file, which comes before client-node's own. */
  private readonly tokenFile = new TokenFileAuthenticator();

  constructor(kubeConfig: KubeConfig) {
    this.name = kubeConfig.getCurrentContext();
    this.server = serverOf(kubeConfig);
    const { authenticators } = kubeConfig as unknown as Authenticators;
    this.kubeConfig = Object.create(kubeConfig, {
      currentContext: { value: this.name },
      ...(Array.isArray(authenticators) && {
        authenticators: { value: [this.tokenFile, ...authenticators.map(ownAuthenticator)] },
      }),
    }) as KubeConfig;
  }

  /**
   * Throws a `PublishCredentialError` when the context can no longer be
   * used for the server it named: it is gone from the kubeconfig, or its
   * cluster now has another server (requests still go to the first one,
   * and the context's credentials may now be for the other).
   */
  assertUsable(): void {
    const shown = () => truncateText(this.name, MAX_CONTEXT_NAME_BYTES);
    if (!this.kubeConfig.getContextObject(this.name)) throw new PublishCredentialError(CONTEXT_GONE(shown()));
    if (serverOf(this.kubeConfig) !== this.server) throw new PublishCredentialError(CONTEXT_MOVED(shown()));
  }

  /**
   * Forgets a token read from a file at or before `time` (epoch ms: when
   * the refused request's credentials were made),
   * as client-go's `ResetTokenOlderThan`: one read since is kept.
   */
  forgetTokenReadBefore(time: number): void {
    this.tokenFile.forgetReadBefore(time);
  }

  /**
   * Forgets the credentials the context's authenticators cached, after
   * the API server refused them (401): the exec plugin is run again and the
   * token file read again at the next request, as client-go does, rather
   * than the refused token sent until it expires.
   */
  forgetCachedCredentials(): void {
    const { authenticators } = this.kubeConfig as unknown as Authenticators;
    for (const authenticator of authenticators ?? []) {
      const caching = authenticator as CachingAuthenticator;
      if (caching.tokenCache && typeof caching.tokenCache === 'object') {
        for (const user of Object.keys(caching.tokenCache)) caching.tokenCache[user] = null;
      }
      if ('lastRead' in caching) {
        caching.token = null;
        caching.lastRead = null;
      }
    }
  }
}

/** What client-node's built-in authenticators cache, private in its typings: the exec plugin's credentials by user, the token file's token. */
interface CachingAuthenticator {
  tokenCache?: Record<string, unknown>;
  token?: unknown;
  lastRead?: unknown;
}

/** The current cluster's server, without the trailing slashes requests leave out. */
function serverOf(kubeConfig: KubeConfig): string | undefined {
  return kubeConfig.getCurrentCluster()?.server.replace(/\/+$/, '');
}

/**
 * A fresh instance of one of client-node's built-in authenticators (each
 * made without arguments), so that its cache holds this context's
 * credentials only; one that cannot be made so is shared as it is.
 */
function ownAuthenticator(authenticator: unknown): unknown {
  const made = (authenticator as { constructor?: unknown } | null)?.constructor;
  if (typeof made !== 'function' || made === Object || made.length > 0) return authenticator;
  try {
    return new (made as new () => unknown)();
  } catch {
    return authenticator;
  }
}
