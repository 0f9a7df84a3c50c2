import { operatorOptionsFromEnv, resolveOperatorOptions } from './operator.options.js';

describe('operator options', () => {
  test('leader election is off by default, with client-go timings and a Lease named after the operator', () => {
    const resolved = resolveOperatorOptions(operatorOptionsFromEnv({}), { POD_NAMESPACE: 'ops' });
    expect(resolved.leaderElect).toBe(false);
    expect(resolved.leaderElection).toEqual({
      leaseName: 'configmirror-controller',
      namespace: 'ops',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(resolved.healthProbePort).toBeUndefined();
  });

  test('LEADER_ELECT, POD_NAME, POD_NAMESPACE, the timings and HEALTH_PROBE_PORT from the environment', () => {
    const env = {
      LEADER_ELECT: 'true',
      POD_NAME: 'configmirror-controller-7d9f-abcde',
      POD_NAMESPACE: 'configmirror-system',
      LEADER_ELECT_LEASE_DURATION_MS: '3000',
      LEADER_ELECT_RENEW_DEADLINE_MS: '2000',
      LEADER_ELECT_RETRY_PERIOD_MS: '500',
      HEALTH_PROBE_PORT: '8081',
    };
    const resolved = resolveOperatorOptions(operatorOptionsFromEnv(env), env);
    expect(resolved).toMatchObject({
      leaderElect: true,
      instance: 'configmirror-controller-7d9f-abcde',
      healthProbePort: 8081,
      leaderElection: {
        leaseName: 'configmirror-controller',
        namespace: 'configmirror-system',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 500,
      },
    });
    // Resolving again changes nothing (startOperator resolves, then the module does).
    expect(resolveOperatorOptions(resolved, {})).toEqual(resolved);
  });

  test('without POD_NAME, a candidate gets the host name and a random suffix: two processes on one host differ', () => {
    const a = resolveOperatorOptions({ leaderElect: true }, { POD_NAMESPACE: 'x' });
    const b = resolveOperatorOptions({ leaderElect: true }, { POD_NAMESPACE: 'x' });
    expect(a.instance).toMatch(/-[0-9a-f]{6}$/);
    expect(a.instance).not.toBe(b.instance);
    // Without leader election the host name alone, as before.
    expect(resolveOperatorOptions({}, {}).instance).not.toMatch(/-[0-9a-f]{6}$/);
  });

  test.each([
    [{ LEADER_ELECT: 'yes' }, 'LEADER_ELECT must be true or false, got "yes"'],
    [{ LEADER_ELECT_LEASE_DURATION_MS: '2500' }, 'LEADER_ELECT_LEASE_DURATION_MS must be a whole number of seconds'],
    [{ LEADER_ELECT_LEASE_DURATION_MS: '500' }, 'LEADER_ELECT_LEASE_DURATION_MS must be an integer >= 1000, got "500"'],
    [{ LEADER_ELECT_RETRY_PERIOD_MS: '0' }, 'LEADER_ELECT_RETRY_PERIOD_MS must be an integer >= 1, got "0"'],
    [{ HEALTH_PROBE_PORT: '70000' }, 'HEALTH_PROBE_PORT must be an integer >= 0 and <= 65535, got "70000"'],
    [
      { HEALTH_PROBE_BIND_ADDRESS: 'localhost' },
      'HEALTH_PROBE_BIND_ADDRESS must be an IPv4 or IPv6 address, got "localhost"',
    ],
    [{ MIRROR_SOURCES: 'anywhere' }, 'MIRROR_SOURCES must be one of own-namespace, any-namespace, got "anywhere"'],
    [{ MIRROR_TARGETS: 'all' }, 'MIRROR_TARGETS must be one of opted-in, any-namespace, got "all"'],
  ])('%j is refused, naming the variable', (env, message) => {
    expect(() => operatorOptionsFromEnv(env)).toThrow(message);
  });

  test('the namespace rules are the narrow ones unless widened; the health server binds everywhere unless told', () => {
    expect(resolveOperatorOptions({}, {})).toMatchObject({ mirrorSources: 'own-namespace', mirrorTargets: 'opted-in' });
    expect(resolveOperatorOptions({}, {}).healthProbeBindAddress).toBeUndefined();
    const env = { MIRROR_SOURCES: 'any-namespace', MIRROR_TARGETS: 'any-namespace', HEALTH_PROBE_BIND_ADDRESS: '::1' };
    expect(resolveOperatorOptions(operatorOptionsFromEnv(env), env)).toMatchObject({
      mirrorSources: 'any-namespace',
      mirrorTargets: 'any-namespace',
      healthProbeBindAddress: '::1',
    });
    expect(() => resolveOperatorOptions({ mirrorTargets: 'everywhere' as never }, {})).toThrow(
      'mirrorTargets must be one of opted-in, any-namespace, got "everywhere"',
    );
    expect(() => resolveOperatorOptions({ healthProbeBindAddress: 'pod.local' }, {})).toThrow(
      'healthProbeBindAddress must be an IPv4 or IPv6 address, got "pod.local"',
    );
  });

  test('accepts LEADER_ELECT=false/0/1 and leaves it unset when empty', () => {
    expect(operatorOptionsFromEnv({ LEADER_ELECT: 'false' }).leaderElect).toBe(false);
    expect(operatorOptionsFromEnv({ LEADER_ELECT: '0' }).leaderElect).toBe(false);
    expect(operatorOptionsFromEnv({ LEADER_ELECT: '1' }).leaderElect).toBe(true);
    expect(operatorOptionsFromEnv({ LEADER_ELECT: '' }).leaderElect).toBeUndefined();
  });

  test("timings that break client-go's rules are refused when leader election is on", () => {
    const env = { LEADER_ELECT: 'true', LEADER_ELECT_RENEW_DEADLINE_MS: '20000', POD_NAMESPACE: 'x' };
    expect(() => resolveOperatorOptions(operatorOptionsFromEnv(env), env)).toThrow(
      'leader election: the lease duration (15000 ms) must be greater than the renew deadline (20000 ms)',
    );
    // ...and ignored when it is off.
    const off = { ...env, LEADER_ELECT: 'false' };
    expect(() => resolveOperatorOptions(operatorOptionsFromEnv(off), off)).not.toThrow();
  });
});
