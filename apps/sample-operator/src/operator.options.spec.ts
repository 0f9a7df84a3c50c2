import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import {
  operatorConfig,
  operatorEnvironment,
  resolveOperatorOptions,
  type ResolvedOperatorOptions,
} from './operator.options.js';

/** The options the operator starts with in `env`, through @nestjs/config as the application reads them. */
async function optionsIn(env: Record<string, string>): Promise<ResolvedOperatorOptions> {
  const saved = process.env;
  process.env = { ...env };
  try {
    const module = await Test.createTestingModule({ imports: [ConfigModule.forRoot(operatorConfig)] }).compile();
    return module.get(ConfigService).get<ResolvedOperatorOptions>('operator')!;
  } finally {
    process.env = saved;
  }
}

describe('the operator environment', () => {
  test('leader election is off by default, with client-go timings and a Lease named after the operator', async () => {
    const options = await optionsIn({ POD_NAMESPACE: 'ops' });
    expect(options).toMatchObject({
      leaderElect: false,
      workers: 2,
      resyncPeriodMs: 300_000,
      retryBaseDelayMs: 5,
      retryMaxDelayMs: 1_000_000,
      shutdownTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      mirrorSources: 'own-namespace',
      mirrorTargets: 'opted-in',
    });
    expect(options.leaderElection).toEqual({
      leaseName: 'configmirror-controller',
      namespace: 'ops',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(options.healthProbePort).toBeUndefined();
    expect(options.healthProbeBindAddress).toBeUndefined();
    expect(options.publishTimeoutMs).toBeUndefined();
  });

  test('every variable, read into the options the providers inject', async () => {
    const options = await optionsIn({
      LEADER_ELECT: 'true',
      POD_NAME: 'configmirror-controller-7d9f-abcde',
      POD_NAMESPACE: 'configmirror-system',
      LEADER_ELECT_LEASE_DURATION_MS: '3000',
      LEADER_ELECT_RENEW_DEADLINE_MS: '2000',
      LEADER_ELECT_RETRY_PERIOD_MS: '500',
      HEALTH_PROBE_PORT: '8081',
      HEALTH_PROBE_BIND_ADDRESS: '::1',
      MIRROR_SOURCES: 'any-namespace',
      MIRROR_TARGETS: 'any-namespace',
      WORKERS: '4',
      RESYNC_PERIOD_MS: '0',
      RETRY_BASE_DELAY_MS: '10',
      RETRY_MAX_DELAY_MS: '2000',
      SHUTDOWN_TIMEOUT_MS: '5000',
      REQUEST_TIMEOUT_MS: '7000',
      EVENT_PUBLISH_TIMEOUT_MS: '3000',
    });
    expect(options).toEqual({
      instance: 'configmirror-controller-7d9f-abcde',
      leaderElect: true,
      leaderElection: {
        leaseName: 'configmirror-controller',
        namespace: 'configmirror-system',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 500,
      },
      healthProbePort: 8081,
      healthProbeBindAddress: '::1',
      mirrorSources: 'any-namespace',
      mirrorTargets: 'any-namespace',
      workers: 4,
      resyncPeriodMs: 0,
      retryBaseDelayMs: 10,
      retryMaxDelayMs: 2_000,
      shutdownTimeoutMs: 5_000,
      requestTimeoutMs: 7_000,
      publishTimeoutMs: 3_000,
    });
  });

  test('a bad value stops the start with an error naming the variable and quoting the value', async () => {
    await expect(optionsIn({ HEALTH_PROBE_PORT: '70000' })).rejects.toThrow(
      'Config validation error: HEALTH_PROBE_PORT: must be an integer >= 0 and <= 65535, got "70000"',
    );
  });

  test('quotes a refused value redacted and bounded: an environment can hold a credential, or a megabyte', async () => {
    const value = `https://ops:Sup3rS3cret@proxy.example.com/${'x'.repeat(100_000)}`;
    const message = await optionsIn({ HEALTH_PROBE_BIND_ADDRESS: value }).then(
      () => 'started',
      (error: unknown) => (error as Error).message,
    );
    expect(message).toContain('HEALTH_PROBE_BIND_ADDRESS: must be an IPv4 or IPv6 address, got "https://');
    expect(message).toContain(`… (${value.length} characters)`);
    expect(message).not.toContain('Sup3rS3cret');
    expect(message.length).toBeLessThan(300);
  });

  test.each([
    [{ LEADER_ELECT: 'yes' }, 'LEADER_ELECT: must be true or false, got "yes"'],
    [
      { LEADER_ELECT_LEASE_DURATION_MS: '2500' },
      'LEADER_ELECT_LEASE_DURATION_MS: must be a whole number of seconds, >= 1000 (the Lease holds seconds), got "2500"',
    ],
    [{ LEADER_ELECT_RETRY_PERIOD_MS: '0' }, 'LEADER_ELECT_RETRY_PERIOD_MS: must be an integer >= 1, got "0"'],
    [{ WORKERS: 'two' }, 'WORKERS: must be an integer >= 1, got "two"'],
    [{ RESYNC_PERIOD_MS: '1.5' }, 'RESYNC_PERIOD_MS: must be an integer >= 0, got "1.5"'],
    [
      { HEALTH_PROBE_BIND_ADDRESS: 'localhost' },
      'HEALTH_PROBE_BIND_ADDRESS: must be an IPv4 or IPv6 address, got "localhost"',
    ],
    [{ MIRROR_SOURCES: 'anywhere' }, 'MIRROR_SOURCES: must be own-namespace or any-namespace, got "anywhere"'],
    [{ MIRROR_TARGETS: 'all' }, 'MIRROR_TARGETS: must be opted-in or any-namespace, got "all"'],
    [
      { LEADER_ELECT: 'true', LEADER_ELECT_RENEW_DEADLINE_MS: '20000' },
      'LEADER_ELECT: leader election: the lease duration (15000 ms) must be greater than the renew deadline (20000 ms)',
    ],
  ])('%j is refused, naming the variable', async (env, message) => {
    await expect(optionsIn(env)).rejects.toThrow(message);
  });

  test('every error at once, one line per variable', async () => {
    await expect(optionsIn({ WORKERS: '0', MIRROR_TARGETS: 'all' })).rejects.toThrow(
      'Config validation error: MIRROR_TARGETS: must be opted-in or any-namespace, got "all"\n' +
        'WORKERS: must be an integer >= 1, got "0"',
    );
  });

  test('a blank variable is unset; LEADER_ELECT takes true/false/1/0; timings are only checked with leader election', () => {
    const parse = (env: Record<string, string>) => operatorEnvironment.parse(env).operator;
    expect(parse({ WORKERS: ' ', LEADER_ELECT: '' })).toMatchObject({ workers: 2, leaderElect: false });
    expect(parse({ LEADER_ELECT: 'TRUE' }).leaderElect).toBe(true);
    expect(parse({ LEADER_ELECT: '1' }).leaderElect).toBe(true);
    expect(parse({ LEADER_ELECT: '0' }).leaderElect).toBe(false);
    expect(() => parse({ LEADER_ELECT: 'false', LEADER_ELECT_RENEW_DEADLINE_MS: '20000' })).not.toThrow();
  });

  test('without POD_NAME, a candidate gets the host name and a random suffix: two processes on one host differ', () => {
    const a = resolveOperatorOptions({}, { LEADER_ELECT: 'true' });
    const b = resolveOperatorOptions({}, { LEADER_ELECT: 'true' });
    expect(a.instance).toMatch(/-[0-9a-f]{6}$/);
    expect(a.instance).not.toBe(b.instance);
    // Without leader election the host name alone.
    expect(resolveOperatorOptions().instance).not.toMatch(/-[0-9a-f]{6}$/);
  });

  test('options given in code go over the environment', () => {
    const options = resolveOperatorOptions(
      { instance: 'script', workers: 1 },
      { WORKERS: '4', POD_NAME: 'pod-a', RESYNC_PERIOD_MS: '0' },
    );
    expect(options).toMatchObject({ instance: 'script', workers: 1, resyncPeriodMs: 0 });
  });
});
