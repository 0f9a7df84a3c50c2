import { MAX_FIELD_LENGTH, MINIMUM_NODE } from './kube-events.constants.js';
import type { DropCause, KubeConfigSearch } from './kube-events.interfaces.js';
import {
  QUOTED_INPUT_MAX,
  describeValue,
  errorMessage,
  errorStack,
  excerpt,
  quoted,
  quotedInput,
} from './text/describe-value.js';

export const REQUIRED_FIELD = (field: string) => `${field} is required and must be a non-empty string.`;
export const FIELD_TOO_LONG = (field: string, bytes: number) =>
  `${field} must be at most ${MAX_FIELD_LENGTH} bytes (UTF-8), got ${bytes}.`;
export const INVALID_EVENT_TYPE = (type: unknown) => `type must be 'Normal' or 'Warning', got ${describeValue(type)}.`;
export const INVALID_NOTE = (note: unknown) => `note must be a string when given, got ${typeof note}.`;
export const MISSING_RESOURCE = () => 'resource is required: the object the Event is about.';
export const NOT_AN_OBJECT = (field: string, shape: string, value: unknown) =>
  `${field} must be an object ${shape}, got ${describeValue(value)}.`;
export const NOT_A_STRING = (field: string, value: unknown) =>
  `${field} must be a string when given, got ${describeValue(value)}.`;
export const NOT_A_DNS_LABEL = (field: string, value: string) =>
  `${field} must be a DNS label, as namespace names are (at most 63 characters of a-z, 0-9 and '-', ` +
  `starting and ending with a letter or digit), got ${describeValue(value)}.`;
export const UNREADABLE_FIELD = (field: string, error: unknown) =>
  `${field} could not be read: ${error instanceof Error ? excerpt(error.message) : describeValue(error)}.`;
export const UNKNOWN_REFERENCE_FIELD = (key: string) =>
  `related has a field ${describeValue(key)} that an object reference does not have: it may only have ` +
  `apiVersion, kind, name, namespace, uid, resourceVersion and fieldPath, all strings.`;
export const NOT_AN_ANNOTATION_KEY = (field: string, key: string) =>
  `${field}: the key ${describeValue(key)} is not a qualified name, which the API server requires of annotation keys ` +
  `([dns-subdomain/]name, name ≤ 63 characters of [A-Za-z0-9_.-] starting and ending alphanumeric, ` +
  `e.g. "example.com/trace-id").`;
export const NOT_A_LABEL_KEY = (field: string, key: string) =>
  `${field}: the key ${describeValue(key)} is not a qualified name, which the API server requires of label keys ` +
  `([dns-subdomain/]name: a prefix of at most 253 characters, name ≤ 63 characters of [A-Za-z0-9_.-] starting and ` +
  `ending alphanumeric, case kept, e.g. "app.kubernetes.io/part-of").`;
export const LABEL_VALUE_INVALID = (field: string, value: unknown) =>
  `${field} must be a label value (a string of at most 63 characters of [A-Za-z0-9_.-], starting and ending ` +
  `alphanumeric, or empty), got ${describeValue(value)}.`;
export const ANNOTATION_NOT_A_STRING = (field: string, value: unknown) =>
  `${field} must be a string (annotation values are strings), got ${describeValue(value)}.`;
export const ANNOTATIONS_TOO_LARGE = (bytes: number, limit: number, reserved: number) =>
  `annotations must total at most ${limit} bytes of keys and values, in UTF-8 (the API server's 256 KiB, less ` +
  `${reserved} kept for the recorder's own), got ${bytes}.`;
export const MISSING_RESOURCE_TYPE = (field: 'apiVersion' | 'kind', name?: string) =>
  `resource.${field} is missing${name ? ` on ${describeValue(name)}` : ''}: \`kubectl describe\` finds Events by kind, ` +
  `so this Event would never be shown. List items and informer objects often lack it; ` +
  `set it on the object, or pass { apiVersion, kind } to @PublishesFailures.`;
export const NOT_A_QUALIFIED_NAME = (field: string, value: unknown) =>
  `${field} must be a qualified name ([dns-subdomain/]name, name ≤ 63 characters of [A-Za-z0-9_.-] ` +
  `starting and ending alphanumeric), got ${describeValue(value)}.`;
