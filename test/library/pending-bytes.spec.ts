// What waits to be written during an outage is bounded in bytes as well as in count (writeControl.maxPendingBytes):
// past it a publish that needs one more waiting write is dropped, as past maxPending; repeats take no room.
import { DEFAULT_WRITE_CONTROL, EventRecorder, PublishError, type KubeEvent } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { recordersOf } from '../support/fake-server-recorders.js';
import { settle, type Settled } from '../support/settled.js';

const KB = 1024;
/** A failure carrying 100 KB of annotations, as an operator attaching a diff or a manifest would publish. */
const withLargeAnnotation: KubeEvent = { ...syncFailed, annotations: { 'example.com/diff': 'd'.repeat(100 * KB) } };

describe('what waits during an outage, bounded in bytes', () => {
  let server: FakeApiServer;
  const { recorderWith, shutDown } = recordersOf(() => server);

  beforeEach(async () => {
    server = await FakeApiServer.start({ refusable: true });
  });
  afterEach(async () => {
    await server.listenAgain();
    await shutDown();
    await server.close();
  }, 20_000);

  const queued = (results: readonly Settled[]) => results.filter((result) => result !== 'resolved' && result.queued);
  const dropped = (results: readonly Settled[]) => results.filter((result) => result !== 'resolved' && !result.queued);

  it('defaults to 32 MiB', () => {
    expect(DEFAULT_WRITE_CONTROL.maxPendingBytes).toBe(32 * 1024 * KB);
  });

  it('fails start-up naming the field when it is not a positive integer', () => {
    expect(() => recorderWith({ writeControl: { maxPendingBytes: 0 } })).toThrow(/writeControl\.maxPendingBytes/);
    expect(() => recorderWith({ writeControl: { maxPendingBytes: 1.5 } })).toThrow(/writeControl\.maxPendingBytes/);
  });

  it('drops, past maxPendingBytes, the publishes that need one more waiting write, and writes the rest once the server is back', async () => {
    // Room for about five such first writes of their series (twice the bound, as for maxPending), far below maxPending.
    const clock = new FakeClock();
    const recorder: EventRecorder = recorderWith({ clock, writeControl: { maxPendingBytes: 256 * KB } });
    await server.stopListening();
    const results: Settled[] = [];
    for (let i = 0; i < 50; i++)
      results.push(await settle(recorder.publish(configMap(`large-${i}`), withLargeAnnotation)));

    expect(queued(results)).toHaveLength(5);
    expect(dropped(results)).toHaveLength(45);
    for (const result of dropped(results)) {
      expect(result).toBeInstanceOf(PublishError);
      expect((result as PublishError).message).toMatch(/hold too many bytes \(writeControl\.maxPendingBytes\)/);
    }
    // A repeat of what waits joins it: it takes no room, and is queued.
    expect(await settle(recorder.publish(configMap('large-0'), withLargeAnnotation))).toMatchObject({ queued: true });

    await server.listenAgain();
    let probe: Settled | undefined;
    for (let tries = 0; probe !== 'resolved' && tries < 50; tries++) {
      await clock.advance(150); // past the probe interval (100 ms): the next publish tries the server itself
      probe = await settle(recorder.publish(configMap('after'), syncFailed));
    }
    expect(probe).toBe('resolved');
    await recorder.flush();
    const written = server.events().filter((event) => event.regarding.name?.startsWith('large-'));
    expect(written).toHaveLength(5);
    expect(written.find((event) => event.regarding.name === 'large-0')?.series?.count).toBe(2);
  }, 30_000);
});
