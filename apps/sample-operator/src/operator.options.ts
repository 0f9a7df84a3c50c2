import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './controller/backoff.js';
import {
  MIRROR_SOURCES,
  MIRROR_TARGETS,
  type MirrorSources,
  type MirrorTargets,
} from './config-mirror/namespace-rules.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  leaderElectionTimingProblem,
} from './leader-election/leader-elector.js';

/** Name of the operator's Lease (and of its Deployment). */
export const LEASE_NAME = 'configmirror-controller';
/** Where a pod finds its own namespace when POD_NAMESPACE is not set. */
const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The default bound on one request to the API server. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Injection token of the {@link ResolvedOperatorOptions}. */
export const OPERATOR_OPTIONS = 'CONFIG_MIRROR:OPERATOR_OPTIONS';

/** How the ConfigMirror operator runs. Every field has a default. */
export interface OperatorOptions {
  /**
   * The cluster to work on; its events, informers and clients all use it.
   * @default KubeConfig.loadFromDefault(): $KUBECONFIG, ~/.kube/config, else in-cluster
   */
  kubeConfig?: KubeConfig;
  /**
   * `reportingInstance` of the Events (which replica published them), and,
   * with {@link leaderElect}, this replica's identity in the Lease.
   * @default $POD_NAME, else the host name (with leader election: the host name and a random suffix)
   */
  instance?: string;
  /**
   * Run the controller only while this replica holds the operator's Lease
   * (client-go's leader election), so that several replicas can run and
   * only one reconciles.
   * @default false
   */
  leaderElect?: boolean;
  /** The Lease and the election's timings; used with {@link leaderElect}. */
  leaderElection?: LeaderElectionSettings;
  /**
   * Serve `/healthz`, `/readyz` and `/status` over HTTP on this port (`0`: any free port).
   * @default none: no server
   */
  healthProbePort?: number;
  /**
   * The address the health server listens on: an IPv4 or IPv6 address, e.g.
   * `127.0.0.1` to keep `/status` to this machine when running outside a pod.
   * By default it listens on every address, because kubelet's probes connect
   * to the pod's IP, and inside a pod that (with loopback) is all there is: a
   * loopback default would fail every probe. The server has no
   * authentication, and `/status` names this pod and the Lease holder.
   * @default every address (`::`, and `0.0.0.0` where IPv6 is off)
   */
  healthProbeBindAddress?: string;
  /**
   * Where a ConfigMirror may read its source ConfigMap. `own-namespace`: only
   * its own namespace (a `spec.sourceNamespace` naming another is refused
   * with a Warning Event, before anything is read there). `any-namespace`:
   * every namespace the operator can read, so that whoever may create a
   * ConfigMirror may copy any ConfigMap of the cluster; for a cluster whose
   * ConfigMirror authors are all trusted with that.
   * @default 'own-namespace'
   */
  mirrorSources?: MirrorSources;
  /**
   * Where a ConfigMirror may write its copies. `opted-in`: its own namespace,
   * and namespaces labelled `accept-from.mirror.kube-events.dev/<its namespace>: "true"`
   * (others are refused with a Warning Event, which does not say whether they
   * exist). `any-namespace`: every namespace the operator may write to.
   * @default 'opted-in'
   */
  mirrorTargets?: MirrorTargets;
  /**
   * ConfigMirrors reconciled at once.
   * @default 2
   */
  workers?: number;
  /**
   * Every ConfigMirror is reconciled again this often, even without a change, in ms; `0` turns it off.
   * @default 300_000 (5 minutes)
   */
  resyncPeriodMs?: number;
  /**
   * Delay before the first retry of a failed reconcile, in ms; it doubles per failure.
   * @default 5 (client-go)
   */
  retryBaseDelayMs?: number;
  /**
   * Ceiling on the retry delay, in ms.
   * @default 1_000_000 (1000 s, client-go)
   */
  retryMaxDelayMs?: number;
  /**
   * How long shutting down waits for reconciles in flight, in ms.
   * @default 20_000
   */
  shutdownTimeoutMs?: number;
  /**
   * Bound on each request to the API server, in ms: reads, lists, writes,
   * status writes and watch connects (a watch that stays silent for 30 s is
   * reconnected, from client-node). Lease requests are bounded by half the
   * renew deadline when that is shorter, so that a leader tries at least
   * twice before it steps down.
   * @default 30_000
   */
  requestTimeoutMs?: number;
  /**
   * Bound on each Event publish, in ms.
   * @default the library's DEFAULT_TIMEOUT_MS
   */
  publishTimeoutMs?: number;
}