export const NOT_A_POSITIVE_NUMBER = (field: string, value: unknown) =>
  `${field} must be a positive number, got ${describeValue(value)}.`;
export const NOT_A_SIMILAR_EVENTS_LIMIT = (value: unknown) =>
  `combineSimilarEvents must be false or an integer of at least 2, got ${describeValue(value)}.`;
export const NOT_A_CLUSTER_SCOPED_NAMESPACE = (value: unknown, allowed: readonly string[]) =>
  `clusterScopedNamespace must be ${allowed.map((namespace) => `'${namespace}'`).join(' or ')}, got ${describeValue(value)}: ` +
  `the API server creates an Event about a cluster-scoped object in no other namespace (it answers 422, ` +
  `"involvedObject.namespace: does not match event.namespace").`;
export const NOT_A_NOTE_REDACTOR = (value: unknown) =>
  `redactNotes must be true, false or a function (note: string) => string, got ${describeValue(value)}.`;
export const NOTE_REDACTOR_RETURNED = (value: unknown) =>
  `redactNotes must return a string, got ${describeValue(value)}.`;
export const NOT_A_BOOLEAN = (field: string, value: unknown) =>
  `${field} must be true or false, got ${describeValue(value)}.`;
export const NOT_A_POSITIVE_INTEGER = (field: string, value: unknown) =>
  `${field} must be a positive integer, got ${describeValue(value)}.`;
export const NOT_A_CLOCK = (value: unknown) =>
  `clock must be a KubeEventsClock (now, setTimer, clearTimer and sleep), as FakeClock from nestjs-kube-events/testing is, got ${describeValue(value)}.`;
export const NOT_A_KUBE_CONFIG = (value: unknown) =>
  `kubeConfig must be a KubeConfig from @kubernetes/client-node (loaded, with a current context), got ${describeValue(value)}.`;
export const NOT_A_RECORDER_NAME = (value: unknown) =>
  `name must be a non-empty string when given, got ${describeValue(value)}.`;
export const TRACE_CONTEXT_NOT_AN_OPTION = (value: unknown) =>
  `traceContext must be true, false or { prefix }, got ${describeValue(value)}.`;
export const NOT_AN_ANNOTATION_PREFIX = (field: string, value: unknown) =>
  `${field} must be a DNS subdomain of at most 253 characters (lower case letters, digits, '-' and '.'), as an annotation key's prefix, got ${describeValue(value)}.`;
export const LOG_RECORDS_NEED_API_LOGS =
  'KubeEventsModule: invalid option logRecords: it emits OpenTelemetry log records through @opentelemetry/api-logs, which is not installed: install it, or leave logRecords off.';
export const INVALID_OPTIONS = (field: string, problem: string) =>
  `KubeEventsModule: invalid option ${field}: ${problem}`;
export const UNKNOWN_RECORDER = (name: string, method: string, decorator = '@PublishesFailures') =>
  `${decorator} on ${method} names the recorder ${quotedInput(name)}, but no ` +
  `KubeEventsModule.forRoot({ name: ${quotedInput(name)} }) is imported.`;
export const NO_DEFAULT_RECORDER = (method: string, decorator = '@PublishesFailures') =>
  `${decorator} on ${method} uses the default recorder, but only named recorders are registered: ` +
  `import KubeEventsModule.forRoot without a name, or pass { recorder: '<name>' }.`;
export const REQUEST_SCOPED_SKIPPED = (provider: string, decorator = '@PublishesFailures') =>
  `${decorator} is ignored on request-scoped provider ${provider}: its instances are created per request.`;
export const FAILURE_NOT_PUBLISHED = (method: string) => `Could not publish the failure of ${method} as an Event`;
export const RECOVERY_NOT_PUBLISHED = (method: string) => `Could not publish the recovery of ${method} as an Event`;
export const RECOVERED_NOTE = (failures: number, over: string) =>
  `Recovered after ${failures} ${failures === 1 ? 'failure' : 'failures'} over ${over}`;
