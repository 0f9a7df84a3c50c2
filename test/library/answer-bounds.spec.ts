// What the recorder takes from the API server's answers, and from whatever
// answers in its place (a proxy's page), into errors, outcomes and the log:
// a bounded part of the body, never all of it, and never a credential.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  KubeEventsModule,
  PublishApiError,
  PublishTimeoutError,
  PublishUnreachableError,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { captureLogLines } from '../support/logged-lines.js';

const TOKEN = 'sha256~Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const MB = 1024 * 1024;
/** What an error message may carry of an answer, with the recorder's own words around it. */
const MAX_MESSAGE_CHARS = 1_300;
/**
 * What the server may have written of an answer the client stops reading: the client's cap (4 MiB of a 2xx, 64 KiB
 * of a refusal), and what the sockets between hold, which on a loaded machine reached 4 MiB on loopback. Well below
 * the 20 MB the server writes to a client that reads it all.
 */
const MAX_READ_BYTES = 12 * MB;

/** A reverse proxy's error page that echoes the request it could not forward, headers and all. */
const proxyPage = (authorization: string) => `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title><style>body { font-family: sans-serif }</style></head>
<body><h1>Bad Gateway</h1><p>The upstream server did not answer. Request:</p>
<table><tr><th>Host</th><td>127.0.0.1</td></tr>
<tr><th>Authorization</th><td>${authorization}</td></tr></table>
<pre>POST /apis/events.k8s.io/v1/namespaces/default/events HTTP/1.1
Authorization: ${authorization}
Accept: application/json</pre></body></html>`;

// A retried publish runs to its timeout, and the shutdown flush after it: slower on a loaded machine.
jest.setTimeout(20_000);

