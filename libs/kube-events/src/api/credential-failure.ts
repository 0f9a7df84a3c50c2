import type { User } from '@kubernetes/client-node';
import { PublishCredentialError, PublishTimeoutError, type CredentialPluginRun } from '../errors.js';
import {
  AUTHENTICATION_FAILED,
  AUTHENTICATION_HUNG,
  CREDENTIAL_PLUGIN_ENDED,
  CREDENTIAL_PLUGIN_FAILED,
  CREDENTIAL_PLUGIN_NAMED,
  CREDENTIAL_PLUGIN_RUN,
  CREDENTIAL_PLUGIN_STILL_RUNNING,
} from '../kube-events.messages.js';
import { truncateText } from '../event-rules/note-truncation.js';
import { TokenFileRefused } from './token-file-authenticator.js';

/** The most of a plugin's command that a message shows, in UTF-8 bytes. */
const MAX_COMMAND_BYTES = 256;

/**
 * A failed authentication as a {@link PublishCredentialError}: for an exec
 * plugin, its command and how its run ended; for another authenticator,
 * its name and the error's code; for a token file, why it gave no token.
 * What the plugin printed, and the authenticator's own message, are left
 * out (and not kept as the cause): both often quote a refresh token or a
 * password.
 */
export function credentialFailure(
  error: unknown,
  user: User | null,
  run: CredentialPluginRun | undefined,
): PublishCredentialError {
  if (run)
    return new PublishCredentialError(
      CREDENTIAL_PLUGIN_ENDED(pluginNamed(run.command), CREDENTIAL_PLUGIN_RUN(run)),
      run,
    );
  // The library's own words, which name the file and never its content.
  if (error instanceof TokenFileRefused) return new PublishCredentialError(error.message);
  const exec = execOf(user);
  if (exec) {
    // No run was seen: client-node refused the plugin before starting it (no command, say), or started it some other way.
    return new PublishCredentialError(CREDENTIAL_PLUGIN_FAILED(pluginNamed(exec), codeOf(error)));
  }
  return new PublishCredentialError(AUTHENTICATION_FAILED(authenticatorName(user), codeOf(error)));
}

/** The auth-provider's name, bounded, when the user has one. */
function authenticatorName(user: User | null): string | undefined {
  const provider = user?.authProvider as { name?: unknown } | undefined;
  return typeof provider?.name === 'string' ? truncateText(provider.name, MAX_COMMAND_BYTES) : undefined;
}

/**
 * The recorder's timeout passed while a request waited for its credentials
 * from a plugin still running: the timeout says so, naming the plugin,
 * rather than call it an aborted request.
 */
export function timedOutWaitingFor(run: CredentialPluginRun, timeout: PublishTimeoutError): PublishTimeoutError {
  const waited = new PublishCredentialError(
    CREDENTIAL_PLUGIN_STILL_RUNNING(pluginNamed(run.command), run.durationMs),
    run,
  );
  return new PublishTimeoutError(timeout.timeoutMs, { cause: waited });
}

/**
 * An authentication that did not finish within the request's timeout,
 * with no plugin running: the authenticator hung (one added with
 * `addAuthenticator`, an auth-provider waiting on a server).
 */
export function authenticationHung(user: User | null, timeoutMs: number): PublishCredentialError {
  return new PublishCredentialError(AUTHENTICATION_HUNG(authenticatorName(user), timeoutMs));
}

function pluginNamed(command: string): string {
  return CREDENTIAL_PLUGIN_NAMED(truncateText(command, MAX_COMMAND_BYTES));
}

function execOf(user: User | null): string | undefined {
  const exec = (user?.exec ?? (user?.authProvider as { config?: { exec?: unknown } } | undefined)?.config?.exec) as
    { command?: unknown } | undefined;
  if (!exec) return undefined;
  return typeof exec.command === 'string' && exec.command ? exec.command : '(no command)';
}

/** A Node error's code, or the error's class: never its message. Read by shape: errors may come from another realm. */
function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
  return typeof name === 'string' && /^\w{1,40}$/.test(name) ? name : 'Error';
}
