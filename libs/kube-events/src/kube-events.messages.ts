import { MAX_FIELD_LENGTH } from './kube-events.constants.js';

export const REQUIRED_FIELD = (field: string) => `${field} is required and must be a non-empty string.`;
export const FIELD_TOO_LONG = (field: string, bytes: number) =>
  `${field} must be at most ${MAX_FIELD_LENGTH} bytes (UTF-8), got ${bytes}.`;
export const INVALID_EVENT_TYPE = (type: unknown) => `type must be 'Normal' or 'Warning', got ${JSON.stringify(type)}.`;
export const INVALID_NOTE = (note: unknown) => `note must be a string when given, got ${typeof note}.`;
export const MISSING_RESOURCE = () => 'resource is required: the object the Event is about.';
export const MISSING_RESOURCE_TYPE = (field: 'apiVersion' | 'kind', name?: string) =>
  `resource.${field} is missing${name ? ` on ${JSON.stringify(name)}` : ''}: \`kubectl describe\` finds Events by kind, ` +
  `so this Event would never be shown. List items and informer objects often lack it; ` +
  `set it on the object, or pass { apiVersion, kind } to @PublishesFailures.`;
export const NOT_A_QUALIFIED_NAME = (field: string, value: unknown) =>
  `${field} must be a qualified name ([dns-subdomain/]name, name ≤ 63 characters of [A-Za-z0-9_.-] ` +
  `starting and ending alphanumeric), got ${JSON.stringify(value)}.`;
export const NOT_A_POSITIVE_NUMBER = (field: string, value: unknown) =>
  `${field} must be a positive number, got ${JSON.stringify(value)}.`;
export const NOT_A_POSITIVE_INTEGER = (field: string, value: unknown) =>
  `${field} must be a positive integer, got ${JSON.stringify(value)}.`;
export const INVALID_OPTIONS = (field: string, problem: string) => `KubeEventsModule: invalid option ${field}: ${problem}`;
export const UNKNOWN_RECORDER = (name: string, method: string) =>
  `@PublishesFailures on ${method} names the recorder ${JSON.stringify(name)}, but no ` +
  `KubeEventsModule.forRoot({ name: ${JSON.stringify(name)} }) is imported.`;
export const NO_DEFAULT_RECORDER = (method: string) =>
  `@PublishesFailures on ${method} uses the default recorder, but only named recorders are registered: ` +
  `import KubeEventsModule.forRoot without a name, or pass { recorder: '<name>' }.`;
export const REQUEST_SCOPED_SKIPPED = (provider: string) =>
  `@PublishesFailures is ignored on request-scoped provider ${provider}: its instances are created per request.`;
export const FAILURE_NOT_PUBLISHED = (method: string) => `Could not publish the failure of ${method} as an Event`;
export const NO_RESOURCE_ARGUMENT = (method: string) =>
  `@PublishesFailures on ${method}: the reconciled object is not an object with metadata; no Event was published.`;
export const OCCURRENCES_DROPPED = (
  count: number,
  resource: { kind?: string; metadata?: { namespace?: string; name?: string } },
  event: { reason: string },
  error?: unknown,
) =>
  `Dropped ${count} occurrence(s) of ${event.reason} about ${resource.kind ?? 'object'} ` +
  `${[resource.metadata?.namespace, resource.metadata?.name].filter(Boolean).join('/')}: ` +
  (error === undefined
    ? 'too many occurrences are waiting to be written (writeControl.maxPending).'
    : `their write kept failing (${error instanceof Error ? error.message : String(error)}).`);
export const SINK_FAILED = (sink: string, error: unknown, failures: number) =>
  `Sink ${sink} failed to handle an outcome (${failures} failure(s) so far): ` +
  `${error instanceof Error ? error.stack ?? error.message : String(error)}`;
export const SINK_OVERLOADED = (sink: string, maxInFlight: number, dropped: number) =>
  `Sink ${sink} has ${maxInFlight} handle() calls unsettled; outcomes past that are not given to it ` +
  `(${dropped} missed so far). Publishing is not affected.`;
export const NOT_A_SINK = (provider: string) =>
  `@KubeEventsSink on ${provider}: the provider has no handle(outcome) method; implement EventSink.`;
export const UNKNOWN_SINK_RECORDER = (sink: string, name: string | undefined) =>
  name === undefined
    ? `@KubeEventsSink on ${sink} uses the default recorder, but none is registered: import ` +
      `KubeEventsModule.forRoot without a name, or pass { recorder: '<name>' }.`
    : `@KubeEventsSink on ${sink} names the recorder ${JSON.stringify(name)}, but no ` +
      `KubeEventsModule.forRoot({ name: ${JSON.stringify(name)} }) is imported.`;
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
  'An Event matches all but its count: if the publishes were concurrent, `await recorder.flush()` first, ' +
  'so that occurrences folded into the next write are written.';
export const DUPLICATE_RECORDER = (name: string | null) =>
  `Two recorders are registered as ${name === null ? 'the default recorder' : JSON.stringify(name)}: ` +
  `give each KubeEventsModule.forRoot (or KubeEventsTestingModule.forRoot) its own name.`;
