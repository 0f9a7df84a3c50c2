import { EventRecorder, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer } from './fake-api-server/index.js';
import { whileAdvancing } from './fake-time.js';

/**
 * Recorders of one spec, each writing to the fake API server the spec
 * started (reporter `widgets`, unless `defaults` say otherwise), and shut
 * down together after each test: on a {@link FakeClock}, the clock is moved
 * meanwhile, as a shutdown waits for the recorder's time (backoffs, its timeout).
 */
export function recordersOf(server: () => FakeApiServer, defaults: Partial<KubeEventsModuleOptions> = {}) {
  const recorders: EventRecorder[] = [];
  const clocks = new Set<FakeClock>();
  return {
    /** A recorder writing to the fake API server, with these options. */
    recorderWith(options: Partial<KubeEventsModuleOptions> = {}): EventRecorder {
      const recorder = new EventRecorder({
        reporter: { controller: 'widgets' },
        kubeConfig: server().kubeConfig(),
        ...defaults,
        ...options,
      });
      recorders.push(recorder);
      const { clock } = { ...defaults, ...options };
      if (clock instanceof FakeClock) clocks.add(clock);
      return recorder;
    },
    /** Shuts down every recorder made since the last call: what they still hold is written, their connections close. */
    async shutDown(): Promise<void> {
      const shutdowns = Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
      await whileAdvancing([...clocks], shutdowns);
      clocks.clear();
    },
  };
}

/**
 * A fresh fake API server for each test of the enclosing `describe`, handed to `use`, and the
 * {@link recordersOf} it: after each test the recorders shut down, then the server closes.
 */
export function recordersPerTest(
  use: (server: FakeApiServer) => void,
  defaults: Partial<KubeEventsModuleOptions> = {},
) {
  let server: FakeApiServer | undefined;
  const recorders = recordersOf(() => server!, defaults);
  beforeEach(async () => {
    server = await FakeApiServer.start();
    use(server);
  });
  afterEach(async () => {
    await recorders.shutDown();
    await server?.close();
    server = undefined;
  });
  return recorders;
}
