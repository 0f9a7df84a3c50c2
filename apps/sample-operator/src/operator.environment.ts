import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './controller/backoff.js';
import { MIRROR_SOURCES, MIRROR_TARGETS } from './config-mirror/namespace-rules.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  leaderElectionTimingProblem,
} from './leader-election/leader-elector.js';

/**
 * A variable read by `parse`: unset or blank is `fallback`; a value `parse`
 * refuses (undefined) fails validation with an error that names the
 * variable (the path) and quotes the value.
 */
function variable<T>(expected: string, parse: (value: string) => T | undefined): z.ZodType<T | undefined>;
function variable<T>(expected: string, parse: (value: string) => T | undefined, fallback: T): z.ZodType<T>;
function variable<T>(expected: string, parse: (value: string) => T | undefined, fallback?: T) {
  return z
    .string()
    .optional()
    .transform((raw, context) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      const value = parse(raw.trim());
      if (value === undefined) context.addIssue({ code: 'custom', message: `must be ${expected}, got "${raw}"` });
      return value;
    });
}

const integer = (min: number, max?: number) => (value: string) => {
  const number = Number(value);
  return Number.isSafeInteger(number) && number >= min && (max === undefined || number <= max) ? number : undefined;
};
const range = (min: number, max?: number) => `an integer >= ${min}${max === undefined ? '' : ` and <= ${max}`}`;
const flags: Record<string, boolean> = { true: true, 1: true, false: false, 0: false };
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string) =>
    values.find((accepted) => accepted === value);

/**
 * The operator's environment, validated by `@nestjs/config` at start-up
 * (`ConfigModule.forRoot({ validationSchema })`): every variable the operator
 * reads, its default, and what it accepts. A bad value stops the start with
 * `Config validation error: <VARIABLE>: must be …, got "<value>"`.
 * (`KUBECONFIG` is read by `KubeConfig.loadFromDefault()`.)
 */
export const operatorEnvironment = z
  .object({
    POD_NAME: variable('a name', (value) => value),
    POD_NAMESPACE: variable('a namespace', (value) => value),
    LEADER_ELECT: variable('true or false', (value) => flags[value.toLowerCase()], false),
    LEADER_ELECT_LEASE_DURATION_MS: variable(
      'a whole number of seconds, >= 1000 (the Lease holds seconds)',
      (value) => [integer(1000)(value)].find((ms) => ms !== undefined && ms % 1000 === 0),
      DEFAULT_LEASE_DURATION_MS,
    ),
    LEADER_ELECT_RENEW_DEADLINE_MS: variable(range(1), integer(1), DEFAULT_RENEW_DEADLINE_MS),
    LEADER_ELECT_RETRY_PERIOD_MS: variable(range(1), integer(1), DEFAULT_RETRY_PERIOD_MS),
    HEALTH_PROBE_PORT: variable(range(0, 65_535), integer(0, 65_535)),
    HEALTH_PROBE_BIND_ADDRESS: variable('an IPv4 or IPv6 address', (value) => (isIP(value) ? value : undefined)),
    MIRROR_SOURCES: variable(MIRROR_SOURCES.join(' or '), oneOf(MIRROR_SOURCES), 'own-namespace'),
    MIRROR_TARGETS: variable(MIRROR_TARGETS.join(' or '), oneOf(MIRROR_TARGETS), 'opted-in'),
    WORKERS: variable(range(1), integer(1), 2),
    RESYNC_PERIOD_MS: variable(range(0), integer(0), 300_000),
    RETRY_BASE_DELAY_MS: variable(range(1), integer(1), DEFAULT_BASE_DELAY_MS),
    RETRY_MAX_DELAY_MS: variable(range(1), integer(1), DEFAULT_MAX_DELAY_MS),
    SHUTDOWN_TIMEOUT_MS: variable(range(0), integer(0), 20_000),
    REQUEST_TIMEOUT_MS: variable(range(1), integer(1), 30_000),
    EVENT_PUBLISH_TIMEOUT_MS: variable(range(1), integer(1)),
  })
  .superRefine((env, context) => {
    if (!env.LEADER_ELECT) return;
    const problem = leaderElectionTimingProblem({
      leaseDurationMs: env.LEADER_ELECT_LEASE_DURATION_MS,
      renewDeadlineMs: env.LEADER_ELECT_RENEW_DEADLINE_MS,
      retryPeriodMs: env.LEADER_ELECT_RETRY_PERIOD_MS,
    });
    if (problem) context.addIssue({ code: 'custom', path: ['LEADER_ELECT'], message: `leader election: ${problem}` });
  });

/** The validated environment, with the defaults filled in. */
export type OperatorEnvironment = z.output<typeof operatorEnvironment>;
