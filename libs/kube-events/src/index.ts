export {
  DEFAULT_MAX_SERIES,
  DEFAULT_TIMEOUT_MS,
  MAX_NOTE_BYTES,
  RECONCILE_ACTION,
  RECONCILE_FAILED_REASON,
  SERIES_WINDOW_MS,
} from './kube-events.constants.js';
export type {
  EventType,
  KubeEvent,
  KubeEventsModuleOptions,
  KubeEventsOptionsFactory,
  Reporter,
} from './kube-events.interfaces.js';
export type { KubeEventsModuleExtras } from './kube-events.module-definition.js';
export { KubeEventsModule } from './kube-events.module.js';
export { EventRecorder } from './event-recorder.js';
export { getEventRecorderToken } from './kube-events.tokens.js';
export { InjectEventRecorder } from './decorators/inject-event-recorder.decorator.js';
export { PublishesFailures, type PublishesFailuresOptions } from './decorators/publishes-failures.decorator.js';
export { InvalidEventError, PublishApiError, PublishError, PublishTimeoutError } from './errors.js';
export { truncateNote } from './note-truncation.js';
export type { EventsWriter, SeriesPatch } from './events-api.js';
