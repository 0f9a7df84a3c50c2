import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, PublishesFailures } from 'nestjs-kube-events';
import type { FakeApiServer } from '../support/fake-api-server/index.js';
import { CREDENTIAL_FORMS, survivingParts } from '../support/credential-forms.js';
import { CONTEXT_CREDENTIAL_FORMS, NOT_CREDENTIALS } from '../support/context-credential-forms.js';
import { configMap, syncFailed } from '../support/objects.js';
import { startLoggingApplication } from '../support/logging-application.js';
import { inMemoryTracing, traceGloballyWith } from '../support/in-memory-tracing.js';

const tracing = inMemoryTracing();
const { spans } = tracing;

/** Throws what it is told to, as a reconcile whose client quoted a credential would. */
@Injectable()
class QuotingReconciler {
  message = '';

  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    await Promise.resolve(object);
    throw new Error(this.message);
  }
}

/** What a stack trace says, without its frames (whose file names would match parts of ordinary words). */
const withoutFrames = (stack: string) => stack.split(/\n\s+at /)[0];

const RANDOM_IDENTITIES = /\.(uid|name|resource_version)$/;
/** The Events' names (`<object>.<hex time>`) and uids in a text: random hex the run made, which may share 4 characters with a secret. */
const EVENT_IDENTITY =
  /\b(?:written|refused|reconciled)\.[0-9a-f]{8,}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const withoutRandomIdentities = (text: string) => text.replace(EVENT_IDENTITY, '');

/** Everything a span of the library's writes says in text: attribute values, event attributes and the status message. */
function spanTexts(): string[] {
  return spans
    .getFinishedSpans()
    .filter((span) => span.instrumentationScope.name === 'nestjs-kube-events')
    .flatMap((span) => [
      // Identities the server or the clock made (uids, the Event's hex-time name) are random hex that may share 4 characters with a secret.
      ...Object.entries(span.attributes)
        .filter(([key]) => !RANDOM_IDENTITIES.test(key))
        .map(([, value]) => String(value)),
      ...span.events.flatMap((event) =>
        Object.values(event.attributes ?? {}).map((value) => withoutFrames(String(value))),
      ),
      span.status.message ?? '',
    ]);
}

describe('credentials in every channel a note or an error leaves by', () => {
  let server: FakeApiServer;
  let app: TestingModule;
  let lines: string[];

  traceGloballyWith(tracing);
  beforeEach(async () => {
    ({ server, app, lines } = await startLoggingApplication([QuotingReconciler], ['log', 'warn']));
  });
  afterEach(async () => {
    await app.close();
    await server.close();
    jest.restoreAllMocks();
  });

  it.each([...CREDENTIAL_FORMS, ...CONTEXT_CREDENTIAL_FORMS].map((form) => [form.form, form] as const))(
    'keeps %s out of the note, the failure note, the error, the log line and the span',
    async (_form, { text, secret }) => {
      const recorder = app.get(EventRecorder);
      await recorder.publish(configMap('written'), { ...syncFailed, note: text });
      // A real server's 422 quotes the value it refused.
      server.failNext(422, 'POST', 'Invalid', `Event "refused.1" is invalid: note: Invalid value: "${text}"`);
      const refused = await recorder.publish(configMap('refused'), { ...syncFailed, note: text }).then(
        () => new Error('the publish was not refused'),
        (error: unknown) => error as Error,
      );
      const reconciler = app.get(QuotingReconciler);
      reconciler.message = `could not mirror the source: ${text}`;
      await reconciler.reconcile(configMap('reconciled')).catch(() => undefined);
      await recorder.flush();

      const notes = server.events('default').map((event) => event.note ?? '');
      expect(notes).toHaveLength(2);
      const [note, failureNote] = ['written', 'reconciled'].map((name) =>
        server
          .events('default')
          .filter((event) => event.regarding?.name === name)
          .map((event) => event.note ?? ''),
      );
      expect(refused.message).toMatch(/422/);
      expect(lines.filter((line) => line.startsWith('outcome='))).toHaveLength(3);
      const channels = {
        note,
        failureNote,
        error: [refused.message, withoutFrames(String(refused.stack))],
        log: lines,
        span: spanTexts(),
      };
      const surviving = Object.fromEntries(
        Object.entries(channels).map(([channel, texts]) => [
          channel,
          texts.flatMap((t) => survivingParts(withoutRandomIdentities(t), secret)),
        ]),
      );
      expect(surviving).toEqual({ note: [], failureNote: [], error: [], log: [], span: [] });
    },
  );

  it.each(NOT_CREDENTIALS.map(({ kind, text }) => [kind, text] as const))(
    'publishes a note of %s as it is',
    async (_kind, text) => {
      await app.get(EventRecorder).publish(configMap('written'), { ...syncFailed, note: text });

      expect(server.events('default').map((event) => event.note)).toEqual([text]);
    },
  );
});
