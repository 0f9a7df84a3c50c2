// The recorder's check of its own RBAC (SelfSubjectAccessReview) and its health, against the fake API server:
// what a denial, a failed review and a review that never comes back do to the log, the state and the publishes.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Controller, Get, type HttpException, Logger, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { ModuleRef } from '@nestjs/core';
import { HealthCheck, HealthCheckService, type HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import {
  EventRecorder,
  KubeEventsHealth,
  KubeEventsModule,
  getEventRecorderToken,
  getKubeEventsHealthToken,
  type KubeEventsHealthState,
  type KubeEventsModuleOptions,
} from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { FakeApiServer, type AccessReview } from '../support/fake-api-server/index.js';
import { eventually } from '../support/eventually.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap } from '../support/objects.js';

const inNamespace = (namespace: string, name = 'app') =>
  configMap(name, { namespace, uid: `uid-${namespace}-${name}` });
const synced = { type: 'Normal' as const, reason: 'Synced', action: 'Sync' };
const reporter = { controller: 'example.com/widgets' };

@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly kubeEvents: KubeEventsHealthIndicator,
  ) {}

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.kubeEvents.isHealthy()]);
  }
}

@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [KubeEventsHealthIndicator] })
class HealthModule {}

/**
 * `HealthIndicatorService` of @nestjs/terminus 11.x, as it is written there: its sessions know `up` and `down`
 * only (its checks leave an indicator of any other status out of their answer).
 */
class Terminus11HealthIndicatorService {
  check<const Key extends string>(key: Key) {
    const compose = (status: 'up' | 'down', data: Record<string, unknown> = {}) => {
      if ('status' in data) throw new Error('"status" is a reserved key and cannot be used in additional data');
      return { [key]: { ...data, status } } as Record<Key, { status: 'up' | 'down' }>;
    };
    return {
      up: (data?: Record<string, unknown>) => compose('up', data),
      down: (data?: Record<string, unknown>) => compose('down', data),
    };
  }
}

