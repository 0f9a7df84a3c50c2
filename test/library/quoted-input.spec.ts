// A refusal quotes a bounded part of what the caller passed: a 2 MB key,
// reason, namespace or label makes an error (and a log line) of a line, never
// of megabytes, and no request reaches the API server.
import { jest } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, InvalidEventError, type KubeEvent } from 'nestjs-kube-events';
import { LogEventSink } from '../../libs/kube-events/src/sinks/log-event.sink.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { captureLogLines } from '../support/logged-lines.js';

const TWO_MB = 2 * 1024 * 1024;
/** A key of 2 MB that is no qualified name (it ends in `!`). */
const hugeKey = `${'k'.repeat(TWO_MB)}!`;
const MAX_MESSAGE_CHARS = 1_024;

describe('what a refusal quotes of the caller’s input', () => {
  let server: FakeApiServer;
  let recorder: EventRecorder;
  let logged: string[];

  beforeEach(async () => {
    server = await FakeApiServer.start();
    recorder = new EventRecorder({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() });
    logged = captureLogLines();
    const sink = new LogEventSink();
    recorder.outcomes$.subscribe((outcome) => sink.handle(outcome));
  });
  afterEach(async () => {
    await recorder.onApplicationShutdown();
    await server.close();
    jest.restoreAllMocks();
  });

  const refusal = async (resource: KubernetesObject, event: KubeEvent): Promise<InvalidEventError> => {
    const error = await recorder.publish(resource, event).then(
      () => undefined,
      (rejected: unknown) => rejected,
    );
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(server.requests).toHaveLength(0);
    return error as InvalidEventError;
  };

  /** The message and the field quote at most 80 characters of the input, and say how long it was. */
  const expectBounded = (error: InvalidEventError) => {
    expect(error.message.length).toBeLessThan(MAX_MESSAGE_CHARS);
    expect(error.field.length).toBeLessThan(200);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.length).toBeLessThan(8 * 1024);
  };

  it('a 2 MB annotation key', async () => {
    const error = await refusal(configMap(), { ...syncFailed, annotations: { [hugeKey]: 'v' } });

    expect(error.field).toBe(`annotations["${'k'.repeat(80)}"… (${hugeKey.length} characters)]`);
    expect(error.message).toContain(`the key "${'k'.repeat(80)}"… (2097153 characters) is not a qualified name`);
    expectBounded(error);
  });

  it('a 2 MB label key', async () => {
    const error = await refusal(configMap(), { ...syncFailed, labels: { [hugeKey]: 'v' } });

    expect(error.field).toBe(`labels["${'k'.repeat(80)}"… (${hugeKey.length} characters)]`);
    expect(error.message).toContain('is not a qualified name, which the API server requires of label keys');
    expectBounded(error);
  });

  it('a 2 MB label value', async () => {
    const error = await refusal(configMap(), { ...syncFailed, labels: { app: 'v'.repeat(TWO_MB) } });

    expect(error.field).toBe('labels["app"]');
    expect(error.message).toMatch(/got "v{80}"… \(2097152 characters\)\.$/);
    expectBounded(error);
  });

  it('a 2 MB annotation value of the wrong type is described, not printed', async () => {
    const error = await refusal(configMap(), {
      ...syncFailed,
      annotations: { [`example.com/${'k'.repeat(40)}`]: ['v'.repeat(TWO_MB)] as unknown as string },
    });

    expect(error.message).toMatch(/must be a string \(annotation values are strings\), got an array\.$/);
    expectBounded(error);
  });

  it('a 2 MB reason', async () => {
    const error = await refusal(configMap(), { ...syncFailed, reason: 'R'.repeat(TWO_MB) });

    expect(error.field).toBe('reason');
    expect(error.message).toBe(`reason must be at most 128 bytes (UTF-8), got ${TWO_MB}.`);
    expectBounded(error);
  });

  it('a 2 MB namespace', async () => {
    const object = { ...configMap(), metadata: { name: 'app', namespace: `${'n'.repeat(TWO_MB)}_`, uid: 'uid-app' } };
    const error = await refusal(object, syncFailed);

    expect(error.field).toBe('resource.metadata.namespace');
    expect(error.message).toMatch(/got "n{80}"… \(2097153 characters\)\.$/);
    expectBounded(error);
  });

  it('a 2 MB related namespace', async () => {
    const related = { kind: 'Pod', name: 'web-0', namespace: 'N'.repeat(TWO_MB) };
    const error = await refusal(configMap(), { ...syncFailed, related });

    expect(error.field).toBe('related.namespace');
    expectBounded(error);
  });

  it('a label value that is a credential is redacted in the refusal and the log line', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJl';
    const error = await refusal(configMap(), { ...syncFailed, labels: { 'example.com/auth': `Bearer ${token}` } });

    expect(error.field).toBe('labels["example.com/auth"]');
    expect(error.message).toContain('got "Bearer [redacted]"');
    for (const text of [error.message, error.field, ...logged]) expect(text).not.toContain(token.slice(0, 20));
    expectBounded(error);
  });

  it('a name with C1 controls and bidi overrides is quoted with them escaped', async () => {
    const object = { ...configMap(), metadata: { name: 'app', namespace: 'ns\u009b31m\u202eevil', uid: 'uid-app' } };
    const error = await refusal(object, syncFailed);

    expect(error.message).toContain('got "ns\\u009b31m\\u202eevil"');
    for (const text of [error.message, ...logged]) expect(text).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
    expectBounded(error);
  });
});
