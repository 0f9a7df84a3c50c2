import type { EventsV1Event, KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';
// The built package's, as a user installs it: a process that measures it loads one copy of the library.
import { eventBody } from '../libs/kube-events/dist/api/event-body.js';
import { eventName } from '../libs/kube-events/dist/event-rules/event-name.js';
import { failed, reporter } from './bare-client.js';

/**
 * What the recorder sends for the first Event `event` (by default
 * {@link failed}) about `object` (which has a namespace), built by hand
 * with its own functions, under a name chosen now: the baseline of the
 * benchmarks that set the recorder beside its own writes without it. It is
 * written to `object`'s namespace.
 */
export function newObjectEvent(object: KubernetesObject, event: KubeEvent = failed): EventsV1Event {
  const namespace = object.metadata!.namespace!;
  const eventTime = Date.now();
  const name = eventName(object.metadata!.name, reporter.controller, eventTime);
  return eventBody(object, event, reporter, { name, namespace, eventTime, count: 1 });
}