describe('what the recorder takes from an answer', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;
  let outcomes: PublishOutcome[];
  let logged: string[];

  async function start(timeout = 2_000): Promise<EventRecorder> {
    app = await Test.createTestingModule({
      imports: [
        // A 403 scripted here stands for a refusal: with no permission check, no review contradicts it.
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          permissionCheck: 'off',
          kubeConfig: server.kubeConfig(),
          timeout,
          metrics: false,
          logEvents: true,
        }),
      ],
    }).compile();
    await app.init();
    const recorder = app.get(EventRecorder);
    recorder.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    return recorder;
  }

  beforeEach(async () => {
    server = await FakeApiServer.start({ token: TOKEN });
    outcomes = [];
    logged = captureLogLines();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  /** Every text the publish's failure reached: its error and causes, its outcomes, the log. */
  const everywhere = (error: unknown) => {
    const texts: string[] = [...logged];
    for (let cause = error; cause instanceof Error; cause = cause.cause) texts.push(cause.message);
    for (const outcome of outcomes) if (outcome.error) texts.push(outcome.error.message);
    return texts;
  };

  it('reads only the start of a 20 MB refusal, and quotes a short excerpt of it', async () => {
    const recorder = await start();
    server.respondNext('POST', () => ({
      status: 403,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      text: 'forbidden: '.padEnd(MB, 'x'),
      repeat: 20,
    }));

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishApiError);
    expect(error).toMatchObject({ statusCode: 403 });
    const { message } = error as PublishApiError;
    expect(message).toMatch(
      /^The API server refused the Event \(403\): forbidden: x+… \(text\/plain, 20971520 bytes\)$/,
    );
    expect(message.length).toBeLessThan(MAX_MESSAGE_CHARS);
    for (const text of everywhere(error)) expect(text.length).toBeLessThan(MAX_MESSAGE_CHARS);
    // The client closed the connection instead of reading the rest.
    const [request] = await server.waitForRequests(1, 'POST');
    await server.waitForAborted(1);
    expect(request.bytesSent).toBeLessThan(MAX_READ_BYTES);
  });

  it("cuts a Status message to about 1 KB, and keeps the server's reason", async () => {
    const recorder = await start();
    const denial = `events.events.k8s.io is forbidden: ${'a webhook said no; '.repeat(2_000)}`;
    server.failNext(403, 'POST', 'Forbidden', denial);

    const error = (await recorder
      .publish(configMap(), syncFailed)
      .catch((caught: unknown) => caught)) as PublishApiError;

    expect(error).toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    const prefix = 'The API server refused the Event (403): ';
    expect(error.message.startsWith(prefix)).toBe(true);
    expect(denial.startsWith(error.message.slice(prefix.length, -3))).toBe(true);
    expect(error.message.endsWith('...')).toBe(true);
    expect(Buffer.byteLength(error.message)).toBe(prefix.length + 1_024);
  });

  it('keeps a token that a proxy echoes out of the error, its outcomes and the log', async () => {
    const recorder = await start(1_500);
    for (let i = 0; i < 20; i++) {
      server.respondNext('POST', () => ({
        status: 502,
        headers: { 'Content-Type': 'text/html' },
        text: proxyPage(`Bearer ${TOKEN}`),
      }));
    }

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    // A 502 is retried until the publish times out; the last write's error is its cause.
    expect(error).toBeInstanceOf(PublishTimeoutError);
    expect((error as Error).cause).toBeInstanceOf(PublishApiError);
    expect((error as Error).cause).toMatchObject({
      statusCode: 502,
      message: expect.stringMatching(
        /^The API server refused the Event \(502\): 502 Bad Gateway Bad Gateway The upstream/,
      ),
    });
    expect(outcomes.filter((outcome) => outcome.kind === 'failed').length).toBeGreaterThan(0);
    const texts = everywhere(error);
    expect(texts.some((text) => text.includes('[redacted]'))).toBe(true);
    for (const text of texts) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(TOKEN.slice(0, 16));
    }
  });

  it('keeps a token out that the proxy sends in a form of its own', async () => {
    const recorder = await start();
    server.respondNext('POST', () => ({
      status: 403,
      headers: { 'Content-Type': 'application/json' },
      text: JSON.stringify({ error: 'denied', request: { headers: { authorization: TOKEN.toUpperCase() } } }),
    }));
    server.respondNext('POST', () => ({
      status: 403,
      headers: { 'Content-Type': 'application/json' },
      text: JSON.stringify({ kind: 'Status', message: `token ${TOKEN} is not valid here`, reason: 'Forbidden' }),
    }));

    const first = await recorder.publish(configMap('a'), syncFailed).catch((caught: unknown) => caught);
    const second = await recorder.publish(configMap('b'), syncFailed).catch((caught: unknown) => caught);

    expect((first as Error).message).toMatch(
      /^The API server refused the Event \(403\): \{"error":"denied".*\[redacted\]/,
    );
    expect((second as Error).message).toBe(
      'The API server refused the Event (403): token [redacted] is not valid here',
    );
    for (const text of everywhere(first)) expect(text.toLowerCase()).not.toContain(TOKEN.toLowerCase());
  });

  it('says a 2xx answer that is not JSON could not be read, without quoting it', async () => {
    const recorder = await start();
    server.respondNext('POST', () => ({
      status: 200,
      headers: { 'Content-Type': 'text/html' },
      text: `Bearer ${TOKEN}<html>${proxyPage(`Bearer ${TOKEN}`)}`,
    }));

    await recorder.publish(configMap(), syncFailed);

    expect(server.verbs()).toEqual(['create', 'create']);
    const failure = outcomes.find((outcome) => outcome.kind === 'failed');
    expect(failure?.error?.message).toMatch(
      /^The API server answered 200 but its answer could not be read \(its body \(text\/html, \d+ bytes\) is not JSON\); the write may have been applied\.$/,
    );
    for (const text of everywhere(undefined)) expect(text).not.toContain(TOKEN.slice(0, 10));
  });

  it('says an answer with 10,000 headers is an answer it could not read, not an unreachable server', async () => {
    const recorder = await start();
    const headers = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-padding-${i}`, 'v']));
    for (let i = 0; i < 20; i++) server.respondNext(undefined, () => ({ status: 201, headers, body: {} }));

    // Every answer so: the publish is given up at its timeout, the occurrence queued.
    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(PublishUnreachableError);

    const failure = outcomes.find((outcome) => outcome.kind === 'failed');
    expect(failure?.error).toBeInstanceOf(PublishApiError);
    expect(failure?.error).not.toBeInstanceOf(PublishUnreachableError);
    expect(failure?.error?.message).toBe(
      'The API server answered, but its answer could not be read (its headers are longer than the 16 KiB the recorder reads); the write may have been applied.',
    );
    expect(recorder.connectionDown).toBeUndefined();
  });

  it('treats a 2xx answer too long to read as one that may have applied, and reads the Event back', async () => {
    const recorder = await start();
    server.respondNext('POST', () => ({
      status: 201,
      headers: { 'Content-Type': 'application/json' },
      text: ' '.repeat(MB),
      // More than the sockets between can hold, so that the server cannot finish it before the client leaves.
      repeat: 20,
    }));

    await recorder.publish(configMap(), syncFailed);

    expect(server.verbs()).toEqual(['create', 'create']);
    // The server learns of the client's leaving when the connection closes, which may come after the retry's answer,
    // and on a loaded machine seconds after it: the bound is generous, the assertion is that it comes.
    expect(await server.waitForAborted(1, 10_000)).toEqual([server.requests[0]]);
    expect(server.requests[0].bytesSent).toBeLessThan(MAX_READ_BYTES);
    expect(server.events()).toHaveLength(1);
  });
});
