// With `resumeSeries`, ending a series (`forget`, a success after failures) marks its Event ended on the server, so
// that no later process continues it (SPEC §5). Each mark is a write like the others: it goes within the
// recorder-wide budget, and `flush()` (so a shutdown) waits for it, so that a process that stops right after a success leaves
// the end on the server.
import { jest } from '@jest/globals';
import { SERIES_ENDED_ANNOTATION, type EventRecorder } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { whileAdvancing } from '../support/fake-time.js';
import { flush } from '../support/flush.js';
import { recordersPerTest } from '../support/fake-server-recorders.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

const OBJECTS = ['a', 'b', 'c', 'd', 'e'].map((name) => configMap(name));

/** Whether a request is the patch that marks an Event's series ended. */
const isEndMark = (request: RecordedRequest): boolean =>
  request.verb === 'patch' &&
  typeof request.body === 'object' &&
  request.body !== null &&
  SERIES_ENDED_ANNOTATION in ((request.body as { metadata?: { annotations?: object } }).metadata?.annotations ?? {});

/** Lets `count` turns of the event loop run: time for a request sent now to reach the server. */
const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await flush();
};

describe('the marks of ended series', () => {
  let server: FakeApiServer;
  const { recorderWith } = recordersPerTest((started) => (server = started));
  afterEach(() => jest.restoreAllMocks());

  /** Publishes one failure about each object, and waits until each is on the server. */
  const oneEventEach = (recorder: EventRecorder) =>
    Promise.all(OBJECTS.map((object) => recorder.publish(object, syncFailed)));

  it('are on the server once flush() resolves, however slowly the server answers them', async () => {
    const logged = captureLogLines(['warn']);
    const recorder = recorderWith({ resumeSeries: true });
    await oneEventEach(recorder);
    OBJECTS.forEach(() => server.delayNext(300, isEndMark));

    for (const object of OBJECTS) recorder.forget(object);
    await recorder.flush();

    const marks = server.events().map((event) => event.metadata.annotations?.[SERIES_ENDED_ANNOTATION] ?? 'none');
    expect(marks).toHaveLength(OBJECTS.length);
    for (const mark of marks) expect(mark).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(logged).toEqual([]);
  });

  it('go within the recorder-wide budget, as every write does', async () => {
    const clock = new FakeClock();
    const qps = 5;
    const recorder = recorderWith({ resumeSeries: true, clock, writeControl: { qps, burst: 1 } });
    await whileAdvancing([clock], oneEventEach(recorder));
    // The budget holds one write again, and no more.
    await clock.advance(1_000);

    for (const object of OBJECTS) recorder.forget(object);
    await server.waitForRequests(1, isEndMark);
    await turns(50);
    expect(server.requestsFor(isEndMark)).toHaveLength(1);

    // Then one each time the budget has another write: five in four fifths of a second.
    for (let sent = 2; sent <= OBJECTS.length; sent++) {
      await clock.advance(1_000 / qps);
      await server.waitForRequests(sent, isEndMark);
      await turns(50);
      expect(server.requestsFor(isEndMark)).toHaveLength(sent);
    }
  });

  it('take none of the budget or the connections when the series are not shared', async () => {
    const recorder = recorderWith({ resumeSeries: false });
    await oneEventEach(recorder);
    for (const object of OBJECTS) recorder.forget(object);
    await recorder.onApplicationShutdown();

    expect(server.requestsFor(isEndMark)).toEqual([]);
    expect(server.events().map((event) => event.metadata.annotations?.[SERIES_ENDED_ANNOTATION])).toEqual(
      OBJECTS.map(() => undefined),
    );
  });

  it('one the server refuses is logged, names the Event, and holds no shutdown', async () => {
    const logged = captureLogLines(['warn']);
    const recorder = recorderWith({ resumeSeries: true });
    await oneEventEach(recorder);
    server.failNext(403, isEndMark);

    for (const object of OBJECTS) recorder.forget(object);
    await recorder.onApplicationShutdown();

    const marked = server.events().filter((event) => event.metadata.annotations?.[SERIES_ENDED_ANNOTATION]);
    expect(marked).toHaveLength(OBJECTS.length - 1);
    const [refused] = server.requestsFor(isEndMark);
    expect(logged).toEqual([
      expect.stringContaining(`Could not mark Event ${refused.namespace}/${refused.name} as ended`),
    ]);
  });
});