export const INVALID_RECOVERY_OPTION = (method: string, problem: string) =>
  `@PublishesFailures on ${method}: invalid option recovery: ${problem}`;
export const NO_RESOURCE_ARGUMENT = (method: string) =>
  `@PublishesFailures on ${method}: the reconciled object is not an object with metadata; no Event was published.`;
const DROP_CAUSES: Record<DropCause, string> = {
  full: 'too many occurrences are waiting to be written (writeControl.maxPending)',
  'full-bytes': 'the occurrences waiting to be written hold too many bytes (writeControl.maxPendingBytes)',
  evicted: 'their series holds 8 distinct events waiting to be written, and this was the oldest',
  expired: 'their write kept failing for longer than the series window',
  flush: 'flush() ran out of time before they could be written',
  refused: 'the API server refused their write for good after it had been queued for a retry',
};
export const OCCURRENCES_DROPPED = (
  count: number,
  resource: { kind?: string; metadata?: { namespace?: string; name?: string } },
  event: { reason: string },
  cause: DropCause,
  error?: unknown,
) =>
  `Dropped ${count} occurrence(s) of ${event.reason} about ${excerpt(resource.kind ?? 'object')} ` +
  `${excerpt([resource.metadata?.namespace, resource.metadata?.name].filter(Boolean).join('/'))}: ${DROP_CAUSES[cause]}` +
  (error === undefined ? '.' : ` (last error: ${errorMessage(error)}).`);
export const RECORDER_CLOSED = 'the Event recorder has shut down';
export const RECORDER_SHUT_DOWN = (
  resource: { kind?: string; metadata?: { namespace?: string; name?: string } },
  event: { reason: string },
) =>
  `Not published: ${event.reason} about ${excerpt(resource.kind ?? 'object')} ` +
  `${excerpt([resource.metadata?.namespace, resource.metadata?.name].filter(Boolean).join('/'))}: the Event recorder has shut down.`;
export const SERIES_END_NOT_RECORDED = (namespace: string, name: string, error: unknown) =>
  `Could not mark Event ${namespace}/${name} as ended (${errorMessage(error)}): ` +
  'a process that starts within the series window may continue its count.';
export const EVENT_PASSED_OVER = (namespace: string, name: string, why: string, next: string) =>
  `Event ${namespace}/${name} is not one this series may continue (${why}): it is left as it is, ` +
  `and the series writes its occurrences to Event ${namespace}/${next} instead.`;
export const SERIES_LOOKUP_REFUSED = (error: Error) =>
  `resumeSeries: the API server refused to list Events (${errorMessage(error)}); series start new Events, as without resumeSeries, ` +
  "until the recorder's ServiceAccount may list events.events.k8s.io.";
export const SERVER_UNREACHABLE = (since: Date, detail: string) =>
  `The API server has been unreachable since ${since.toISOString()} (${detail}); ` +
  'the occurrence is queued and will be written when the server answers again.';
export const SINK_FAILED = (sink: string, error: unknown, failures: number) =>
  `Sink ${sink} failed to handle an outcome (${failures} failure(s) so far): ` + errorStack(error);
export const SINK_OVERLOADED = (sink: string, maxInFlight: number, dropped: number) =>
  `Sink ${sink} has ${maxInFlight} handle() calls unsettled; outcomes past that are not given to it ` +
  `(${dropped} missed so far). Publishing is not affected.`;
export const NOT_A_SINK = (provider: string) =>
  `@KubeEventsSink on ${provider}: the provider has no handle(outcome) method; implement EventSink.`;
export const UNKNOWN_SINK_RECORDER = (sink: string, name: string | undefined) =>
  name === undefined
    ? `@KubeEventsSink on ${sink} uses the default recorder, but none is registered: import ` +
      `KubeEventsModule.forRoot without a name, or pass { recorder: '<name>' }.`
    : `@KubeEventsSink on ${sink} names the recorder ${quotedInput(name)}, but no ` +
      `KubeEventsModule.forRoot({ name: ${quotedInput(name)} }) is imported.`;
export const REQUEST_SCOPED_SINK_SKIPPED = (provider: string) =>
  `@KubeEventsSink is ignored on request-scoped provider ${provider}: a sink must live as long as its recorder.`;
