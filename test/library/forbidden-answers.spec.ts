// A 403 is a verdict only when the recorder's own SelfSubjectAccessReview confirms it: one the review
// contradicts (a kube-apiserver still syncing its RBAC after a restart) is retried, the resumeSeries lookup
// with it, so that no second Event starts beside the one a series shares; and an occurrence promised as
// queued is written or counted as dropped, never turned into a failed write.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  KubeEventsHealth,
  KubeEventsModule,
  PublishApiError,
  type KubeEventsModuleOptions,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { eventually } from '../support/eventually.js';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

const isList = (request: RecordedRequest) => request.verb === 'list';

describe('403 answers', () => {
  let server: FakeApiServer;
  const apps: TestingModule[] = [];
  let outcomes: PublishOutcome[];
  let logged: string[];

  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig(), ...options }),
      ],
    }).compile();
    await app.init();
    apps.push(app);
    const recorder = app.get(EventRecorder);
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    await eventually('the start-up review', () => app.get(KubeEventsHealth).state().permissions.scope !== 'pending');
    return { app, recorder };
  };

  beforeEach(async () => {
    server = await FakeApiServer.start();
    outcomes = [];
    logged = captureLogLines(['warn', 'log']);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await server.close();
    jest.restoreAllMocks();
  });

  it('retries a write refused 403 where the review allows it, and writes it', async () => {
    const { recorder } = await start({ timeout: 5_000 });
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden: RBAC: role not found');

    await recorder.publish(configMap(), syncFailed);

    expect(server.verbs().filter((verb) => verb === 'create')).toHaveLength(2);
    expect(server.events()).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['failed', 'created']);
  });

  it('retries a resumeSeries lookup refused 403 where the review allows it, and continues the shared series', async () => {
    const first = await start({ resumeSeries: true });
    await first.recorder.publish(configMap(), syncFailed);
    // Another replica, started while the server's authorizer still refuses what the Role allows.
    server.failNext(403, isList, 'Forbidden', 'events.events.k8s.io is forbidden');
    const second = await start({ resumeSeries: true, timeout: 5_000 });

    await second.recorder.publish(configMap(), syncFailed);

    expect(server.events()).toHaveLength(1);
    expect(server.events()[0].series?.count).toBe(2);
    // The first replica's lookup, the second's refused one, and its retry.
    expect(server.verbs().filter((verb) => verb === 'list')).toHaveLength(3);
  });

  it('takes a 403 the review confirms as final, and says which verbs are missing', async () => {
    server.answerAccessReviews((review) => ({ allowed: review.verb !== 'create' }));
    const { recorder } = await start({ timeout: 5_000 });
    await eventually('the finding', () => logged.some((line) => line.includes('may not create events')));
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');

    const refused = await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(PublishApiError);
    expect(refused).toMatchObject({ statusCode: 403, queued: false });
    expect(server.verbs().filter((verb) => verb === 'create')).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['failed']);
  });

  it('does not believe a review that denies while the server is not ready (its RBAC still syncing), and writes once allowed', async () => {
    // A server that has just started serving: /readyz says 500, and its authorizer denies what its Roles grant.
    server.setReady(false);
    server.answerAccessReviews(() => ({ allowed: false }));
    const { app, recorder } = await start({ timeout: 5_000, resumeSeries: true });
    server.failNextTimes(2, 403, 'GET');
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');
    const publishing = recorder.publish(configMap(), syncFailed);

    await eventually('a review during the refusals', () => server.requestsFor(isList).length >= 2);
    server.setReady(true);
    server.answerAccessReviews(() => ({ allowed: true }));

    await publishing;
    expect(server.events()).toHaveLength(1);
    // The lookup was retried, not taken as "no list right", and nothing was said missing.
    expect(server.requestsFor(isList).filter((request) => request.status === 200)).toHaveLength(1);
    expect(logged.filter((line) => line.includes('may not'))).toEqual([]);
    expect(app.get(KubeEventsHealth).state().permissions.missing).toEqual([]);
  });

  it('counts an occurrence promised as queued as dropped when its retry is refused for good', async () => {
    server.answerAccessReviews((review) => ({ allowed: review.verb !== 'create' }));
    const { app, recorder } = await start({ timeout: 300 });
    await eventually('the finding', () => logged.some((line) => line.includes('may not create events')));
    // Unavailable for longer than the publish's timeout: the publish is told its occurrence stays queued.
    server.failNextTimes(3, 503, 'POST');
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');

    const told = await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);
    expect(told).toMatchObject({ queued: true });

    const dropped = await eventually('the drop', () => outcomes.find((outcome) => outcome.kind === 'dropped'), {
      timeoutMs: 10_000,
    });
    expect(dropped).toMatchObject({ count: 1 });
    const failedWith = outcomes
      .filter((outcome) => outcome.kind === 'failed')
      .map((outcome) => (outcome.error as PublishApiError | undefined)?.statusCode);
    expect(failedWith).toEqual([503, 503, 503]);
    expect(app.get(KubeEventsHealth).state().occurrences).toEqual({ queued: 0, retrying: 0, dropped: 1 });
    expect(
      logged.filter((line) => line.includes('refused their write for good after it had been queued')),
    ).toHaveLength(1);
  });

  it('does not believe a 403 right after the server came back, asks again, and writes once it is allowed', async () => {
    await server.close();
    server = await FakeApiServer.start({ refusable: true });
    // Found missing at start-up, as a server that had not synced its RBAC would answer.
    server.answerAccessReviews((review) => ({ allowed: review.verb !== 'create' }));
    const { app, recorder } = await start({ timeout: 1_000 });
    await eventually('the finding', () => app.get(KubeEventsHealth).state().permissions.missing.length > 0);
    await server.stopListening();
    expect(await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error)).toMatchObject({
      queued: true,
    });

    await server.listenAgain();
    server.answerAccessReviews(() => ({ allowed: true }));
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');

    await eventually('the Event written', () => server.events().length === 1, { timeoutMs: 10_000 });
    expect(outcomes.some((outcome) => outcome.kind === 'dropped')).toBe(false);
    expect(app.get(KubeEventsHealth).state().permissions.missing).toEqual([]);
  });
});
