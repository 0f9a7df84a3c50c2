// What the permission check asks after a denial, while the API server says it is not ready (`/readyz` answers
// 500) or does not answer `/readyz` at all: few follow-ups, the missing right said once and shown in the health
// once the server has not been ready for longer than a start takes, and no follow-up ever holding a connection
// a write waits for.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  healthSummary,
  KubeEventsHealth,
  KubeEventsModule,
  type KubeEventsModuleOptions,
} from 'nestjs-kube-events';
import { eventually } from '../support/eventually.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

const inNamespace = (namespace: string, name = 'app') =>
  configMap(name, { namespace, uid: `uid-${namespace}-${name}` });

/**
 * The most follow-ups the check may send while the server is not ready, until the finding: the start-up reviews
 * (every namespace, the kubeconfig's), and one review of each namespace per pause (1 s, doubling) for the ten
 * seconds a start may take; `/readyz` at most once per five seconds.
 */
const MAX_REVIEWS = 40;
const MAX_READYZ = 5;

// The finding waits out the ten seconds a server may take to start.
jest.setTimeout(40_000);

describe('follow-ups of a denied review', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;
  let logged: string[];

  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig(), ...options }),
      ],
    }).compile();
    await app.init();
    return app;
  };

  beforeEach(async () => {
    server = await FakeApiServer.start();
    logged = captureLogLines(['warn', 'log']);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('asks few follow-ups while /readyz answers 500, then says the missing right once and is not writable', async () => {
    server.setReady(false);
    // Create is not granted, anywhere: the writes are refused 403, as the review says.
    server.answerAccessReviews((review) => ({ allowed: review.verb !== 'create' }));
    server.failNextTimes(1_000, 403, 'POST', { reason: 'Forbidden', message: 'events.events.k8s.io is forbidden' });
    const started = await start({ timeout: 1_000 });
    const recorder = started.get(EventRecorder);

    const publishes = Array.from({ length: 20 }, (_, i) =>
      recorder.publish(inNamespace('widgets', `object-${i}`), syncFailed).catch((error: unknown) => error),
    );
    await Promise.all(publishes);

    const missing = (line: string) => line.includes('may not create events') && line.includes('"widgets"');
    await eventually('the missing right said', () => logged.some(missing), { timeoutMs: 30_000 });
    expect(server.accessReviews.length).toBeLessThanOrEqual(MAX_REVIEWS);
    expect(server.readyzRequests).toBeLessThanOrEqual(MAX_READYZ);
    expect(logged.filter(missing)).toHaveLength(1);
    const state = started.get(KubeEventsHealth).state();
    expect(state.writable).toBe(false);
    expect(state.permissions.missing).toContainEqual({ namespace: 'widgets', verbs: ['create'], published: true });
    expect(healthSummary(state)).toMatchObject({ writable: false, permissions: { missingWherePublished: 1 } });
  });

  it('writes in an allowed namespace at once while the follow-ups of denials elsewhere wait on a /readyz that hangs', async () => {
    server.setReady('hang');
    // Denied in the eight `denied-*` namespaces (and so not cluster-wide), allowed everywhere else.
    server.answerAccessReviews((review) => ({
      allowed: review.namespace !== undefined && !review.namespace.startsWith('denied-'),
    }));
    const started = await start({ timeout: 60_000 });
    const recorder = started.get(EventRecorder);
    const denied = Array.from({ length: 8 }, (_, i) => `denied-${i}`);

    await Promise.all(denied.map((namespace) => recorder.publish(inNamespace(namespace), syncFailed)));
    await eventually('the denials reviewed, and /readyz asked', () =>
      denied.every((namespace) => server.accessReviews.some((review) => review.namespace === namespace))
        ? server.readyzRequests > 0
        : false,
    );

    await recorder.publish(inNamespace('allowed'), syncFailed);

    expect(server.events('allowed')).toHaveLength(1);
    // Every /readyz asked still hangs: none was given up, and the write did not wait for one.
    expect(server.aborted).toBe(0);
  });
});
