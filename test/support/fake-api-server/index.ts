/**
 * A scenario-driven fake kube-apiserver for `events.k8s.io/v1` Events, for the
 * tests a real control plane cannot script: a request that never gets an
 * answer, a 404 or 500 on exactly one request, a slow answer, a write that
 * was applied but whose answer was lost or cut short, an outage.
 *
 * It answers like kube-apiserver (create with `generateName`, JSON merge
 * patch, get, list, delete), validates like it (MicroTime decoding, the
 * strict `events.k8s.io/v1` create and update rules) and answers errors with
 * `Status` objects shaped like the real ones, so `@kubernetes/client-node`'s
 * `ApiException` carries them (as a JSON string in `body`).
 *
 * Every request is recorded, in order, so a test reads like kube-rs's mock
 * API server: script what the next requests get, run the code, then assert
 * on the sequence of requests.
 *
 * @example
 * const server = await FakeApiServer.start({ namespaces: ['default', 'ns-a'] });
 * const api = server.kubeConfig().makeApiClient(EventsV1Api);
 * server.failNext(500, 'PATCH').hangNext('POST');
 * // ... run the code under test ...
 * expect(server.verbs()).toEqual(['create', 'patch', 'create']);
 * expect(server.aborted).toBe(1);
 * expect(server.countHistory('ns-a', name)).toEqual([1, 2, 3]);
 * await server.close();
 *
 * Where it differs from kube-apiserver, on purpose or for brevity:
 * - PATCH accepts only `application/merge-patch+json`; any other patch type
 *   (the real server also takes JSON patch, strategic merge patch and apply)
 *   gets 415, so a client that forgot to select merge patch is caught.
 * - No authentication, authorization, watch, PUT, dryRun, managedFields,
 *   field selectors or event TTL (use {@link FakeApiServer.expireEvents}).
 * - Error messages follow the Go sources closely but not byte for byte
 *   (Go's `%#v` rendering of structs is approximated).
 * - An injected 429 is a `Status` (as `apierrors.NewTooManyRequests` gives);
 *   the real max-in-flight and priority-and-fairness filters answer theirs as
 *   `text/plain` "Too many requests, please try again later.". Both carry
 *   `Retry-After`.
 */
export { FakeApiServer, TLS_CERTIFICATE } from './fake-api-server.js';
export type * from './types.js';