export const NO_MATCHING_EVENT = (expected: string, recorded: readonly string[], hint?: string) =>
  `Expected an Event matching ${expected}, but ` +
  (recorded.length
    ? `none of the ${recorded.length} recorded Event(s) matches:\n${recorded.map((line) => `  - ${line}`).join('\n')}`
    : 'no Event was recorded.') +
  (hint ? `\n${hint}` : '');
export const UNEXPECTED_EVENT = (expected: string, found: string) =>
  `Expected no Event matching ${expected}, but one was recorded: ${found}`;
export const LOWER_COUNT_HINT =
  'An Event matches all but its count: if a publish is still running (the failure of a synchronous ' +
  '@PublishesFailures method is published in the background), `await recorder.flush()` first.';
export const DUPLICATE_RECORDER = (name: string | null) =>
  `Two recorders are registered as ${name === null ? 'the default recorder' : quotedInput(name)}. ` +
  `If one controller's KubeEventsModule.forRoot is imported in several feature modules, import it once, in the root ` +
  `module, with isGlobal: true: feature modules then inject the recorder without importing the module. If they are ` +
  `different controllers, give each KubeEventsModule.forRoot (or KubeEventsTestingModule.forRoot) its own name.`;
export const REPORTER_NOT_AN_OBJECT = (value: unknown) =>
  typeof value === 'string'
    ? `reporter must be an object { controller, instance? }, got the string ${describeValue(value)}: ` +
      `write reporter: { controller: ${quoted(value.length > QUOTED_INPUT_MAX ? '<controller name>' : value)} }.`
    : `reporter is required: an object { controller, instance? }, got ${describeValue(value)}; ` +
      `for example reporter: { controller: 'example.com/widget-controller', instance: process.env.POD_NAME }.`;
export const DEFAULT_INSTANCE_TOO_LONG = (bytes: number) =>
  `reporter.instance defaults to reporter.controller, which is ${bytes} bytes (UTF-8), more than the ${MAX_FIELD_LENGTH} ` +
  `the API server takes for reportingInstance: pass a shorter reporter.instance, such as the pod name.`;
export const INSTANCE_NOT_A_STRING = (value: unknown) =>
  `reporter.instance is optional, but must be a string when given, got ${describeValue(value)}: ` +
  `pass the pod name, or leave it out to use reporter.controller.`;
export const NO_KUBECONFIG = (search: KubeConfigSearch) =>
  `No kubeconfig found: looked in ${search.serviceAccountToken} (in-cluster service account, ` +
  `$KUBERNETES_SERVICE_HOST ${search.serviceHostSet ? 'set' : 'unset'}), ` +
  `$KUBECONFIG (${search.kubeconfigEnv === undefined ? 'unset' : search.kubeconfigEnv === '' ? 'empty' : `${quotedInput(search.kubeconfigEnv)}: no kubeconfig file there`}), ` +
  `${search.homeConfig ?? '~/.kube/config ($HOME unset)'}${search.kubeconfigEnv ? ' (not read while $KUBECONFIG is set)' : ''}; ` +
  `pass kubeConfig to KubeEventsModule.forRoot, or set $KUBECONFIG to a kubeconfig file, or run in a pod ` +
  `with its service account token mounted. Without one, client-node would send every Event to http://localhost:8080.`;
export const PUBLISHES_FAILURES_INACTIVE = (method: string) =>
  `@PublishesFailures on ${method} is not active: its failures are not published. Import ` +
  `KubeEventsModule.forRoot(…) (or KubeEventsTestingModule.forRoot() in tests) in the application, let Nest create ` +
  `the provider, and call app.init() in tests: the module connects decorated methods to their recorder when the application initialises.`;
export const NO_UID_HINT =
  'Events match all but their count, and the object has no metadata.uid: a series is keyed by the uid, so every ' +
  'repeat about an object without one starts a new Event at count 1. Give the object a uid, as objects read from the API server have.';
export const NOT_INITIALISED_HINT =
  'The application was not initialised: call `await app.init()` (explorers connect @PublishesFailures methods to their recorder ' +
  'and subscribe @KubeEventsSink providers on init).';
