import type { KubeEventsHealthState } from './kube-events-health.js';
import type { PermissionState } from '../permissions/permission-check.js';

/**
 * A recorder's health in words and counts, for a body that anyone who can
 * reach a health endpoint reads: no namespace, no address, no path, no
 * error text. The details stay in {@link KubeEventsHealth.state} and the
 * log lines.
 */
export interface KubeEventsHealthSummary {
  /** As {@link KubeEventsHealthState.writable}. */
  readonly writable: boolean;
  /** Whether the last writes reached the API server. */
  readonly server: 'reachable' | 'unreachable';
  /** Whether the kubeconfig's credentials worked for the last writes. */
  readonly credentials: 'working' | 'failing';
  /** What the permission check found, counted by namespace. */
  readonly permissions: {
    /** As {@link PermissionState.scope}. */
    readonly scope: PermissionState['scope'];
    /** Namespaces the recorder publishes to where a right to write Events is missing. */
    readonly missingWherePublished: number;
    /** Namespaces where a right is missing but nothing was published. */
    readonly missingElsewhere: number;
    /** Reviews that could not be made, of the last few dozen. */
    readonly unknown: number;
  };
  /** How many reasons stop the Events ({@link KubeEventsHealthState.problems}). */
  readonly problems: number;
  /** How many reasons hold some Events back while others are written ({@link KubeEventsHealthState.degraded}). */
  readonly degraded: number;
  /** As {@link KubeEventsHealthState.throttled}. */
  readonly throttled: boolean;
  /** How many rights are missing where nothing was published ({@link KubeEventsHealthState.warnings}). */
  readonly warnings: number;
  /** Occurrences queued now (of them, those to retry a failed write), and given up since start. */
  readonly occurrences: KubeEventsHealthState['occurrences'];
}

/**
 * The summary of `state`: what `KubeEventsHealthIndicator` answers, and
 * what an operator's unauthenticated status endpoint may show.
 *
 * @example
 * healthSummary(app.get(KubeEventsHealth).state());
 * // { writable: true, server: 'reachable', credentials: 'working', permissions: { scope: 'per-namespace', … }, … }
 */
export function healthSummary(state: KubeEventsHealthState): KubeEventsHealthSummary {
  const { missing, unknown, scope } = state.permissions;
  const published = missing.filter((finding) => finding.published).length;
  return {
    writable: state.writable,
    server: state.server.reachable ? 'reachable' : 'unreachable',
    credentials: state.credentials.working ? 'working' : 'failing',
    permissions: {
      scope,
      missingWherePublished: published,
      missingElsewhere: missing.length - published,
      unknown: unknown.length,
    },
    problems: state.problems.length,
    degraded: state.degraded.length,
    throttled: state.throttled,
    warnings: state.warnings.length,
    occurrences: {
      queued: state.occurrences.queued,
      retrying: state.occurrences.retrying,
      dropped: state.occurrences.dropped,
    },
  };
}
