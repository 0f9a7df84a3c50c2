// How many writes a recorder sends at a time is its writer's to say (the Events API: one per connection of its pool),
// not a number the recorder knows of the pool: the rest wait in the recorder's own queue.
import type { EventsV1Event, KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';
import { EventsApi } from '../../libs/kube-events/src/api/events-api.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';

/** The Events API, saying it carries `atOnce` writes at a time (its own number when unset), counting its creates in flight. */
class CountedEventsApi extends EventsApi {
  inFlight = 0;
  mostInFlight = 0;

  constructor(
    kubeConfig: KubeConfig,
    private readonly atOnce?: number,
  ) {
    super(kubeConfig);
  }

  override get writesAtOnce(): number {
    return this.atOnce ?? super.writesAtOnce;
  }

  override async create(namespace: string, body: EventsV1Event, signal: AbortSignal) {
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
    try {
      return await super.create(namespace, body, signal);
    } finally {
      this.inFlight--;
    }
  }
}

describe('writes at a time', () => {
  let server: FakeApiServer;
  let recorder: EventRecorder | undefined;

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await recorder?.onApplicationShutdown();
    recorder = undefined;
    await server.close();
  });

  /** Publishes about 12 objects at once, each create answered 200 ms late (the fake server's own delay), and waits. */
  async function burstThrough(api: CountedEventsApi): Promise<void> {
    recorder = new EventRecorder({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() }, api);
    for (let i = 0; i < 12; i++) server.delayNext(200, 'POST');
    await Promise.all(Array.from({ length: 12 }, (_, i) => recorder!.publish(configMap(`w${i}`), syncFailed)));
    expect(server.events()).toHaveLength(12);
  }

  it('sends no more at a time than the writer says it carries', async () => {
    const api = new CountedEventsApi(server.kubeConfig(), 3);
    await burstThrough(api);
    expect(api.mostInFlight).toBe(3);
  });

  it("sends as many at a time as the Events API's pool has connections by default", async () => {
    const api = new CountedEventsApi(server.kubeConfig());
    await burstThrough(api);
    expect(api.mostInFlight).toBe(new EventsApi(server.kubeConfig()).writesAtOnce);
    expect(api.mostInFlight).toBeGreaterThan(3);
  });
});