export const UNSUPPORTED_NODE = (version: string) =>
  `nestjs-kube-events needs Node.js ${MINIMUM_NODE} or newer (this is ${version}): @kubernetes/client-node 2.x and ` +
  `undici 8 do not load on older versions. Upgrade Node.js (for example \`nvm install 22\`, or a node:22 or ` +
  `node:24 base image); npm's EBADENGINE warning said the same.`;
export const NO_CURRENT_CLUSTER = () => 'The KubeConfig has no current cluster: set its current context.';
export const EVENT_REFUSED = (status: number, message: string) =>
  `The API server refused the Event (${status}): ${message}`;
export const ANSWER_NOT_JSON = (contentType: string, bytes: number) =>
  `its body (${contentType}, ${bytes} bytes) is not JSON`;
export const ANSWER_UNREADABLE = (status: number, detail: string) =>
  `The API server answered ${status} but its answer could not be read (${detail}); the write may have been applied.`;
export const ANSWER_HEADERS_TOO_LONG = (limitKib: number) =>
  `The API server answered, but its answer could not be read (its headers are longer than the ${limitKib} KiB ` +
  'the recorder reads); the write may have been applied.';
export const SERVER_NOT_REACHED = (detail: string) => `The API server could not be reached: ${detail}`;
export const EVENT_REDIRECTED = (status: number, location: string) =>
  `The API server answered ${status}, a redirect (to ${location}), which is not followed: the Event was not written. ` +
  `A proxy in front of the API server may want a login, or the kubeconfig's server address is not the API server's.`;
export const ANSWER_NOT_AN_EVENT = (why: string) => `it is not the Event written: ${why}`;
export const FIELD_OVER_BOUND = (field: string, length: number, limit: number) =>
  `its ${field} is ${length} characters long, more than the ${limit} the recorder keeps`;
export const PUBLISH_TIMED_OUT = (timeoutMs: number, queued: boolean, lastError: unknown) =>
  `Publishing the Event did not finish within ${timeoutMs} ms` +
  (queued
    ? `; the occurrence stays queued and will be written when the API server answers` +
      (lastError instanceof Error ? ` (last write: ${errorMessage(lastError)})` : '') +
      '.'
    : lastError instanceof Error
      ? `: ${errorMessage(lastError)}`
      : '; the request was aborted.');
export const SINK_MAX_IN_FLIGHT_INVALID = (sink: string, problem: string) => `@KubeEventsSink on ${sink}: ${problem}`;
export const RECONCILED_OBJECT_NOT_FOUND = (method: string, error: string) =>
  `${method}: could not find the reconciled object: ${error}`;
export const EVENT_KEPT_CHANGING = (writes: number) =>
  `The Event kept changing under the recorder's writes (${writes} tries).`;
export const MAX_BYTES_TOO_SMALL = (minimum: number, got: number) =>
  `describeError: maxBytes must be an integer of at least ${minimum}, got ${got}.`;
export const CREDENTIAL_PLUGIN_ENDED = (plugin: string, ended: string) => `${plugin} ${ended}.`;
export const CREDENTIAL_PLUGIN_FAILED = (plugin: string, code: string) =>
  `${plugin} failed (${code}); its output is not shown, as it may hold credentials.`;
export const AUTHENTICATION_FAILED = (authenticator: string | undefined, code: string) =>
  `The kubeconfig's ${authenticator === undefined ? '' : `${authenticator} `}authentication failed (${code}); ` +
  'its message is not shown, as it may hold credentials.';
export const AUTH_PROVIDER_REMOVED = (name: 'gcp' | 'azure') =>
  `The kubeconfig's user authenticates with the ${name} auth-provider, which Kubernetes removed in 1.26 and this ` +
  'library refuses: it runs its cmd-path synchronously, blocking every request and timer for as long as the ' +
  `command runs. Use an exec credential plugin instead (${name === 'gcp' ? 'gke-gcloud-auth-plugin' : 'kubelogin'}).`;
export const OIDC_PROVIDER_UNSUPPORTED =
  "The kubeconfig's user authenticates with the oidc auth-provider, whose token refresh fails in " +
  '@kubernetes/client-node 2.x before it reaches the identity provider, so Events would stop when the id-token ' +
  'expires. Use an exec credential plugin instead (kubelogin: kubectl oidc-login get-token).';
