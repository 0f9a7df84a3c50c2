/**
 * Kubernetes `events.k8s.io/v1` Events for NestJS controllers: an
 * {@link EventRecorder} that folds repeats into series, bounds every publish
 * in time and writes idempotently; {@link KubeEventsModule} to register it;
 * {@link PublishesFailures} to turn failed reconciles into Warning events;
 * {@link PublishesConditionChanges} to say each change of a status condition.
 * @module nestjs-kube-events
 */
// First: on an unsupported Node.js this throws a clear error before @kubernetes/client-node and undici load.
import './runtime-check.js';
export {
  ABNORMAL_TRUE_CONDITIONS,
  COMBINED_NOTE_PREFIX,
  CONDITION_CHANGE_ACTION,
  DEFAULT_COMBINE_SIMILAR_EVENTS,
  DEFAULT_MAX_SERIES,
  DEFAULT_SINK_MAX_IN_FLIGHT,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TRACE_CONTEXT_PREFIX,
  DEFAULT_WRITE_CONTROL,
  KUBE_EVENTS_METRICS,
  MAX_NOTE_BYTES,
  MAX_RETRY_AFTER_MS,
  RECONCILE_ACTION,
  RECONCILE_FAILED_REASON,
  RECOVERED_REASON,
  SERIES_ENDED_ANNOTATION,
  SERIES_WINDOW_MS,
} from './kube-events.constants.js';
export type {
  ClusterScopedEventNamespace,
  DropCause,
  EventType,
  KubeEvent,
  KubeEventsClock,
  KubeEventsModuleOptions,
  KubeEventsOptionsFactory,
  KubeEventsTimer,
  Reporter,
  TraceContextOptions,
  WriteControlOptions,
} from './kube-events.interfaces.js';
export { systemClock } from './time/system-clock.js';
export { K8S_EVENT_ATTRIBUTES } from './tracing/k8s-event-attributes.js';
export type { KubeEventsModuleExtras } from './module/kube-events.module-definition.js';
export { KubeEventsModule } from './module/kube-events.module.js';
export {
  defineEventCatalog,
  isEventCatalog,
  type CatalogEvent,
  type DeclaredEvent,
  type EventCatalog,
  type EventCatalogEntry,
  type NoteArguments,
  type NoteBuilder,
} from './catalog/event-catalog.js';
export type { ConditionEvents, ConditionEventsEntry } from './catalog/condition-events.js';
export {
  conditionChanges,
  type ConditionChange,
  type ConditionChangesOptions,
  type ConditionState,
  type StatusCondition,
} from './conditions/condition-changes.js';
export type { ConditionChangeEventsOptions } from './conditions/condition-change-events.js';
export {
  PublishesConditionChanges,
  type PublishesConditionChangesOptions,
} from './condition-changes/publishes-condition-changes.decorator.js';
export { renderEventCatalog, type RenderEventCatalogOptions } from './catalog/catalog-markdown.js';
export { EventRecorder } from './recorder/event-recorder.js';
export { getEventRecorderToken } from './recorder/recorder-tokens.js';
export { InjectEventRecorder } from './module/inject-event-recorder.decorator.js';
export { PublishesFailures, type PublishesFailuresOptions } from './publishes-failures/publishes-failures.decorator.js';
export {
  InvalidEventError,
  PublishApiError,
  PublishCredentialError,
  type CredentialPluginRun,
  PublishError,
  type PublishErrorOptions,
  PublishTimeoutError,
  PublishUnreachableError,
} from './errors.js';
export { truncateNote } from './event-rules/note-truncation.js';
export { describeError, type DescribeErrorOptions } from './error-descriptions/describe-error.js';
export { redactCredentials } from './text/credential-redaction.js';
export type {
  EventQuery,
  EventsWriter,
  ListedEvent,
  SeriesPatch,
  StoredEventState,
  TraceHeaders,
} from './api/events-api.js';
export type { EventStatement, RelatedObject } from './api/event-statement.js';
export type { PublishOutcome, PublishOutcomeKind } from './recorder/publish/index.js';
export type { EventSink } from './sinks/event-sink.js';
export { KubeEventsSink, type KubeEventsSinkOptions } from './sinks/kube-events-sink.decorator.js';
export { KubeEventsMetrics } from './metrics/kube-events-metrics.js';
export type {
  KubeEventsMetricName,
  KubeEventsMetricsBackend,
  KubeEventsMetricsSnapshot,
  KubeEventsMetricUpdate,
} from './metrics/kube-events-metrics.interfaces.js';
export {
  KubeEventsHealth,
  type CredentialsHealth,
  type KubeEventsHealthState,
  type ServerHealth,
} from './health/kube-events-health.js';
export { healthSummary, type KubeEventsHealthSummary } from './health/health-summary.js';
export { getKubeEventsHealthToken } from './health/health-tokens.js';
export type {
  MissingPermission,
  PermissionCheckMode,
  PermissionState,
  UnknownPermission,
} from './permissions/permission-check.js';
export type { EventVerb } from './api/access-review.js';
export type { EventWritesFlow } from './api/event-writes-flow.js';
