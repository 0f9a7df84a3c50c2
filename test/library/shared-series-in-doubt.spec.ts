// Replicas sharing a series (resumeSeries): a write left in doubt (its answer lost) counts as landed only when
// the Event carries its mark, never because another replica raised the count to or past its own.
import { jest } from '@jest/globals';
import { EventRecorder } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

describe('a shared series write left in doubt', () => {
  let server: FakeApiServer;
  const recorders: EventRecorder[] = [];

  const replica = () => {
    const recorder = new EventRecorder({
      reporter: { controller: 'widgets' },
      kubeConfig: server.kubeConfig(),
      resumeSeries: true,
      timeout: 5_000,
    });
    recorders.push(recorder);
    return recorder;
  };
  const seriesCount = () => server.events()[0]?.series?.count ?? (server.events().length ? 1 : 0);

  beforeEach(async () => {
    server = await FakeApiServer.start();
    muteLogger('warn');
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
    await server.close();
    jest.restoreAllMocks();
  });

  it('writes its occurrence again when another replica raised the count past its own and its write never landed', async () => {
    const a = replica();
    const b = replica();
    await a.publish(configMap(), syncFailed);
    // A's patch is reset twice before it is applied: in doubt, it waits for its retry.
    server.resetNext('PATCH').resetNext('PATCH');
    // Two connections lost in a row: A's publish is told it stays queued.
    const aTold = a.publish(configMap(), syncFailed).then(
      () => undefined,
      (error: unknown) => error,
    );
    await server.waitForRequests(2, 'PATCH');
    // Meanwhile B continues the series twice: the count passes A's target.
    await b.publish(configMap(), syncFailed);
    await b.publish(configMap(), syncFailed);
    expect(seriesCount()).toBe(3);

    expect(await aTold).toMatchObject({ queued: true });
    await a.flush();

    expect(server.events()).toHaveLength(1);
    expect(seriesCount()).toBe(4);
  });

  it('takes its write as landed when the Event carries its mark, whatever was written after it', async () => {
    const a = replica();
    const b = replica();
    await a.publish(configMap(), syncFailed);
    // A's patch applies but its answer is lost; sent again, that try is reset: in doubt, it waits for its retry.
    server.loseAnswerNext('PATCH').resetNext('PATCH');
    // Two connections lost in a row: A's publish is told it stays queued.
    const aTold = a.publish(configMap(), syncFailed).then(
      () => undefined,
      (error: unknown) => error,
    );
    await server.waitForRequests(2, 'PATCH');
    await b.publish(configMap(), syncFailed);
    expect(seriesCount()).toBe(3);

    expect(await aTold).toMatchObject({ queued: true });
    await a.flush();

    expect(server.events()).toHaveLength(1);
    expect(seriesCount()).toBe(3);
    expect(server.events()[0].metadata.annotations?.['nestjs-kube-events/writes']?.split(',')).toHaveLength(3);
  });
});