export const CA_WITH_INSECURE_SKIP_TLS_VERIFY =
  "The kubeconfig's cluster gives a CA (certificate-authority or certificate-authority-data) together with " +
  'insecure-skip-tls-verify: true, which client-go refuses as well: remove one of the two.';
export const NODE_TLS_REJECT_UNAUTHORIZED_IGNORED =
  'NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and ignored for the API server: the kubeconfig decides whether its ' +
  'certificate is verified (insecure-skip-tls-verify), as in client-go.';
/** client-node's own words for a plain-HTTP server without skipTLSVerify, kept for the same refusal through a proxy. */
export const PLAIN_HTTP_REFUSED = 'HTTP protocol is not allowed when skipTLSVerify is not set or false';
export const AUTHENTICATION_HUNG = (authenticator: string | undefined, timeoutMs: number) =>
  `The kubeconfig's ${authenticator === undefined ? '' : `${authenticator} `}authentication did not finish within ` +
  `${timeoutMs} ms; it is given up and tried again on the credentials' backoff.`;
export const CREDENTIAL_PLUGIN_STILL_RUNNING = (plugin: string, runningMs: number) =>
  `${plugin} was still running (for ${Math.round(runningMs)} ms), so no request was sent.`;
export const CREDENTIAL_PLUGIN_NAMED = (command: string) => `The kubeconfig's exec credential plugin \`${command}\``;
export const CONTEXT_GONE = (context: string) =>
  `The kubeconfig no longer has the context \`${context}\` the recorder was built with, so no request was sent; ` +
  'a recorder keeps its context for its whole life: build a new one to use another.';
export const CONTEXT_MOVED = (context: string) =>
  `The kubeconfig's context \`${context}\` now names another server than when the recorder was built, so no ` +
  'request was sent; a recorder keeps its server for its whole life: build a new one to follow the context.';
/** How a credential plugin's run ended, for {@link CREDENTIAL_PLUGIN_ENDED}. */
export const CREDENTIAL_PLUGIN_RUN = (run: {
  startError?: string;
  outputTooLarge?: { stream: string; limitBytes: number };
  timedOut: boolean;
  durationMs: number;
  signal?: string;
  exitCode?: number;
}) => {
  if (run.startError) return `could not be started (${run.startError})`;
  if (run.outputTooLarge)
    return `printed more than ${run.outputTooLarge.limitBytes / 1024 / 1024} MiB on ${run.outputTooLarge.stream} and was stopped`;
  if (run.timedOut) return `timed out and was stopped after ${Math.round(run.durationMs)} ms`;
  if (run.signal) return `was ended by ${run.signal}`;
  if (run.exitCode !== undefined && run.exitCode !== 0) return `failed with exit code ${run.exitCode}`;
  return 'printed no credential that could be read (a client.authentication.k8s.io ExecCredential)';
};
export const TOKEN_FILE_TOO_LARGE = (file: string) =>
  `The kubeconfig's token file ${JSON.stringify(file)} holds more than 1 MiB, more than the API server accepts in ` +
  "a request's headers, so no request was sent; it was not read further.";
export const TOKEN_FILE_EMPTY = (file: string) =>
  `The kubeconfig's token file ${JSON.stringify(file)} holds no token (it is empty, or white space only), so no ` +
  'request was sent.';
export const CREDENTIAL_HEADER_INVALID = (header: string) =>
  `The kubeconfig's credentials make an invalid ${JSON.stringify(header)} header (a character HTTP does not allow ` +
  'in a header, such as a line break inside the token), so no request was sent; its value is not shown.';
export const CREDENTIAL_HEADERS_TOO_LARGE = (bytes: number, limit: number) =>
  `The kubeconfig's credentials make ${bytes} bytes of headers, more than the ${limit} the API server accepts, ` +
  'so no request was sent.';
export const PROXY_NOT_A_URL = (variable: string) =>
  `${variable} from the environment is not a URL (its value is not shown, as it may hold a password), so no ` +
  'request was sent.';
