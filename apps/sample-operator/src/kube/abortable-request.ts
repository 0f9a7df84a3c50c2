import {
  Observable,
  type ConfigurationOptions,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { addSignal } from './bounded-api-client.js';

/**
 * Request options for a `@kubernetes/client-node` 2.x API call that
 * `signal` aborts: a middleware hands the signal to the request, which
 * client-node's fetch passes on, so that an abort closes the request in
 * flight and the call rejects. The client's own bound (see
 * `boundedApiClient`) still applies. Adds to `options` (e.g. those of
 * `setHeaderOptions`); without a signal, returns `options` as they are.
 *
 * @example
 * await core.createNamespacedConfigMap({ namespace, body }, abortable(signal));
 */
export function abortable(
  signal: AbortSignal | undefined,
  options?: ConfigurationOptions,
): ConfigurationOptions | undefined {
  if (!signal) return options;
  return {
    ...options,
    middleware: [
      ...(options?.middleware ?? []),
      {
        pre: (request: RequestContext) => {
          addSignal(request, signal);
          return new Observable(Promise.resolve(request));
        },
        post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
      },
    ],
    // Keep the client's own middleware (authentication, the timeout) and add this one.
    middlewareMergeStrategy: 'append',
  };
}
