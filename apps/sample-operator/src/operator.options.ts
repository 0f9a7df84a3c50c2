import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { redact } from './redaction/redact.js';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './controller/backoff.js';
import { MIRROR_SOURCES, MIRROR_TARGETS } from './config-mirror/namespace-rules.js';
import * as election from './leader-election/leader-elector.js';

/** Name of the operator's Lease (and of its Deployment). */
export const LEASE_NAME = 'configmirror-controller';
/** Injection token of the {@link ResolvedOperatorOptions}. */
export const OPERATOR_OPTIONS = 'CONFIG_MIRROR:OPERATOR_OPTIONS';

type Parse<T> = (value: string) => T | undefined;
/** A variable read by `parse`: unset or blank is `fallback`; a value it refuses fails, naming the variable. */
const variable = <T, F extends T | undefined = undefined>(expected: string, parse: Parse<T>, fallback?: F) =>
  z
    .string()
    .optional()
    .transform((raw = '', context): T | F => {
      const value = raw.trim() ? parse(raw.trim()) : fallback;
      if (value === undefined && raw.trim())
        context.addIssue({ code: 'custom', message: `must be ${expected}, got ${quotedValue(raw)}` });
      return value as T;
    });
/** The longest stretch of a refused value an error quotes: the rest is counted, not printed. */
const QUOTED_VALUE_MAX = 64;
/** A refused value as the start-up error quotes it: redacted whole before it is cut, escaped, bounded. */
const quotedValue = (raw: string) => {
  const redacted = redact(raw);
  return redacted.length > QUOTED_VALUE_MAX
    ? `${JSON.stringify(redacted.slice(0, QUOTED_VALUE_MAX))}… (${raw.length} characters)`
    : JSON.stringify(redacted);
};
const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parse<number> =>
  (v) =>
    Number.isSafeInteger(+v) && +v >= min && +v <= max ? +v : undefined;
const atLeast = (min: number) => [`an integer >= ${min}`, int(min)] as const;
const oneOf = <T extends string>(values: readonly T[]) =>
  [values.join(' or '), (v: string) => values.find((x) => x === v)] as const;

/**
 * The operator's environment (README: Configuration), as `@nestjs/config` validates it at start-up: a bad value
 * stops the start with `Config validation error: <VARIABLE>: must be …, got "<value>"`.
 */
export const operatorEnvironment = z
  .object({
    POD_NAME: variable('a name', String),
    POD_NAMESPACE: variable('a namespace', String),
    LEADER_ELECT: variable(
      'true or false',
      (v) => ({ true: true, 1: true, false: false, 0: false })[v.toLowerCase()],
      false,
    ),
    LEADER_ELECT_LEASE_DURATION_MS: variable(
      'a whole number of seconds, >= 1000 (the Lease holds seconds)',
      (value) => [int(1000)(value)].find((ms) => ms !== undefined && ms % 1000 === 0),
      election.DEFAULT_LEASE_DURATION_MS,
    ),
    LEADER_ELECT_RENEW_DEADLINE_MS: variable(...atLeast(1), election.DEFAULT_RENEW_DEADLINE_MS),
    LEADER_ELECT_RETRY_PERIOD_MS: variable(...atLeast(1), election.DEFAULT_RETRY_PERIOD_MS),
    HEALTH_PROBE_PORT: variable('an integer >= 0 and <= 65535', int(0, 65_535)),
    HEALTH_PROBE_BIND_ADDRESS: variable('an IPv4 or IPv6 address', (value) => (isIP(value) ? value : undefined)),
    MIRROR_SOURCES: variable(...oneOf(MIRROR_SOURCES), 'own-namespace'),
    MIRROR_TARGETS: variable(...oneOf(MIRROR_TARGETS), 'opted-in'),
    WORKERS: variable(...atLeast(1), 2),
    RESYNC_PERIOD_MS: variable(...atLeast(0), 300_000),
    RETRY_BASE_DELAY_MS: variable(...atLeast(1), DEFAULT_BASE_DELAY_MS),
    RETRY_MAX_DELAY_MS: variable(...atLeast(1), DEFAULT_MAX_DELAY_MS),
    SHUTDOWN_TIMEOUT_MS: variable(...atLeast(0), 20_000),
    REQUEST_TIMEOUT_MS: variable(...atLeast(1), 30_000),
    EVENT_PUBLISH_TIMEOUT_MS: variable(...atLeast(1)),
  })
  .superRefine((env, context) => {
    if (!env.LEADER_ELECT) return;
    const problem = election.leaderElectionTimingProblem({
      leaseDurationMs: env.LEADER_ELECT_LEASE_DURATION_MS,
      renewDeadlineMs: env.LEADER_ELECT_RENEW_DEADLINE_MS,
      retryPeriodMs: env.LEADER_ELECT_RETRY_PERIOD_MS,
    });
    if (problem) context.addIssue({ code: 'custom', path: ['LEADER_ELECT'], message: `leader election: ${problem}` });
  })
  // Under one key, an object: @nestjs/config copies the scalars a schema returns into process.env, not objects.
  .transform((env) => ({
    operator: {
      // Two candidates must never share an identity: outside a pod, the host name alone may not be unique.
      instance: env.POD_NAME ?? `${hostname()}${env.LEADER_ELECT ? `-${randomBytes(3).toString('hex')}` : ''}`,
      leaderElect: env.LEADER_ELECT,
      leaderElection: {
        leaseName: LEASE_NAME,
        namespace: env.POD_NAMESPACE ?? inClusterNamespace() ?? 'default',
        leaseDurationMs: env.LEADER_ELECT_LEASE_DURATION_MS,
        renewDeadlineMs: env.LEADER_ELECT_RENEW_DEADLINE_MS,
        retryPeriodMs: env.LEADER_ELECT_RETRY_PERIOD_MS,
      },
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
    },
  }));

/** `@nestjs/config`'s options: the environment, validated (no `.env` file). */
export const operatorConfig = { ignoreEnvFile: true, validationSchema: operatorEnvironment };

/** How the operator runs: its environment's settings, and the cluster (`KUBECONFIG`'s unless given). */
export type ResolvedOperatorOptions = z.output<typeof operatorEnvironment>['operator'] & { kubeConfig?: KubeConfig };
/** What a test or a script sets over the environment's settings. */
export type OperatorOptions = Partial<ResolvedOperatorOptions>;

/** `overrides` over the options of `env` (by default, every variable unset). */
export const resolveOperatorOptions = (overrides: OperatorOptions = {}, env: Record<string, string> = {}) => ({
  ...operatorEnvironment.parse(env).operator,
  ...overrides,
});

/** The namespace of the pod this process runs in, from its service account; undefined outside a cluster. */
function inClusterNamespace(): string | undefined {
  const file = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}
