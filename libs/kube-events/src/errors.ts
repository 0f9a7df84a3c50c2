import { PUBLISH_TIMED_OUT } from './kube-events.messages.js';

/** What a {@link PublishError} may add to a standard `ErrorOptions`. */
export interface PublishErrorOptions extends ErrorOptions {
  /** The occurrence is still queued and will be written later: see {@link PublishError.queued}. */
  queued?: boolean;
}

/** Base of every error a publish rejects with. */
export class PublishError extends Error {
  /**
   * Whether the occurrence stays queued and will be written later (its
   * count is not lost), as after a timeout while the API server is slow or
   * unreachable. `false` when it was refused or dropped.
   */
  readonly queued: boolean;

  /** `options.queued` says whether the occurrence stays queued; `options.cause` what failed. */
  constructor(message: string, options?: PublishErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.queued = options?.queued ?? false;
  }
}

/**
 * The publish did not settle within the recorder's timeout. When
 * {@link PublishError.queued}, its occurrence stays queued and is written
 * later; the `cause` is the last failed write, if any.
 */
export class PublishTimeoutError extends PublishError {
  /** The message says how long the publish waited and whether its occurrence stays queued. */
  constructor(
    /** The recorder's timeout that passed, in milliseconds. */
    readonly timeoutMs: number,
    options?: PublishErrorOptions,
  ) {
    super(PUBLISH_TIMED_OUT(timeoutMs, options?.queued === true, options?.cause), options);
  }
}

/** The API server refused the Event, or could not be reached. */
export class PublishApiError extends PublishError {
  /** How long the server asked the client to wait before the next write (`Retry-After`), in milliseconds, at most `MAX_RETRY_AFTER_MS`. */
  readonly retryAfterMs?: number;
  /**
   * No answer could be read (the connection broke, or the body was cut),
   * so the server may have applied the write: the recorder checks before
   * writing again, and never writes it twice.
   */
  readonly mayHaveApplied: boolean;

  /** `statusCode` and `reason` from the server's answer, when there was one. */
  constructor(
    message: string,
    /** HTTP status code, absent when no answer came (connection refused, say). */
    readonly statusCode?: number,
    /** The `reason` of the server's Status, for instance `Forbidden` or `Invalid`. */
    readonly reason?: string,
    options?: PublishErrorOptions & {
      /** The server's `Retry-After`, in milliseconds. */
      retryAfterMs?: number;
      /** No answer could be read, so the server may have applied the write. */
      mayHaveApplied?: boolean;
    },
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
    this.mayHaveApplied = options?.mayHaveApplied ?? false;
  }
}

/**
 * The API server is unreachable: the last write got no answer at all. The
 * occurrence is queued ({@link PublishError.queued}) and written when the
 * server answers again; publishes made meanwhile reject at once with this.
 */
export class PublishUnreachableError extends PublishApiError {
  /** Always queued, without a status code. */
  constructor(
    message: string,
    /** Since when writes have found no server. */
    readonly since: Date,
    options?: PublishErrorOptions,
  ) {
    super(message, undefined, undefined, { ...options, queued: true });
  }
}

/** What became of a kubeconfig's exec credential plugin run, as a {@link PublishCredentialError} tells it. */
export interface CredentialPluginRun {
  /** The plugin's command, as the kubeconfig names it (its arguments are not kept: they may hold secrets). */
  readonly command: string;
  /** The exit code it ended with, when it ended by itself. */
  readonly exitCode?: number;
  /** The signal that ended it, when one did. */
  readonly signal?: string;
  /** Whether it was stopped because it did not finish in time. */
  readonly timedOut: boolean;
  /** Why it could not be started (`ENOENT`, `EACCES`), when it could not. */
  readonly startError?: string;
  /**
   * Set when it was stopped for printing more than a credential can take on
   * one of its streams (what it printed is dropped, never parsed).
   */
  readonly outputTooLarge?: {
    /** The stream it printed too much on. */
    readonly stream: 'stdout' | 'stderr';
    /** The bound it passed, in bytes. */
    readonly limitBytes: number;
  };
  /** How long it ran, in milliseconds. */
  readonly durationMs: number;
}

/**
 * No credentials for the API server could be had from the kubeconfig: its
 * exec credential plugin failed, did not finish in time or could not be
 * started, or another authentication (OIDC, a token file, a cloud
 * provider's) failed. No request was sent; the server was not found
 * unreachable. The message names the plugin's command and how it ended,
 * never what it printed, since a plugin's output often quotes a token.
 * Concurrent writes share one run of the plugin, so a failure reaches all
 * the writes that waited for it. The occurrence stays queued
 * ({@link PublishError.queued}); no write of the recorder tries the
 * credentials again for a backoff (0.5 s, doubling up to 10 s), and
 * publishes meanwhile reject at once with this.
 *
 * @example
 * catch (error) {
 *   if (error instanceof PublishCredentialError) logger.error(`fix the kubeconfig's credentials: ${error.message}`);
 * }
 */
export class PublishCredentialError extends PublishError {
  /** `message` names the authenticator and how it failed, never what it printed. */
  constructor(
    message: string,
    /** The exec plugin's run, when the credentials came from one. */
    readonly plugin?: CredentialPluginRun,
    options?: PublishErrorOptions,
  ) {
    super(message, options);
  }
}

/** The Event was refused before any request: it names the field at fault. */
export class InvalidEventError extends PublishError {
  /** `message` says what is wrong with `field`; `options.cause` is what reading it threw, if it did. */
  constructor(
    /** The offending field, for instance `reason` or `resource.kind`. */
    readonly field: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
