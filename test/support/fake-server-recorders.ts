import { EventRecorder, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import type { FakeApiServer } from './fake-api-server/index.js';

/**
 * Recorders of one spec, each writing to the fake API server the spec
 * started (reporter `widgets`, unless `defaults` say otherwise), and shut
 * down together after each test.
 */
export function recordersOf(server: () => FakeApiServer, defaults: Partial<KubeEventsModuleOptions> = {}) {
  const recorders: EventRecorder[] = [];
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
      return recorder;
    },
    /** Shuts down every recorder made since the last call: what they still hold is written, their connections close. */
    async shutDown(): Promise<void> {
      await Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
    },
  };
}
