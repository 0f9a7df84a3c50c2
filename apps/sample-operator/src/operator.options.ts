import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './controller/backoff.js';

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
   * `reportingInstance` of the Events (which replica published them).
   * @default $POD_NAME, else the host name
   */
  instance?: string;
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
   * Bound on each Event publish, in ms.
   * @default the library's DEFAULT_TIMEOUT_MS
   */
  publishTimeoutMs?: number;
}

/** {@link OperatorOptions} with the defaults filled in. */
export type ResolvedOperatorOptions = Required<Omit<OperatorOptions, 'kubeConfig' | 'publishTimeoutMs'>> &
  Pick<OperatorOptions, 'kubeConfig' | 'publishTimeoutMs'>;

export function resolveOperatorOptions(
  options: OperatorOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOperatorOptions {
  return {
    kubeConfig: options.kubeConfig,
    instance: options.instance ?? (env.POD_NAME || hostname()),
    workers: options.workers ?? 2,
    resyncPeriodMs: options.resyncPeriodMs ?? 300_000,
    retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    retryMaxDelayMs: options.retryMaxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 20_000,
    publishTimeoutMs: options.publishTimeoutMs,
  };
}

/**
 * Reads the operator's settings from the environment:
 * `POD_NAME`, `WORKERS`, `RESYNC_PERIOD_MS`, `RETRY_BASE_DELAY_MS`,
 * `RETRY_MAX_DELAY_MS`, `SHUTDOWN_TIMEOUT_MS`, `EVENT_PUBLISH_TIMEOUT_MS`.
 * (`KUBECONFIG` is read by `KubeConfig.loadFromDefault()`.)
 * @throws Error naming the variable when a value is not a number in range.
 */
export function operatorOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OperatorOptions {
  return {
    instance: env.POD_NAME || undefined,
    workers: integer(env, 'WORKERS', 1),
    resyncPeriodMs: integer(env, 'RESYNC_PERIOD_MS', 0),
    retryBaseDelayMs: integer(env, 'RETRY_BASE_DELAY_MS', 1),
    retryMaxDelayMs: integer(env, 'RETRY_MAX_DELAY_MS', 1),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 0),
    publishTimeoutMs: integer(env, 'EVENT_PUBLISH_TIMEOUT_MS', 1),
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}
