// `queued: true` is a promise: an occurrence a publish was told stays queued is written later, or dropped
// with a cause that says why (logged, a `dropped` outcome, counted in health), never given up silently.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  KubeEventsHealth,
  KubeEventsModule,
  type KubeEventsModuleOptions,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { eventually } from '../support/eventually.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { advanceUntilSeen } from '../support/fake-time.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

describe('an occurrence told it stays queued', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;
  let outcomes: PublishOutcome[];
  let logged: string[];

  const start = async (options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          permissionCheck: 'off',
          timeout: 200,
          ...options,
        }),
      ],
    }).compile();
    await app.init();
    const recorder = app.get(EventRecorder);
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    return recorder;
  };
  /** Publishes while every write is answered 503, and expects to be told the occurrence stays queued. */
  const toldQueued = async (recorder: EventRecorder) => {
    server.outage(60_000, { status: 503, match: 'POST' });
    const told = await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);
    expect(told).toMatchObject({ queued: true });
  };
  const drops = () => logged.filter((line) => line.startsWith('Dropped 1 occurrence(s) of SyncFailed'));

  beforeEach(async () => {
    server = await FakeApiServer.start();
    outcomes = [];
    logged = captureLogLines(['warn']);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('is written, and counted, once the server answers again', async () => {
    const recorder = await start();
    await toldQueued(recorder);
    server.endOutage();

    // The server stores the Event before its answer reaches the recorder, which then reports the outcome.
    await eventually(
      'the Event written and its outcome reported',
      () => server.events().length === 1 && outcomes.some((outcome) => outcome.kind === 'created'),
      { timeoutMs: 10_000 },
    );
    expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
    expect(drops()).toEqual([]);
  });

  it('is dropped, said and counted, when its write keeps failing past the series window', async () => {
    const clock = new FakeClock();
    const recorder = await start({ seriesWindow: 1_000, clock });
    server.outage(60_000, { status: 503, match: 'POST' });
    const told = recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);

    // The recorder's time passes while each retry is answered 503: the occurrence is given up past the window.
    const droppedAt = await advanceUntilSeen(clock, () => drops().length > 0, { stepMs: 50, limitMs: 10_000 });
    expect(await told).toMatchObject({ queued: true });
    expect(droppedAt).toBeGreaterThan(1_000);
    expect(drops()).toEqual([expect.stringContaining('their write kept failing for longer than the series window')]);
    expect(outcomes.filter((outcome) => outcome.kind === 'dropped')).toEqual([
      expect.objectContaining({ count: 1, dropCause: 'expired' }),
    ]);
    expect(app!.get(KubeEventsHealth).state().occurrences).toEqual({ queued: 0, retrying: 0, dropped: 1 });
  });

  it('is dropped, said and counted, when flush() runs out of time at shutdown', async () => {
    const recorder = await start();
    await toldQueued(recorder);

    await recorder.flush();

    expect(drops()).toEqual([expect.stringContaining('flush() ran out of time before they could be written')]);
    expect(outcomes.filter((outcome) => outcome.kind === 'dropped')).toEqual([
      expect.objectContaining({ count: 1, dropCause: 'flush' }),
    ]);
  });

  it('is dropped, said and counted, when its retry is refused for good', async () => {
    const recorder = await start();
    await toldQueued(recorder);
    server.endOutage();
    server.failNext(422, 'POST', 'Invalid', 'Event.events.k8s.io "app" is invalid');

    await eventually('the drop', () => drops().length > 0, { timeoutMs: 10_000 });
    expect(drops()).toEqual([
      expect.stringContaining('the API server refused their write for good after it had been queued for a retry'),
    ]);
    expect(outcomes.filter((outcome) => outcome.kind === 'dropped')).toEqual([
      expect.objectContaining({ count: 1, dropCause: 'refused' }),
    ]);
    expect(app!.get(KubeEventsHealth).state().occurrences).toEqual({ queued: 0, retrying: 0, dropped: 1 });
  });
});