export const NOT_A_PERMISSION_CHECK = (value: unknown) =>
  `permissionCheck must be 'warn', 'fail' or 'off', got ${describeValue(value)}.`;
/** Where the package's manifests are, as an application that installed it names them. */
const SHIPPED_RBAC = 'node_modules/nestjs-kube-events/rbac';
export const EVENTS_PERMISSION_MISSING = (
  controller: string,
  identity: string | undefined,
  verbs: readonly string[],
  namespace: string,
  clusterWide: boolean,
) => {
  const written = verbs.some((verb) => verb !== 'list');
  const grant = written ? ` Grant ${SHIPPED_RBAC}/role.yaml there` : '';
  const list = verbs.includes('list') ? `${written ? ',' : ''} add list for resumeSeries` : '';
  return (
    // The identity comes from the server's SelfSubjectReview: escaped and bounded, as all text from outside.
    `Events of ${controller} cannot all be written: ${identity === undefined ? 'it' : excerpt(identity)} may not ${verbs.join(', ')} events in API group ` +
    `events.k8s.io in namespace ${JSON.stringify(namespace)}${clusterWide ? ' (nor cluster-wide)' : ''}.${grant}${list} ` +
    `(docs/operations.md#rbac).`
  );
};
export const EVENTS_PERMISSION_UNKNOWN = (controller: string, where: string, why: string) =>
  `The permissions of ${controller} on events of events.k8s.io could not be checked ${where} (${why}); ` +
  'publishing goes on, and a write the API server refuses is reported as usual.';
export const EVENTS_PERMISSION_GRANTED = (controller: string, namespace: string) =>
  `${controller} may now write events of events.k8s.io in namespace ${JSON.stringify(namespace)}.`;
export const NO_RECORDER_HEALTH = (name: string | undefined) =>
  `KubeEventsHealthIndicator: no ${name === undefined ? 'default recorder' : `recorder named ${JSON.stringify(name)}`} ` +
  `is registered: import KubeEventsModule.forRoot(${name === undefined ? '…' : `{ name: ${JSON.stringify(name)}, … }`}) ` +
  'in the application, or KubeEventsTestingModule.forRoot() in a test.';
export const INVALID_CATALOG_ENTRY = (name: string, problem: string) =>
  `defineEventCatalog: entry ${excerpt(name)}: ${problem}.`;
export const NOT_CONDITION_TYPES = (value: unknown) =>
  `abnormalTrue must be a list of condition types, got ${describeValue(value)}.`;
export const NOT_DECLARED_CONDITION_EVENTS = (value: unknown) =>
  `events must list the condition entries of an Event catalog (defineEventCatalog({ ready: { condition: 'Ready', … } }).ready), got ${describeValue(value)}.`;
export const PUBLISHES_CONDITION_CHANGES_INACTIVE = (method: string) =>
  `@PublishesConditionChanges on ${method} is not active: the changes of conditions it writes are not published. Import ` +
  `KubeEventsModule.forRoot(…) (or KubeEventsTestingModule.forRoot() in tests) in the application, let Nest create ` +
  `the provider, and call app.init() in tests: the module connects decorated methods to their recorder when the application initialises.`;
export const CONDITION_CHANGES_NOT_PUBLISHED = (method: string) =>
  `Could not publish the changes of conditions ${method} wrote as Events`;
export const NO_WRITTEN_OBJECT = (method: string) =>
  `@PublishesConditionChanges on ${method}: the method resolved with no object (with metadata), so no change of its conditions is published; ` +
  `resolve with the object as the server wrote it, or use the written option.`;
export const NO_READ_OBJECT = (method: string) =>
  `@PublishesConditionChanges on ${method}: the object as read is not an object with metadata, so the conditions before ` +
  `the write are unknown; no change of its conditions is published.`;
export const CATALOG_EVENT_NOT_A_WARNING = (reason: string) =>
  `@PublishesFailures: event ${reason} is a Normal Event; a failed reconcile publishes a Warning.`;
export const CATALOG_EVENT_AND_FIELDS = (reason: string, fields: readonly string[]) =>
  `@PublishesFailures: event ${reason} gives the reason, action and note; ${fields.join(', ')} cannot be given too.`;