describe('the permission check', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let warn: jest.SpiedFunction<Logger['warn']>;
  let log: jest.SpiedFunction<Logger['log']>;
  let app: TestingModule | undefined;

  const warnings = () => warn.mock.calls.map(([message]) => String(message));
  const permissionLines = () => warnings().filter((line) => line.includes('events.k8s.io'));
  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter, kubeConfig, ...options }), HealthModule],
    }).compile();
    await app.init();
    return app;
  };
  const stateOf = (started: TestingModule): KubeEventsHealthState => started.get(KubeEventsHealth).state();
  /** Denies every verb in every namespace but those given. */
  const allowOnlyIn =
    (...namespaces: string[]) =>
    (review: AccessReview) => ({ allowed: review.namespace !== undefined && namespaces.includes(review.namespace) });

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
    warn = muteLogger('warn');
    log = muteLogger('log');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    jest.restoreAllMocks();
    await server.close();
  });

  it('asks once, cluster-wide, for create, get and patch on events of events.k8s.io, and says nothing when all is granted', async () => {
    const started = await start();
    const reviews = await server.waitForAccessReviews(3);
    expect(reviews.map(({ verb, namespace, group, resource }) => [verb, namespace, group, resource])).toEqual([
      ['create', undefined, 'events.k8s.io', 'events'],
      ['get', undefined, 'events.k8s.io', 'events'],
      ['patch', undefined, 'events.k8s.io', 'events'],
    ]);
    await eventually('the review', () => stateOf(started).permissions.scope === 'cluster-wide');
    await started.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(server.accessReviews).toHaveLength(3);
    expect(permissionLines()).toEqual([]);
    expect(stateOf(started)).toMatchObject({ writable: true, problems: [] });
  });

  it('asks for list too with resumeSeries', async () => {
    await start({ resumeSeries: true });
    const reviews = await server.waitForAccessReviews(4);
    expect(reviews.map((review) => review.verb)).toEqual(['create', 'get', 'patch', 'list']);
  });

  it('says at start-up, once, in one line, what is missing where and which manifest grants it, and warns of it while nothing is published there', async () => {
    server.answerAccessReviews((review) => ({ allowed: review.verb === 'get' }));
    const started = await start();
    const [line] = await eventually('the warn line', () => (permissionLines().length ? permissionLines() : undefined));
    expect(line).toBe(
      'Events of example.com/widgets cannot all be written: system:serviceaccount:default:fake-controller may not ' +
        'create, patch events in API group events.k8s.io in namespace "default" (nor cluster-wide). Grant ' +
        'node_modules/nestjs-kube-events/rbac/role.yaml there (docs/operations.md#rbac).',
    );
    expect(line.length).toBeLessThanOrEqual(320);
    const state = stateOf(started);
    expect(state.writable).toBe(true);
    expect(state.permissions).toMatchObject({
      mode: 'warn',
      scope: 'per-namespace',
      missing: [{ namespace: 'default', verbs: ['create', 'patch'], published: false }],
    });
    expect(state.problems).toEqual([]);
    expect(state.warnings).toEqual([
      'may not create, patch events.k8s.io events in namespace "default", where nothing was published yet',
    ]);
    expect(started.get(KubeEventsHealthIndicator).isHealthy()['kube-events']).toMatchObject({
      status: 'up',
      permissions: { missingWherePublished: 0, missingElsewhere: 1 },
      warnings: 1,
    });
  });

  it('reports down, in words and counts, when a publish is refused for rights in the namespace it goes to', async () => {
    server.answerAccessReviews((review) => ({ allowed: review.verb === 'get' }));
    const started = await start();
    await eventually('the start-up finding', () => stateOf(started).permissions.missing.length > 0);
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');
    await expect(started.get(EventRecorder).publish(inNamespace('default'), synced)).rejects.toThrow(/403/);

    const state = stateOf(started);
    expect(state.writable).toBe(false);
    expect(state.permissions.missing).toEqual([{ namespace: 'default', verbs: ['create', 'patch'], published: true }]);
    expect(state.problems).toEqual(['may not create, patch events.k8s.io events in namespace "default"']);
    const indicator = started.get(KubeEventsHealthIndicator);
    const body = indicator.isHealthy()['kube-events'];
    expect(body).toEqual({
      status: 'down',
      writable: false,
      server: 'reachable',
      credentials: 'working',
      permissions: { scope: 'per-namespace', missingWherePublished: 1, missingElsewhere: 0, unknown: 0 },
      problems: 1,
      degraded: 0,
      throttled: false,
      warnings: 0,
      occurrences: { queued: 0, retrying: 0, dropped: 0 },
    });
    expect(JSON.stringify(body)).not.toContain('default');
    expect(
      await started
        .get(HealthController)
        .ready()
        .catch((error: unknown) => (error as HttpException).getResponse()),
    ).toMatchObject({
      status: 'error',
      error: { 'kube-events': { status: 'down', writable: false } },
    });

    // A publish there that is written (the fake has no RBAC) clears the finding.
    await started.get(EventRecorder).publish(inNamespace('default'), synced);
    expect(permissionLines()).toHaveLength(1);
    expect(stateOf(started)).toMatchObject({ writable: true, permissions: { missing: [] } });
    expect(indicator.isHealthy()['kube-events'].status).toBe('up');
  });

  it('reviews a namespace the first time it publishes there, alongside the write, and names that namespace once', async () => {
    server.answerAccessReviews(allowOnlyIn('default', 'ns-a'));
    const started = await start();
    const recorder = started.get(EventRecorder);
    await eventually('the start-up review', () => stateOf(started).permissions.scope === 'per-namespace');
    await server.waitForAccessReviews(6);
    expect(permissionLines()).toEqual([]);

    await recorder.publish(inNamespace('ns-a'), synced);
    await server.waitForAccessReviews(9);
    await recorder.publish(inNamespace('ns-b'), synced);
    await recorder.publish(inNamespace('ns-b', 'other'), synced);
    const lines = await eventually('the warn line', () => (permissionLines().length ? permissionLines() : undefined));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('may not create, get, patch events in API group events.k8s.io in namespace "ns-b"');
    expect(lines[0]).toContain('Grant node_modules/nestjs-kube-events/rbac/role.yaml there');
    expect(server.accessReviews.filter((review) => review.namespace === 'ns-b')).toHaveLength(3);
    expect(server.accessReviews.filter((review) => review.namespace === 'ns-a')).toHaveLength(3);
  });

  it('reports degraded, not down, while rights are missing in some namespaces published to but not in the others', async () => {
    server.answerAccessReviews(allowOnlyIn('default', 'ns-a'));
    const started = await start();
    const recorder = started.get(EventRecorder);
    await eventually('the start-up review', () => stateOf(started).permissions.scope === 'per-namespace');
    await recorder.publish(inNamespace('ns-a'), synced);
    // Refused as the real server's RBAC would: the first 403 comes before the review of ns-b says why, and is retried.
    server.failNextTimes(3, 403, (request) => request.namespace === 'ns-b', {
      reason: 'Forbidden',
      message: 'events.events.k8s.io is forbidden',
    });
    await expect(recorder.publish(inNamespace('ns-b'), synced)).rejects.toThrow(/403/);

    const state = stateOf(started);
    expect(state).toMatchObject({ writable: true, problems: [], throttled: false });
    expect(state.degraded).toEqual(['may not create, get, patch events.k8s.io events in namespace "ns-b"']);
    const body = started.get(KubeEventsHealthIndicator).isHealthy()['kube-events'];
    expect(body).toMatchObject({
      status: 'degraded',
      writable: true,
      permissions: { missingWherePublished: 1 },
      problems: 0,
      degraded: 1,
    });
    expect(JSON.stringify(body)).not.toContain('ns-b');
    // Terminus answers 200 with the overall status degraded.
    expect(await started.get(HealthController).ready()).toMatchObject({
      status: 'degraded',
      info: { 'kube-events': { status: 'degraded' } },
    });
  });

  it("with permissionCheck: 'fail', stops start-up with the same message", async () => {
    server.answerAccessReviews(() => ({ allowed: false }));
    const failed = await start({ permissionCheck: 'fail' }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failed).toBeInstanceOf(Error);
    expect(failed!.message).toContain(
      'may not create, get, patch events in API group events.k8s.io in namespace "default" (nor cluster-wide)',
    );
    expect(permissionLines()).toEqual([]);
  });

  it("with permissionCheck: 'off', asks nothing", async () => {
    const started = await start({ permissionCheck: 'off' });
    await started.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(server.accessReviews).toEqual([]);
    expect(stateOf(started).permissions).toMatchObject({ mode: 'off', scope: 'off' });
  });

  it('refuses a permissionCheck that is not warn, fail or off, naming the field', async () => {
    await expect(start({ permissionCheck: 'loud' as 'warn' })).rejects.toThrow(
      /permissionCheck must be 'warn', 'fail' or 'off'/,
    );
  });

  it('counts a review that fails (5xx) as unknown, never missing, and publishes as always', async () => {
    server.answerAccessReviews(() => ({ status: 503, reason: 'ServiceUnavailable' }));
    const started = await start({ permissionCheck: 'fail' });
    await started.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(server.events()).toHaveLength(1);
    const state = await eventually('the failed review', () => {
      const current = stateOf(started);
      return current.permissions.unknown.length ? current : undefined;
    });
    expect(state.permissions.missing).toEqual([]);
    expect(state.permissions.unknown[0]).toEqual({ why: 'the review was answered 503 ServiceUnavailable' });
    expect(state.writable).toBe(true);
    expect(permissionLines()).toEqual([]);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('could not be checked cluster-wide'));
  });

  it('stops reviewing on a server without the review API (404): unknown, and nothing more is asked', async () => {
    server.answerAccessReviews(() => ({ status: 404, reason: 'NotFound' }));
    const started = await start();
    await eventually('the failed review', () => stateOf(started).permissions.scope === 'unknown');
    await started.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(server.accessReviews).toHaveLength(3);
    expect(stateOf(started)).toMatchObject({ writable: true, permissions: { missing: [] } });
  });

  it('never delays a publish for a review the server does not answer, and gives the review up after the timeout', async () => {
    server.answerAccessReviews(() => ({ hang: true }));
    const started = await start({ timeout: 3_000 });
    await server.waitForAccessReviews(3);
    await started.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(server.events()).toHaveLength(1);
    expect(stateOf(started).permissions.scope).toBe('pending');
    const state = await eventually('the review to time out', () => {
      const current = stateOf(started);
      return current.permissions.unknown.length ? current : undefined;
    });
    expect(state.permissions.unknown[0]).toEqual({ why: 'no answer within 3000 ms' });
    expect(state.permissions.missing).toEqual([]);
    expect(state.writable).toBe(true);
  });

  it("with permissionCheck: 'fail', a review the server does not answer lets start-up go on after the timeout", async () => {
    server.answerAccessReviews((review) => (review.namespace === undefined ? { hang: true } : { allowed: true }));
    const started = await start({ permissionCheck: 'fail', timeout: 300 });
    expect(stateOf(started).permissions).toMatchObject({ scope: 'per-namespace', missing: [] });
  });

  it('reports the health of a named recorder, and says when no recorder is registered under a name', async () => {
    server.answerAccessReviews(() => ({ allowed: false }));
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ name: 'mirror', reporter, kubeConfig }), HealthModule],
    }).compile();
    await app.init();
    const health = app.get<KubeEventsHealth>(getKubeEventsHealthToken('mirror'));
    await eventually('the finding', () => health.state().permissions.missing.length > 0);
    const indicator = app.get(KubeEventsHealthIndicator);
    expect(indicator.isHealthy('events', { recorder: 'mirror' }).events).toMatchObject({ status: 'up', warnings: 1 });
    server.failNext(403, 'POST', 'Forbidden');
    const recorder = app.get<EventRecorder>(getEventRecorderToken('mirror'));
    await expect(recorder.publish(inNamespace('default'), synced)).rejects.toThrow(/403/);
    expect(indicator.isHealthy('events', { recorder: 'mirror' }).events.status).toBe('down');
    expect(() => indicator.isHealthy()).toThrow(/no default recorder is registered/);
  });
});

