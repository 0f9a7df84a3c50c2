import { KubeEventsHealth } from './kube-events-health.js';

const NAMED_HEALTH_PREFIX = 'KUBE_EVENTS:health:';

/**
 * The injection token of a recorder's {@link KubeEventsHealth}: the class
 * for the default recorder, a namespaced string for one registered with a
 * `name`.
 */
export function getKubeEventsHealthToken(name?: string): string | typeof KubeEventsHealth {
  return name === undefined ? KubeEventsHealth : `${NAMED_HEALTH_PREFIX}${name}`;
}
