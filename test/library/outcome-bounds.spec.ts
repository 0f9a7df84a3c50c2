// What an outcome and a log line carry of what the caller passed: bounded,
// whether the publish was valid or refused, however large its fields.
import { jest } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  EventRecorder,
  InvalidEventError,
  MAX_NOTE_BYTES,
  PublishError,
  type EventsWriter,
  type KubeEvent,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { LogEventSink } from '../../libs/kube-events/src/sinks/log-event.sink.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { captureLogLines } from '../support/logged-lines.js';

const MB = 1024 * 1024;
/** Any caller's string but the note, in an outcome: more than the API server accepts of any. */
const MAX_FIELD_BYTES = 512;
/** A log line: each field bounded, the error message about 1 KB. */
const MAX_LOG_LINE_CHARS = 8 * 1024;
const bytes = (text: string | undefined) => Buffer.byteLength(text ?? '');

describe('what an outcome carries of what the caller passed', () => {
  let server: FakeApiServer;
  let recorder: EventRecorder;
  let outcomes: PublishOutcome[];
  let logged: string[];

  beforeEach(async () => {
    server = await FakeApiServer.start();
    recorder = new EventRecorder({
      reporter: { controller: 'widgets' },
      kubeConfig: server.kubeConfig(),
      timeout: 2_000,
    });
    outcomes = [];
    logged = captureLogLines();
    const sink = new LogEventSink();
    recorder.outcomes$.subscribe((outcome) => {
      outcomes.push(outcome);
      sink.handle(outcome);
    });
  });
  afterEach(async () => {
    await recorder.onApplicationShutdown();
    await server.close();
    jest.restoreAllMocks();
  });

  /** Every string field of the outcomes, and every log line, within its bound. */
  const expectBounded = () => {
    expect(outcomes.length).toBeGreaterThan(0);
    for (const { regarding, event, error } of outcomes) {
      for (const value of Object.values(regarding) as (string | undefined)[])
        expect(bytes(value)).toBeLessThanOrEqual(MAX_FIELD_BYTES);
      const related = Object.values(event.related ?? {}) as (string | undefined)[];
      for (const value of [event.type, event.reason, event.action, ...related]) {
        expect(bytes(value)).toBeLessThanOrEqual(MAX_FIELD_BYTES);
      }
      expect(bytes(event.note)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
      expect(error?.message.length ?? 0).toBeLessThan(2_048);
    }
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.length).toBeLessThan(MAX_LOG_LINE_CHARS);
  };

  it('cuts the 10 MB note of a refused publish as a valid one is cut, after removing its credentials', async () => {
    const note = `token=hunter2hunter2 ${'x'.repeat(10 * MB)}`;

    await expect(recorder.publish(configMap(), { ...syncFailed, reason: '', note })).rejects.toBeInstanceOf(
      InvalidEventError,
    );

    expect(server.requests).toHaveLength(0);
    expect(outcomes).toHaveLength(1);
    const [{ event }] = outcomes;
    expect(bytes(event.note)).toBe(MAX_NOTE_BYTES);
    expect(event.note).toMatch(/^token=\[redacted\] x+\.\.\.$/);
    expectBounded();
  });

  it('bounds every other field of a refused publish', async () => {
    const huge = 'A'.repeat(10 * MB);
    const resource = { apiVersion: huge, kind: huge, metadata: { name: huge, namespace: huge, uid: huge } };

    await expect(
      recorder.publish(
        resource as KubernetesObject,
        { type: huge, reason: huge, action: huge } as unknown as KubeEvent,
      ),
    ).rejects.toBeInstanceOf(InvalidEventError);

    expect(outcomes[0]).toMatchObject({ kind: 'failed', regarding: { name: expect.stringMatching(/^A+\.\.\.$/) } });
    expectBounded();
  });

  it('keeps a refusal that quotes the caller short: a missing kind on a 10 MB name, a getter throwing a 10 MB message', async () => {
    const name = 'n'.repeat(10 * MB);
    const withoutKind = { apiVersion: 'v1', metadata: { name, namespace: 'default', uid: 'uid-1' } };
    const unreadable = {
      ...configMap(),
      get kind(): string {
        throw new Error('m'.repeat(10 * MB));
      },
    };

    const errors = [
      await recorder.publish(withoutKind as KubernetesObject, syncFailed).catch((error: unknown) => error),
      await recorder.publish(unreadable, syncFailed).catch((error: unknown) => error),
    ];

    for (const error of errors) {
      expect(error).toBeInstanceOf(InvalidEventError);
      expect((error as Error).message.length).toBeLessThan(1_024);
    }
    expect((errors[0] as Error).message).toMatch(/^resource\.kind is missing on "n{80}"… \(10485760 characters\)/);
    expect((errors[1] as Error).message).toMatch(/^resource could not be read: m{256}… \(10485760 characters\)\.$/);
    expectBounded();
  });

  it("bounds what a writer of the caller's throws, and removes the credentials it quotes", async () => {
    const token = 'Bearer ' + 'a'.repeat(40);
    const thrown = new Error(`boom Authorization: ${token} ${'x'.repeat(MB)}`);
    const writer: EventsWriter = {
      create: async () => {
        throw thrown;
      },
      read: async (namespace, name) => ({ name, namespace, count: 1 }),
      patchSeries: async (namespace, name, patch) => ({ name, namespace, count: patch.count }),
    };
    const own = new EventRecorder({ reporter: { controller: 'widgets' }, timeout: 500 }, writer);
    const told: PublishOutcome[] = [];
    own.outcomes$.subscribe((outcome) => told.push(outcome));

    const error = (await own.publish(configMap(), syncFailed).catch((reason: unknown) => reason)) as PublishError;
    await own.onApplicationShutdown();

    expect(error).toBeInstanceOf(PublishError);
    expect(error.cause).toBe(thrown);
    const messages = [error.message, ...told.map((outcome) => outcome.error?.message ?? '')];
    for (const message of messages) {
      expect(message).toContain('boom Authorization: [redacted]');
      expect(message).not.toContain(token);
      expect(message.length).toBeLessThan(MAX_LOG_LINE_CHARS + 64);
    }
  });

  it('bounds the fields of a valid publish: a 1 MB object name, a 1 MB related field path', async () => {
    const object = { ...configMap(), metadata: { name: 'w'.repeat(MB), namespace: 'default', uid: 'uid-long' } };
    const related = { apiVersion: 'v1', kind: 'Pod', name: 'pod', namespace: 'default', fieldPath: 'f'.repeat(MB) };

    await recorder.publish(object, { ...syncFailed, related }).catch(() => undefined);

    expect(server.requests.length).toBeGreaterThan(0);
    expectBounded();
  });
});