describe('the health state', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;

  /** The recorder on the fake API server, without the permission check, and the health endpoint, initialised. */
  const startWithHealth = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    const started = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter, kubeConfig: server.kubeConfig(), permissionCheck: 'off', ...options }),
        HealthModule,
      ],
    }).compile();
    app = started;
    await started.init();
    return started;
  };

  beforeEach(async () => {
    server = await FakeApiServer.start({ refusable: true });
    muteLogger('warn');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    jest.restoreAllMocks();
    await server.close();
  });

  it('says since when and why the server is unreachable, up within the timeout and down past it, and counts what is queued', async () => {
    app = await startWithHealth({ timeout: 1_500 });
    const recorder = app.get(EventRecorder);
    const health = app.get(KubeEventsHealth);
    const indicator = app.get(KubeEventsHealthIndicator);
    expect(health.state()).toMatchObject({
      writable: true,
      server: { reachable: true },
      credentials: { working: true },
      occurrences: { queued: 0, retrying: 0, dropped: 0 },
    });

    await server.stopListening();
    await recorder.publish(inNamespace('ns-a'), synced).catch(() => undefined);
    const state = health.state();
    // Unreachable, but not yet for longer than the timeout: Events may still get through, and wait queued meanwhile.
    expect(state).toMatchObject({ writable: true, occurrences: { queued: 1, retrying: 1 } });
    expect(state.degraded).toEqual(['1 occurrence(s) wait queued to retry a failed write']);
    expect(indicator.isHealthy()['kube-events']).toMatchObject({
      status: 'degraded',
      degraded: 1,
      occurrences: { queued: 1, retrying: 1 },
    });
    expect(state.server).toMatchObject({ reachable: false, why: expect.stringContaining('could not be reached') });
    expect(!state.server.reachable && state.server.since).toBeInstanceOf(Date);

    const down = await eventually('the timeout to pass', () => {
      const current = health.state();
      return current.writable ? undefined : current;
    });
    expect(down.problems).toEqual([expect.stringContaining('the API server has been unreachable since')]);
    expect(indicator.isHealthy()['kube-events'].status).toBe('down');

    await server.listenAgain();
    // Publishes made while it is down are told so at once, until a probe finds it back.
    await eventually('a publish written once the server is back', () =>
      recorder.publish(inNamespace('ns-a', 'other'), synced).then(
        () => true,
        () => undefined,
      ),
    );
    await recorder.flush();
    expect(health.state()).toMatchObject({ writable: true, server: { reachable: true }, occurrences: { queued: 0 } });
    expect(indicator.isHealthy()['kube-events'].status).toBe('up');
  });

  it('reports degraded while the server throttles the writes (429), the details saying so', async () => {
    app = await startWithHealth();
    const indicator = app.get(KubeEventsHealthIndicator);
    await app.get(EventRecorder).publish(inNamespace('ns-a'), synced);
    expect(indicator.isHealthy()['kube-events']).toMatchObject({ status: 'up', throttled: false, degraded: 0 });

    // What an observer of the 429's outcome reads of the health: already throttled.
    let seenWithOutcome: unknown;
    app.get(EventRecorder).outcomes$.subscribe((outcome) => {
      if (outcome.kind === 'failed') seenWithOutcome = indicator.isHealthy()['kube-events'];
    });
    server.failNext(429, 'POST', { retryAfterSeconds: 0 });
    await app.get(EventRecorder).publish(inNamespace('ns-a', 'other'), synced);

    expect(seenWithOutcome).toMatchObject({ status: 'degraded', throttled: true });
    expect(app.get(KubeEventsHealth).state()).toMatchObject({
      writable: true,
      throttled: true,
      degraded: ['the API server throttles the writes (429 or 503): they go below the configured rate'],
    });
    expect(indicator.isHealthy()['kube-events']).toMatchObject({
      status: 'degraded',
      writable: true,
      throttled: true,
      degraded: 1,
    });
    expect(await app.get(HealthController).ready()).toMatchObject({ status: 'degraded' });
  });

  it('says degraded as up, with the degraded count, to a terminus without that status (11.x)', async () => {
    app = await startWithHealth();
    server.failNext(429, 'POST', { retryAfterSeconds: 0 });
    await app.get(EventRecorder).publish(inNamespace('ns-a'), synced);

    const indicator = new KubeEventsHealthIndicator(
      new Terminus11HealthIndicatorService() as unknown as HealthIndicatorService,
      app.get(ModuleRef),
    );
    expect(indicator.isHealthy()['kube-events']).toMatchObject({ status: 'up', throttled: true, degraded: 1 });
  });

  it('counts the occurrences dropped since start', async () => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter,
          kubeConfig: server.kubeConfig(),
          permissionCheck: 'off',
          writeControl: { maxPending: 1, qps: 0.001, burst: 1 },
        }),
      ],
    }).compile();
    await app.init();
    const recorder = app.get(EventRecorder);
    const publishes = Array.from({ length: 6 }, (_, i) =>
      recorder.publish(inNamespace('ns-a', `object-${i}`), synced).catch(() => undefined),
    );
    const { occurrences } = app.get(KubeEventsHealth).state();
    expect(occurrences.dropped).toBeGreaterThan(0);
    expect(occurrences.queued + occurrences.dropped).toBe(6);
    void Promise.all(publishes);
  });
});
