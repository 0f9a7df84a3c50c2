/**
 * A health indicator for `@nestjs/terminus` (11.x or 12.x, an optional peer
 * dependency): {@link KubeEventsHealthIndicator}. Import it from
 * `nestjs-kube-events/terminus`; applications without terminus never load
 * this entry point.
 * @module nestjs-kube-events/terminus
 */
// First, for this entry: a clear error on an unsupported Node.js before client-node and undici load.
import '../runtime-check.js';
export { KubeEventsHealthIndicator, type KubeEventsHealthCheckOptions } from './kube-events-health.indicator.js';
