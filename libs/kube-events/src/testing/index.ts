/**
 * For unit tests: a {@link FakeEventRecorder} that writes to memory,
 * {@link KubeEventsTestingModule}, which provides it in place of the
 * recorder, and a {@link FakeClock} that the test moves.
 * @module nestjs-kube-events/testing
 */
// `nestjs-kube-events/testing`: a recorder that writes to memory, the module that provides it, and a clock the test moves.
// First: on an unsupported Node.js this throws a clear error before @kubernetes/client-node and undici load.
import '../runtime-check.js';
export { FakeClock } from './fake-clock.js';
export { KubeEventsTestingModule, type KubeEventsTestingModuleOptions } from './kube-events-testing.module.js';
export {
  FakeEventRecorder,
  TEST_REPORTER,
  TEST_WRITE_CONTROL,
  type ExpectedEvent,
  type FakeEventRecorderOptions,
  type RecordedEvent,
} from './fake-event-recorder.js';
