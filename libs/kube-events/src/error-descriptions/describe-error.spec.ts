import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { fc, test as property } from '@fast-check/jest';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as grpc from '@grpc/grpc-js';
import axios from 'axios';
import got from 'got';
import { Agent, interceptors, request } from 'undici';
import { describeError } from './describe-error.js';

/** What kube-apiserver answers to a read of a ConfigMap that does not exist, byte for byte. */
const NOT_FOUND_BODY =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' +
  '"message":"configmaps \\"source-missing\\" not found","reason":"NotFound",' +
  '"details":{"name":"source-missing","kind":"configmaps"},"code":404}\n';

const FORBIDDEN_BODY = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'secrets "db" is forbidden: User "system:serviceaccount:demo:mirror" cannot get resource "secrets"',
  reason: 'Forbidden',
  details: { name: 'db', kind: 'secrets' },
  code: 403,
});

/** The headers client-node puts into ApiException's message; two requests never share them. */
function responseHeaders(): Record<string, string> {
  return {
    'audit-id': crypto.randomUUID(),
    'cache-control': 'no-cache, private',
    'content-type': 'application/json',
    date: new Date().toUTCString(),
    'x-kubernetes-pf-flowschema-uid': crypto.randomUUID(),
    'x-kubernetes-pf-prioritylevel-uid': crypto.randomUUID(),
  };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A loopback server that answers as `answer` says for each path, with an `audit-id` as kube-apiserver's answers have. */
async function answering(answer: (path: string) => { status: number; type?: string; body?: string }) {
  const server = createHttpServer((req, res) => {
    const { status, type, body } = answer(req.url ?? '/');
    res.writeHead(status, { ...(type && { 'content-type': type }), 'audit-id': crypto.randomUUID() });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An API server's Status at `/status`, a proxy's HTML 502 anywhere else. */
const statusOrGateway = (status: number, body: string) => (path: string) =>
  path === '/status'
    ? { status, type: 'application/json', body }
    : { status: 502, type: 'text/html', body: '<html>bad gateway</html>' };

async function thrownBy(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'cluster', server, skipTLSVerify: true }],
    users: [{ name: 'user', token: 'not-a-real-token' }],
    contexts: [{ name: 'context', cluster: 'cluster', user: 'user' }],
    currentContext: 'context',
  });
  return kubeConfig;
}