/** The operator's Lease and client-go's timings (`LeaderElectionConfig`). */
export interface LeaderElectionSettings {
  /** @default `configmirror-controller` */
  leaseName?: string;
  /** @default $POD_NAMESPACE, else the pod's own namespace when in a cluster, else `default` */
  namespace?: string;
  /** How long the other replicas wait before they take a Lease that is not renewed; whole seconds. @default 15_000 */
  leaseDurationMs?: number;
  /** How long the leader retries a failed renewal before it steps down. @default 10_000 */
  renewDeadlineMs?: number;
  /** How often a replica tries to acquire, and the leader renews. @default 2_000 */
  retryPeriodMs?: number;
}

/** {@link OperatorOptions} with the defaults filled in. */
export type ResolvedOperatorOptions = Required<
  Omit<
    OperatorOptions,
    'kubeConfig' | 'publishTimeoutMs' | 'healthProbePort' | 'healthProbeBindAddress' | 'leaderElection'
  >
> &
  Pick<OperatorOptions, 'kubeConfig' | 'publishTimeoutMs' | 'healthProbePort' | 'healthProbeBindAddress'> & {
    leaderElection: Required<LeaderElectionSettings>;
  };

export function resolveOperatorOptions(
  options: OperatorOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOperatorOptions {
  const leaderElect = options.leaderElect ?? false;
  const mirrorSources = oneOf('mirrorSources', options.mirrorSources ?? 'own-namespace', MIRROR_SOURCES);
  const mirrorTargets = oneOf('mirrorTargets', options.mirrorTargets ?? 'opted-in', MIRROR_TARGETS);
  const healthProbeBindAddress = options.healthProbeBindAddress;
  if (healthProbeBindAddress !== undefined && isIP(healthProbeBindAddress) === 0) {
    throw new Error(
      `healthProbeBindAddress must be an IPv4 or IPv6 address, got ${JSON.stringify(healthProbeBindAddress)}`,
    );
  }
  const election = options.leaderElection ?? {};
  const leaderElection: Required<LeaderElectionSettings> = {
    leaseName: election.leaseName ?? LEASE_NAME,
    namespace: election.namespace ?? (env.POD_NAMESPACE || inClusterNamespace() || 'default'),
    leaseDurationMs: election.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
    renewDeadlineMs: election.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
    retryPeriodMs: election.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
  };
  if (leaderElect) {
    const problem = leaderElectionTimingProblem(leaderElection);
    if (problem) throw new Error(`leader election: ${problem}`);
  }
  return {
    kubeConfig: options.kubeConfig,
    // Two candidates must never share an identity: outside a pod, the host name alone may not be unique.
    instance:
      options.instance ??
      (env.POD_NAME || (leaderElect ? `${hostname()}-${randomBytes(3).toString('hex')}` : hostname())),
    leaderElect,
    leaderElection,
    healthProbePort: options.healthProbePort,
    healthProbeBindAddress,
    mirrorSources,
    mirrorTargets,
    workers: options.workers ?? 2,
    resyncPeriodMs: options.resyncPeriodMs ?? 300_000,
    retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    retryMaxDelayMs: options.retryMaxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 20_000,
    requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    publishTimeoutMs: options.publishTimeoutMs,
  };
}

/**
 * Reads the operator's settings from the environment:
 * `POD_NAME`, `WORKERS`, `RESYNC_PERIOD_MS`, `RETRY_BASE_DELAY_MS`,
 * `RETRY_MAX_DELAY_MS`, `SHUTDOWN_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`, `EVENT_PUBLISH_TIMEOUT_MS`,
 * `LEADER_ELECT`, `POD_NAMESPACE`, `LEADER_ELECT_LEASE_DURATION_MS`,
 * `LEADER_ELECT_RENEW_DEADLINE_MS`, `LEADER_ELECT_RETRY_PERIOD_MS`,
 * `HEALTH_PROBE_PORT`, `HEALTH_PROBE_BIND_ADDRESS`, `MIRROR_SOURCES`, `MIRROR_TARGETS`.
 * (`KUBECONFIG` is read by `KubeConfig.loadFromDefault()`.)
 * @throws Error naming the variable when a value is not a number in range (or not true/false, or not one of the values it takes).
 */
export function operatorOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OperatorOptions {
  const leaderElection: LeaderElectionSettings = {
    namespace: env.POD_NAMESPACE || undefined,
    leaseDurationMs: integer(env, 'LEADER_ELECT_LEASE_DURATION_MS', 1000),
    renewDeadlineMs: integer(env, 'LEADER_ELECT_RENEW_DEADLINE_MS', 1),
    retryPeriodMs: integer(env, 'LEADER_ELECT_RETRY_PERIOD_MS', 1),
  };
  if (leaderElection.leaseDurationMs !== undefined && leaderElection.leaseDurationMs % 1000 !== 0) {
    throw new Error(
      `LEADER_ELECT_LEASE_DURATION_MS must be a whole number of seconds (the Lease holds seconds), got "${env.LEADER_ELECT_LEASE_DURATION_MS}"`,
    );
  }
  return {
    instance: env.POD_NAME || undefined,
    leaderElect: boolean(env, 'LEADER_ELECT'),
    leaderElection: withoutUndefined(leaderElection),
    healthProbePort: integer(env, 'HEALTH_PROBE_PORT', 0, 65_535),
    healthProbeBindAddress: address(env, 'HEALTH_PROBE_BIND_ADDRESS'),
    mirrorSources: choice(env, 'MIRROR_SOURCES', MIRROR_SOURCES),
    mirrorTargets: choice(env, 'MIRROR_TARGETS', MIRROR_TARGETS),
    workers: integer(env, 'WORKERS', 1),
    resyncPeriodMs: integer(env, 'RESYNC_PERIOD_MS', 0),
    retryBaseDelayMs: integer(env, 'RETRY_BASE_DELAY_MS', 1),
    retryMaxDelayMs: integer(env, 'RETRY_MAX_DELAY_MS', 1),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 0),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 1),
    publishTimeoutMs: integer(env, 'EVENT_PUBLISH_TIMEOUT_MS', 1),
  };
}

/**
 * The bound on one Lease request: the request timeout, or half the renew
 * deadline when that is shorter, so that a leader whose request hangs tries
 * again before it must step down.
 */
export function leaseRequestTimeoutMs(
  options: Pick<ResolvedOperatorOptions, 'requestTimeoutMs' | 'leaderElection'>,
): number {
  return Math.max(1, Math.floor(Math.min(options.requestTimeoutMs, options.leaderElection.renewDeadlineMs / 2)));
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer (ms), got ${value}`);
  return value;
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max?: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
    throw new Error(`${name} must be an integer >= ${min}${max !== undefined ? ` and <= ${max}` : ''}, got "${raw}"`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function address(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  if (isIP(value) === 0) throw new Error(`${name} must be an IPv4 or IPv6 address, got "${raw}"`);
  return value;
}

function choice<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[]): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return oneOf(name, raw.trim(), values);
}

function oneOf<T extends string>(name: string, value: unknown, values: readonly T[]): T {
  if (!values.includes(value as T)) {
    throw new Error(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** The namespace of the pod this process runs in, from its service account; undefined outside a cluster. */
function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
