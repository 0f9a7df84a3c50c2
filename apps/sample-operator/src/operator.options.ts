import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { MirrorSources, MirrorTargets } from './config-mirror/namespace-rules.js';
import { operatorEnvironment, type OperatorEnvironment } from './operator.environment.js';

/** Name of the operator's Lease (and of its Deployment). */
export const LEASE_NAME = 'configmirror-controller';

/** Injection token of the {@link ResolvedOperatorOptions}. */
export const OPERATOR_OPTIONS = 'CONFIG_MIRROR:OPERATOR_OPTIONS';

/** How the ConfigMirror operator runs; each field comes from the variable it names (`operator.environment.ts`). */
export interface ResolvedOperatorOptions {
  /** The cluster; by default `KubeConfig.loadFromDefault()` ($KUBECONFIG, ~/.kube/config, else in-cluster). */
  kubeConfig?: KubeConfig;
  /** `reportingInstance` of the Events and the identity in the Lease: `POD_NAME`, else the host name (and a random suffix with leader election). */
  instance: string;
  /** `LEADER_ELECT`: run the controller only while this replica holds the Lease. */
  leaderElect: boolean;
  /** The Lease (`POD_NAMESPACE`, else the pod's own namespace, else `default`) and client-go's timings. */
  leaderElection: LeaderElectionSettings;
  /** `HEALTH_PROBE_PORT`: serve `/healthz`, `/readyz` and `/status` there (`0`: any free port); no server when unset. */
  healthProbePort?: number;
  /** `HEALTH_PROBE_BIND_ADDRESS`: the probes' address; every address when unset (kubelet connects to the pod IP). */
  healthProbeBindAddress?: string;
  /** `MIRROR_SOURCES`: where a ConfigMirror may read its source. */
  mirrorSources: MirrorSources;
  /** `MIRROR_TARGETS`: where a ConfigMirror may write its copies. */
  mirrorTargets: MirrorTargets;
  /** `WORKERS`: ConfigMirrors reconciled at once. */
  workers: number;
  /** `RESYNC_PERIOD_MS`: every ConfigMirror is reconciled again this often; `0` turns it off. */
  resyncPeriodMs: number;
  /** `RETRY_BASE_DELAY_MS`: the first retry's delay; it doubles per failure. */
  retryBaseDelayMs: number;
  /** `RETRY_MAX_DELAY_MS`: the ceiling on the retry delay. */
  retryMaxDelayMs: number;
  /** `SHUTDOWN_TIMEOUT_MS`: how long shutting down waits for reconciles in flight. */
  shutdownTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`: the bound on each request to the API server (watch connects included). */
  requestTimeoutMs: number;
  /** `EVENT_PUBLISH_TIMEOUT_MS`: the bound on each Event publish; the library's default when unset. */
  publishTimeoutMs?: number;
}

/** The operator's Lease and client-go's timings (`LeaderElectionConfig`), in ms. */
export interface LeaderElectionSettings {
  leaseName: string;
  namespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** What a caller of `startOperator` sets over the environment's settings. */
export type OperatorOptions = Partial<Omit<ResolvedOperatorOptions, 'leaderElection'>> & {
  leaderElection?: Partial<LeaderElectionSettings>;
};

/** The operator's options: `overrides` over the validated environment (by default, every variable unset). */
export function resolveOperatorOptions(
  overrides: OperatorOptions = {},
  env: OperatorEnvironment = operatorEnvironment.parse({}),
): ResolvedOperatorOptions {
  const leaderElect = overrides.leaderElect ?? env.LEADER_ELECT;
  return {
    // Two candidates must never share an identity: outside a pod, the host name alone may not be unique.
    instance: env.POD_NAME ?? (leaderElect ? `${hostname()}-${randomBytes(3).toString('hex')}` : hostname()),
    healthProbePort: env.HEALTH_PROBE_PORT,
    healthProbeBindAddress: env.HEALTH_PROBE_BIND_ADDRESS,
    mirrorSources: env.MIRROR_SOURCES,
    mirrorTargets: env.MIRROR_TARGETS,
    workers: env.WORKERS,
    resyncPeriodMs: env.RESYNC_PERIOD_MS,
    retryBaseDelayMs: env.RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: env.RETRY_MAX_DELAY_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    publishTimeoutMs: env.EVENT_PUBLISH_TIMEOUT_MS,
    ...overrides,
    leaderElect,
    leaderElection: {
      leaseName: LEASE_NAME,
      namespace: env.POD_NAMESPACE ?? inClusterNamespace() ?? 'default',
      leaseDurationMs: env.LEADER_ELECT_LEASE_DURATION_MS,
      renewDeadlineMs: env.LEADER_ELECT_RENEW_DEADLINE_MS,
      retryPeriodMs: env.LEADER_ELECT_RETRY_PERIOD_MS,
      ...overrides.leaderElection,
    },
  };
}

/** The bound on one Lease request: half the renew deadline when that is shorter, so a leader tries twice before it steps down. */
export function leaseRequestTimeoutMs(
  options: Pick<ResolvedOperatorOptions, 'requestTimeoutMs' | 'leaderElection'>,
): number {
  return Math.max(1, Math.floor(Math.min(options.requestTimeoutMs, options.leaderElection.renewDeadlineMs / 2)));
}

/** The namespace of the pod this process runs in, from its service account; undefined outside a cluster. */
function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