describe('describeError', () => {
  describe('API refusals', () => {
    it("reads client-node's ApiException as the Status' reason and message, without headers or body", () => {
      const error = new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders());
      expect(error.message).toContain('audit-id');

      expect(describeError(error)).toBe('NotFound: configmaps "source-missing" not found');
    });

    it('says the same of two refusals whose headers differ', () => {
      const first = new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders());
      const second = new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders());

      expect(first.message).not.toBe(second.message);
      expect(describeError(first)).toBe(describeError(second));
    });

    it("reads an ApiException's message copied into another error's message: the text before it and the Status", () => {
      const refusals = [1, 2].map(
        () => new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders()),
      );
      const [first, second] = refusals.map(
        (refusal) => new Error(`could not mirror the source: ${refusal.message}`, { cause: refusal }),
      );

      expect(describeError(first)).toBe('could not mirror the source: NotFound: configmaps "source-missing" not found');
      expect(describeError(first)).toBe(describeError(second));
      expect(describeError(new Error(`sync failed (${refusals[0].message})`))).toBe(
        'sync failed: NotFound: configmaps "source-missing" not found',
      );
    });

    it('never keeps the headers of an ApiException text cut before its body, or thrown as a string', () => {
      const headers = responseHeaders();
      const cut = `mirror: HTTP-Code: 401\nMessage: Unauthorized\nHeaders: ${JSON.stringify(headers)}`;

      expect(describeError(new Error(cut))).toBe('mirror: HTTP 401 Unauthorized');
      expect(describeError(`retrying: ${new ApiException(403, 'Forbidden', FORBIDDEN_BODY, headers).message}`)).toBe(
        'retrying: Forbidden: secrets "db" is forbidden: User "system:serviceaccount:demo:mirror" cannot get resource "secrets"',
      );
    });

    it('reads a Status given as an object', () => {
      const status = {
        kind: 'Status',
        status: 'Failure',
        reason: 'AlreadyExists',
        message: 'configmaps "target" already exists',
        code: 409,
      };

      expect(describeError(new ApiException(409, 'Conflict', status, responseHeaders()))).toBe(
        'AlreadyExists: configmaps "target" already exists',
      );
      expect(describeError(status)).toBe('AlreadyExists: configmaps "target" already exists');
    });

    it('says the message alone when the Status has no reason, or the reason alone when it has no message', () => {
      const denied = JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        message: 'admission webhook "policy.example.com" denied the request: replicas must be at most 10',
        reason: '',
        code: 400,
      });
      const bare = JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });

      expect(describeError(new ApiException(400, 'Unknown API Status Code!', denied, {}))).toBe(
        'admission webhook "policy.example.com" denied the request: replicas must be at most 10',
      );
      expect(describeError(new ApiException(503, 'Unknown API Status Code!', bare, {}))).toBe('ServiceUnavailable');
    });

    it('gives the HTTP status, with its standard text, for a body that is not a Status, or none', () => {
      const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';

      expect(describeError(new ApiException(502, 'Unknown API Status Code!', html, responseHeaders()))).toBe(
        'HTTP 502 Bad Gateway',
      );
      // client-node drops the body of a 401.
      expect(describeError(new ApiException(401, 'Unauthorized', undefined, responseHeaders()))).toBe(
        'HTTP 401 Unauthorized',
      );
      expect(describeError(new ApiException(599, 'Unknown API Status Code!', '', responseHeaders()))).toBe('HTTP 599');
    });

    it("reads ApiException's message where another error copied it, even cut before its headers", () => {
      const refusal = new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders());
      const cut = refusal.message.slice(0, refusal.message.indexOf('\nHeaders:'));

      expect(describeError(new Error(refusal.message))).toBe('NotFound: configmaps "source-missing" not found');
      expect(describeError(cut)).toBe('NotFound: configmaps "source-missing" not found');
      expect(describeError(refusal.message.slice(0, 60))).toBe('HTTP 404 Not Found');
    });

    it('puts a wrapping error before the refusal it was caused by, and does not repeat what it already says', () => {
      const refusal = new ApiException(404, 'Unknown API Status Code!', NOT_FOUND_BODY, responseHeaders());

      expect(describeError(new Error('could not read the source', { cause: refusal }))).toBe(
        'could not read the source: NotFound: configmaps "source-missing" not found',
      );
      expect(
        describeError(
          new Error('could not read the source: NotFound: configmaps "source-missing" not found', { cause: refusal }),
        ),
      ).toBe('could not read the source: NotFound: configmaps "source-missing" not found');
    });

    it("reads undici's ResponseError (statusCode, parsed body, headers)", async () => {
      const { server, url } = await answering(statusOrGateway(404, NOT_FOUND_BODY));
      const dispatcher = new Agent().compose(interceptors.responseError());
      try {
        const status = await thrownBy(() => request(`${url}/status`, { dispatcher }));
        const html = await thrownBy(() => request(`${url}/html`, { dispatcher }));

        expect(status).toMatchObject({ name: 'ResponseError', statusCode: 404 });
        expect(describeError(status)).toBe('NotFound: configmaps "source-missing" not found');
        expect(describeError(html)).toBe('HTTP 502 Bad Gateway');
      } finally {
        await dispatcher.close();
        await closeHttp(server);
      }
    });

    it("reads an AxiosError (what @nestjs/axios' HttpService throws) by its response, never its config's headers", async () => {
      const { server, url } = await answering(statusOrGateway(403, FORBIDDEN_BODY));
      const headers = { Authorization: 'Bearer s3cr3t-token-0123456789' };
      try {
        const forbidden = await thrownBy(() => axios.get(`${url}/status`, { headers }));
        const gateway = await thrownBy(() => axios.get(`${url}/html`, { headers }));

        expect(forbidden).toMatchObject({ name: 'AxiosError', status: 403 });
        expect(describeError(forbidden)).toBe(
          'Forbidden: secrets "db" is forbidden: User "system:serviceaccount:demo:mirror" cannot get resource "secrets"',
        );
        expect(describeError(gateway)).toBe('HTTP 502 Bad Gateway');
      } finally {
        await closeHttp(server);
      }
    });

    it('reads the AxiosError of a refused connection and of a timeout by what happened', async () => {
      const port = await closedPort();
      const refused = await thrownBy(() => axios.get(`http://127.0.0.1:${port}/`));
      const hanging = createServer(() => undefined);
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      try {
        const { port: slow } = hanging.address() as AddressInfo;
        const timedOut = await thrownBy(() => axios.get(`http://127.0.0.1:${slow}/`, { timeout: 50 }));

        expect(describeError(refused)).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
        expect(describeError(timedOut)).toBe('timeout of 50ms exceeded');
      } finally {
        hanging.close();
      }
    });

    it('keeps the message of an error that has a status code but no response, as framework exceptions do', () => {
      const exception = Object.assign(new Error('Widget "w1" is locked by another reconcile'), { status: 409 });

      expect(describeError(exception)).toBe('Widget "w1" is locked by another reconcile');
    });
  });

  describe("other SDKs' errors, produced by the SDKs against loopback servers", () => {
    const s3For = (endpoint: string) =>
      new S3Client({
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        maxAttempts: 1,
        credentials: {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
      });

    it('reads the AWS SDK v3 status of an answer it could not read, and keeps the message of one it could', async () => {
      const { server, url } = await answering((path) =>
        path.startsWith('/gateway')
          ? { status: 502, type: 'text/html', body: '<html><body>Bad gateway</body></html>' }
          : path.startsWith('/missing')
            ? {
                status: 404,
                type: 'application/xml',
                body: '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
              }
            : { status: 403 },
      );
      const s3 = s3For(url);
      try {
        const forbidden = await thrownBy(() => s3.send(new HeadObjectCommand({ Bucket: 'configs', Key: 'app' })));
        const gateway = await thrownBy(() => s3.send(new GetObjectCommand({ Bucket: 'gateway', Key: 'app' })));
        const missing = await thrownBy(() => s3.send(new GetObjectCommand({ Bucket: 'missing', Key: 'app' })));

        expect(forbidden).toMatchObject({ message: 'UnknownError', $metadata: { httpStatusCode: 403 } });
        expect(describeError(forbidden)).toBe('HTTP 403 Forbidden');
        expect(describeError(gateway)).toBe('HTTP 502 Bad Gateway');
        expect(describeError(missing)).toBe('The specified key does not exist.');
      } finally {
        s3.destroy();
        await closeHttp(server);
      }
    });

    it("adds a JSON body's message to the status of an HTTP error without a Status (got, axios, undici)", async () => {
      const { server, url } = await answering((path) =>
        path === '/oauth'
          ? {
              status: 403,
              type: 'application/json',
              body: JSON.stringify({ error: 'access_denied', error_description: 'The token was revoked' }),
            }
          : { status: 429, type: 'application/json', body: JSON.stringify({ error: { message: 'Quota exceeded' } }) },
      );
      const dispatcher = new Agent().compose(interceptors.responseError());
      try {
        const fromGot = await thrownBy(() => got(`${url}/oauth`, { retry: { limit: 0 } }));
        const fromAxios = await thrownBy(() => axios.get(`${url}/oauth`));
        const fromUndici = await thrownBy(() => request(`${url}/quota`, { dispatcher }));

        expect(fromGot).toMatchObject({ name: 'HTTPError' });
        expect(describeError(fromGot)).toBe('HTTP 403 Forbidden: access_denied: The token was revoked');
        expect(describeError(fromAxios)).toBe('HTTP 403 Forbidden: access_denied: The token was revoked');
        expect(describeError(fromUndici)).toBe('HTTP 429 Too Many Requests: Quota exceeded');
      } finally {
        await dispatcher.close();
        await closeHttp(server);
      }
    });

    it("says a grpc-js error's status and words, never its timings or addresses, so that repeats read the same", async () => {
      const method = {
        path: '/mirror.Source/Read',
        requestStream: false,
        responseStream: false,
        requestSerialize: (value: Buffer) => value,
        requestDeserialize: (value: Buffer) => value,
        responseSerialize: (value: Buffer) => value,
        responseDeserialize: (value: Buffer) => value,
      };
      const silent = new grpc.Server();
      silent.addService({ read: method }, { read: () => undefined });
      const port = await new Promise<number>((resolve, reject) =>
        silent.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        ),
      );
      const Client = grpc.makeGenericClientConstructor({ read: method }, 'Source');
      type SourceClient = grpc.Client & {
        read(body: Buffer, options: grpc.CallOptions, done: (error: grpc.ServiceError) => void): void;
      };
      const call = (client: SourceClient, ms: number) =>
        new Promise<grpc.ServiceError>((resolve) =>
          client.read(Buffer.alloc(0), { deadline: Date.now() + ms }, resolve),
        );
      const slow = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as SourceClient;
      const refused = new Client(
        `127.0.0.1:${await closedPort()}`,
        grpc.credentials.createInsecure(),
      ) as unknown as SourceClient;
      try {
        const first = await call(slow, 100);
        const second = await call(slow, 150);
        const unavailable = await call(refused, 2_000);

        expect(first.message).toMatch(/^4 DEADLINE_EXCEEDED: Deadline exceeded after .*remote_addr=127\.0\.0\.1:/);
        expect(describeError(first)).toBe('DEADLINE_EXCEEDED: Deadline exceeded');
        expect(describeError(second)).toBe(describeError(first));
        expect(describeError(unavailable)).toBe(
          'UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED',
        );
      } finally {
        slow.close();
        refused.close();
        silent.forceShutdown();
      }
    });
  });

  describe('network failures', () => {
    it('follows the cause of a fetch that found nothing listening', async () => {
      const port = await closedPort();
      const error = await thrownBy(() => fetch(`http://127.0.0.1:${port}/`));

      expect(error).toMatchObject({ message: 'fetch failed' });
      expect(describeError(error)).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    });

    it('follows the cause of a client-node call to an API server that is not listening', async () => {
      const port = await closedPort();
      const core = kubeConfigFor(`https://127.0.0.1:${port}`).makeApiClient(CoreV1Api);
      const error = await thrownBy(() => core.readNamespacedConfigMap({ name: 'source', namespace: 'default' }));

      expect(describeError(error)).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    });

    it('lists the errors of the AggregateError a refused dual-stack connection gives', async () => {
      const port = await closedPort();
      // Two addresses, as `localhost` often resolves to: Node tries both and aggregates the refusals.
      const lookup = (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options.all
          ? callback(null, [
              { address: '127.0.0.1', family: 4 },
              { address: '::1', family: 6 },
            ])
          : callback(null, '127.0.0.1', 4);
      const aggregate = await new Promise<unknown>((resolve) =>
        connect({ host: 'dual-stack.test', port, lookup, autoSelectFamily: true } as never).on('error', resolve),
      );
      const refused = new RegExp(`^connect E[A-Z]+ 127\\.0\\.0\\.1:${port}; connect E[A-Z]+ ::1:${port}$`);

      expect(aggregate).toMatchObject({ name: 'AggregateError', message: '' });
      expect(describeError(aggregate)).toMatch(refused);
      // As undici's fetch wraps it (outside Jest's module sandbox, which makes undici wrap it once more).
      expect(describeError(new TypeError('fetch failed', { cause: aggregate }))).toBe(
        `fetch failed: ${describeError(aggregate)}`,
      );
    });

    it('lists the first three distinct errors of an AggregateError and counts the others', async () => {
      const reasons = ['a', 'b', 'b', 'c', 'd', 'e'].map((text) => Promise.reject(new Error(`shard ${text} failed`)));
      const error = await thrownBy(() => Promise.any(reasons));

      expect(describeError(error)).toBe(
        'All promises were rejected: shard a failed; shard b failed; shard c failed (and 2 more)',
      );
    });

    it('says what a code-only error is, as axios gives for a refused dual-stack connection', () => {
      const aggregate = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
      const wrapped = Object.assign(new Error(''), { name: 'AxiosError', code: 'ECONNREFUSED', cause: aggregate });

      expect(describeError(wrapped)).toBe('ECONNREFUSED');
    });
  });

  describe('aborts and timeouts', () => {
    let hanging: Server;
    let port: number;
    const sockets = new Set<Socket>();

    beforeAll(async () => {
      // Accepts connections and never answers.
      hanging = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      port = (hanging.address() as AddressInfo).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    });

    it('reads a fetch aborted by its signal', async () => {
      const controller = new AbortController();
      const reached = new Promise((resolve) =>
        hanging.once('connection', (socket: Socket) => socket.once('data', resolve)),
      );
      const pending = thrownBy(() => fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal }));
      await reached; // the request reaches the server before it is aborted
      controller.abort();
      const error = await pending;

      expect(error).toMatchObject({ name: 'AbortError' });
      expect(describeError(error)).toBe('This operation was aborted');
    });

    it('reads a fetch that timed out', async () => {
      const error = await thrownBy(() => fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(50) }));

      expect(error).toMatchObject({ name: 'TimeoutError' });
      expect(describeError(error)).toBe('The operation was aborted due to timeout');
    });

    it("says the reason of Node's AbortError when it says more than the abort", async () => {
      // Real time: the sleep is what the timeout aborts, for the error it throws.
      const error = await thrownBy(() => sleep(10_000, undefined, { signal: AbortSignal.timeout(20) }));

      expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
      expect(describeError(error)).toBe('The operation was aborted due to timeout');
    });

    it('says the reason a caller aborted with', async () => {
      const controller = new AbortController();
      controller.abort(new Error('the Lease was lost'));
      const error = await thrownBy(() => fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal }));

      expect(describeError(error)).toBe('the Lease was lost');
    });
  });

  describe('messages', () => {
    it('joins the lines of a message, leaving out stack frames, colours and control characters', () => {
      const error = new Error(
        'validation failed:\n  - spec.source: required\r\n  - spec.targets: \u001b[31mempty\u001b[39m\n' +
          '    at validate (/app/dist/validate.js:12:7)\n    at /app/dist/main.js:3:1\u0007',
      );

      expect(describeError(error)).toBe('validation failed: - spec.source: required - spec.targets: empty');
    });

    it('leaves out the id and time of the request a message reports on, so that repeats read the same', () => {
      const entraId = () =>
        new Error(
          `AADSTS7000215: Invalid client secret provided. Trace ID: ${crypto.randomUUID()} ` +
            `Correlation ID: ${crypto.randomUUID()} Timestamp: ${new Date().toISOString().replace('T', ' ')}`,
        );
      const openai = () =>
        new Error(
          `The server had an error while processing your request. (Please include the request ID req_${crypto.randomUUID().replaceAll('-', '')} in your message.)`,
        );

      expect(describeError(entraId())).toBe('AADSTS7000215: Invalid client secret provided.');
      expect(describeError(openai())).toBe(describeError(openai()));
      expect(describeError(new Error('lease renewed at 12:00; retry at 12:05'))).toBe(
        'lease renewed at 12:00; retry at 12:05',
      );
    });

    it('keeps a line that starts with "at" but is no stack frame', () => {
      expect(describeError(new Error('expected\nat least one target'))).toBe('expected at least one target');
    });

    it("says an empty message's code, else its name", () => {
      expect(describeError(Object.assign(new Error(''), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))).toBe(
        'ERR_STREAM_PREMATURE_CLOSE',
      );
      expect(describeError(new DOMException('', 'TimeoutError'))).toBe('TimeoutError');
      expect(describeError(new Error())).toBe('Error');
    });

    it('is at most 300 bytes, cut on a character boundary', () => {
      const description = describeError(new Error('é'.repeat(400)));

      expect(byteLength(description)).toBeLessThanOrEqual(300);
      expect(description).toMatch(/^é+\.\.\.$/);
    });

    it('takes another length', () => {
      expect(byteLength(describeError(new Error('x'.repeat(2000)), { maxBytes: 1024 }))).toBe(1024);
      expect(describeError(new Error('short'), { maxBytes: 16 })).toBe('short');
      expect(() => describeError(new Error('x'), { maxBytes: 8 })).toThrow(
        /maxBytes must be an integer of at least 16/,
      );
      expect(() => describeError(new Error('x'), { maxBytes: 20.5 })).toThrow(RangeError);
    });
  });

  describe('values that are not Errors', () => {
    it.each([
      ['a string', 'source is missing', 'source is missing'],
      ['a string of several lines', 'first\nsecond', 'first second'],
      ['an empty string', '', 'an empty string was thrown'],
      ['a number', 42, '42'],
      ['a bigint', 10n, '10'],
      ['a boolean', false, 'false'],
      ['a symbol', Symbol('stop'), 'Symbol(stop)'],
      ['undefined', undefined, 'undefined was thrown'],
      ['null', null, 'null was thrown'],
      ['a function', () => 1, 'a function was thrown'],
      ['an object with a message', { message: 'quota exceeded', code: 7 }, 'quota exceeded'],
      ['an object without one', { phase: 'Pending', retries: 3 }, "{ phase: 'Pending', retries: 3 }"],
    ])('describes %s', (_kind, thrown, description) => {
      expect(describeError(thrown)).toBe(description);
    });

    const token = 'Zk3q9Xw2Lm8Pv5Rt7Yb1Nc4Hd6Js0Ga';
    it.each([
      [
        'raw header lists',
        { statusCode: 0, rawHeaders: ['authorization', `Bearer ${token}`], phase: 'upload' },
        "{ statusCode: 0, phase: 'upload' }",
      ],
      [
        'fetch-style [name, value] pairs',
        {
          retry: 2,
          list: [
            ['x-api-key', token],
            ['accept', 'application/json'],
          ],
        },
        "{ retry: 2, list: { 'x-api-key': [redacted], accept: 'application/json' } }",
      ],
      ['a Map of headers', new Map([['x-api-key', token]]), "Map(1) { 'x-api-key': [redacted] }"],
      [
        "a client's config, request and options",
        { config: { headers: { Authorization: `Bearer ${token}` } }, request: {}, options: {}, step: 'push' },
        "{ step: 'push' }",
      ],
      [
        'a field named for a credential',
        { user: 'ci', clientSecret: token },
        "{ user: 'ci', clientSecret: [redacted] }",
      ],
      [
        'fields named for a credential in other styles',
        { appKey: token, 'Ocp-Apim-Subscription-Key': token, bindPW: token, sessionId: token, key: 'app' },
        "{ appKey: [redacted], 'Ocp-Apim-Subscription-Key': [redacted], bindPW: [redacted], sessionId: [redacted], key: 'app' }",
      ],
      [
        'a URL with a token in its query',
        { target: `https://hooks.example.com/notify?t=${token}&page=2` },
        "{ target: 'https://hooks.example.com/notify?t=[redacted]&page=2' }",
      ],
      [
        'a field name longer than code writes, cut, its value redacted',
        { [`k${'e'.repeat(100_000)}`]: token },
        `{ 'k${'e'.repeat(199)}…': [redacted] }`,
      ],
      ['a class instance, by its name only', { at: new URL(`https://example.com/?t=${token}`) }, '{ at: [URL] }'],
      [
        'many fields, the first eight',
        Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, i])),
        '{ f0: 0, f1: 1, f2: 2, f3: 3, f4: 4, f5: 5, f6: 6, f7: 7, … 4 more }',
      ],
    ])('describes a plain object cause by its shape: %s', (_kind, cause, description) => {
      const described = describeError(new Error('', { cause }));

      expect(described).toBe(description);
      expect(described).not.toContain(token);
    });
  });

  describe('never throws', () => {
    it('on a message getter that throws', () => {
      const error = new Error('unused');
      Object.defineProperty(error, 'message', {
        get() {
          throw new Error('no message for you');
        },
      });
      Object.defineProperty(error, 'cause', {
        get() {
          throw new Error('no cause either');
        },
      });

      expect(describeError(error)).toBe('Error');
    });

    it('on a revoked Proxy, thrown or as a cause', () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();

      expect(typeof describeError(proxy)).toBe('string');
      expect(describeError(new Error('outer', { cause: proxy }))).toMatch(/^outer/);
    });

    it('on a Proxy whose every trap throws', () => {
      const trap = () => {
        throw new Error('trap');
      };
      const hostile = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap });

      expect(typeof describeError(hostile)).toBe('string');
      expect(typeof describeError(new Error('outer', { cause: hostile }))).toBe('string');
    });

    it('on circular causes', () => {
      const first = new Error('first');
      const second = new Error('second', { cause: first });
      (first as { cause?: unknown }).cause = second;
      const itself = new Error('itself');
      (itself as { cause?: unknown }).cause = itself;

      expect(describeError(first)).toBe('first: second');
      expect(describeError(itself)).toBe('itself');
    });

    it('on a cause chain made anew at every step', () => {
      const endless = (depth: number): object => ({
        message: `level ${depth}`,
        get cause() {
          return endless(depth + 1);
        },
      });

      expect(describeError(endless(0))).toBe('level 0: level 1: level 2: level 3: level 4: level 5');
    });

    property.prop([fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true })])(
      'on anything, and gives one line within the bound',
      (thrown) => {
        const description = describeError(thrown);

        expect(description).not.toMatch(/[\r\n]/);
        expect(byteLength(description)).toBeLessThanOrEqual(300);
        expect(description.length).toBeGreaterThan(0);
      },
    );
  });
});

function closeHttp(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
