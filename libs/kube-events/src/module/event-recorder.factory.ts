import { EventsApi } from '../api/events-api.js';
import { loadDefaultKubeConfig } from '../api/default-kube-config.js';
import type { KubeEventsModuleOptions } from '../kube-events.interfaces.js';
import { EventRecorder } from '../recorder/event-recorder.js';
import { resolveRecorderOptions } from '../recorder/recorder-options.js';

/**
 * Builds the recorder of one `forRoot`/`forRootAsync`: the options first, so
 * that a bad one fails start-up by name before any kubeconfig is looked for;
 * then the KubeConfig (the one given, else the default one) and the Events
 * API client on it, which the recorder writes through.
 */
export function createEventRecorder(options: KubeEventsModuleOptions): EventRecorder {
  const resolved = resolveRecorderOptions(options);
  const eventsApi = new EventsApi(options.kubeConfig ?? loadDefaultKubeConfig());
  return new EventRecorder(resolved, eventsApi);
}
