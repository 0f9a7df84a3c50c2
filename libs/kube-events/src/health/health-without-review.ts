import { PermissionCheck } from '../permissions/permission-check.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { KubeEventsHealth } from './kube-events-health.js';

/**
 * The health of a recorder that reviews no permission and has no writes
 * flow of its own: the fake recorder, or one a test put in place of the
 * module's (`overrideProvider(EventRecorder)`).
 */
export function healthWithoutReview(recorder: EventRecorder): KubeEventsHealth {
  return new KubeEventsHealth(
    recorder,
    new PermissionCheck(undefined, {
      mode: 'off',
      controller: recorder.reporter.controller,
      verbs: [],
      homeNamespace: 'default',
      timeoutMs: recorder.timeout,
    }),
  );
}
