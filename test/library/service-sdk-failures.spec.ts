// What services' SDKs throw, produced by the real packages against a loopback server that answers as each
// service does (with a new request id and time in every answer): describeError says what failed in the service's
// own words, the same for 20 identical failures, so that they fold into one Event.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { KubernetesObject } from '@kubernetes/client-node';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { Client as ElasticClient } from '@elastic/elasticsearch';
import OpenAI from 'openai';
import Stripe from 'stripe';
import mysql from 'mysql2/promise';
import { z } from 'zod';
import { describeError } from 'nestjs-kube-events';
import { FakeEventRecorder } from 'nestjs-kube-events/testing';

const REPEATS = 20;

/** A request's id and time, new in every answer, as services put them in headers and messages. */
const requestId = () => crypto.randomUUID();
const now = () => new Date().toISOString();

/** What nginx answers when its upstream is down: HTML that is not XML (`<hr>` is never closed). */
const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
  '<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n';

/** Each service's refusal, by the path its SDK asks for. */
function answer(path: string): { status: number; headers: Record<string, string>; body: string } {
  if (path.startsWith('/devstoreaccount1/locked')) {
    const signature = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
    return {
      status: 403,
      headers: {
        'content-type': 'application/xml',
        'x-ms-request-id': requestId(),
        'x-ms-error-code': 'AuthenticationFailed',
      },
      body:
        '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the request. ' +
        `Make sure the value of Authorization header is formed correctly including the signature.\nRequestId:${requestId()}\nTime:${now()}</Message>` +
        `<AuthenticationErrorDetail>The MAC signature found in the HTTP request '${signature}' is not the same as any computed signature. ` +
        `Server used following string to sign: 'GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:${new Date().toUTCString()}\nx-ms-version:2025-11-05\n/devstoreaccount1/locked\nrestype:container'.</AuthenticationErrorDetail></Error>`,
    };
  }
  if (path.startsWith('/devstoreaccount1/')) {
    return {
      status: 404,
      headers: {
        'content-type': 'application/xml',
        'x-ms-request-id': requestId(),
        'x-ms-error-code': 'ContainerNotFound',
      },
      body:
        '<?xml version="1.0" encoding="utf-8"?><Error><Code>ContainerNotFound</Code>' +
        `<Message>The specified container does not exist.\nRequestId:${requestId()}\nTime:${now()}</Message></Error>`,
    };
  }
  if (path.startsWith('/widgets/')) {
    const cause = {
      type: 'index_not_found_exception',
      reason: 'no such index [widgets]',
      'resource.type': 'index_or_alias',
      'resource.id': 'widgets',
      index_uuid: '_na_',
      index: 'widgets',
    };
    return {
      status: 404,
      headers: { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch', 'x-opaque-id': requestId() },
      body: JSON.stringify({ error: { root_cause: [cause], ...cause }, status: 404 }),
    };
  }
  if (path.startsWith('/v1/chat/')) {
    return {
      status: 429,
      headers: { 'content-type': 'application/json', 'x-request-id': `req_${requestId().replaceAll('-', '')}` },
      body: JSON.stringify({
        error: {
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      }),
    };
  }
  if (path.startsWith('/v1/customers/')) {
    const id = `req_${requestId().replaceAll('-', '').slice(0, 14)}`;
    return {
      status: 404,
      headers: { 'content-type': 'application/json', 'request-id': id },
      body: JSON.stringify({
        error: {
          code: 'resource_missing',
          doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
          message: "No such customer: 'cus_NffrFeUfNV2Hib'",
          param: 'id',
          request_log_url: `https://dashboard.stripe.com/test/logs/${id}?t=${Date.now()}`,
          type: 'invalid_request_error',
        },
      }),
    };
  }
  return { status: 502, headers: { 'content-type': 'text/html', date: new Date().toUTCString() }, body: NGINX_502 };
}

/** A MySQL protocol packet: its length (3 bytes), its sequence number, its payload. */
function mysqlPacket(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequence;
  return Buffer.concat([header, payload]);
}

/** A MySQL 8 server that refuses every login as a server does for a wrong password (error 1045). */
async function refusingMysql(): Promise<{ port: number; close: () => Promise<void> }> {
  // Protocol 41, secure connection and plugin auth, among others.
  const capabilities = 0x000ff7ff;
  const greeting = mysqlPacket(
    0,
    Buffer.concat([
      Buffer.from([10]),
      Buffer.from('8.0.36\0'),
      Buffer.from([1, 0, 0, 0]),
      Buffer.from('abcdefgh'),
      Buffer.from([0, capabilities & 0xff, (capabilities >> 8) & 0xff, 0x21, 2, 0]),
      Buffer.from([(capabilities >> 16) & 0xff, (capabilities >> 24) & 0xff, 21]),
      Buffer.alloc(10),
      Buffer.from('ijklmnopqrst\0'),
      Buffer.from('mysql_native_password\0'),
    ]),
  );
  const refusal = mysqlPacket(
    2,
    Buffer.concat([
      Buffer.from([0xff, 0x15, 0x04]),
      Buffer.from("#28000Access denied for user 'app'@'10.0.0.7' (using password: YES)"),
    ]),
  );
  const server = createTcpServer((socket) => {
    socket.write(greeting);
    socket.once('data', () => socket.end(refusal));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const widget: KubernetesObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns-a', uid: 'uid-w1' },
};

/** The error `work` rejects with. */
const rejectionOf = (work: () => Promise<unknown>): Promise<unknown> =>
  work().then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe("services' SDK errors", () => {
  let server: Server;
  let url: string;
  let port: number;
  const recorders: FakeEventRecorder[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const { status, headers, body } = answer(req.url ?? '/');
      res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
  });

  /** `REPEATS` failures of `call`: their descriptions, and how many Events they make when published as failures. */
  async function repeated(
    call: () => Promise<unknown>,
  ): Promise<{ described: string[]; events: number; count: number }> {
    const recorder = new FakeEventRecorder();
    recorders.push(recorder);
    const described: string[] = [];
    for (let attempt = 0; attempt < REPEATS; attempt++) {
      const note = describeError(await rejectionOf(call));
      described.push(note);
      await recorder.publishFailure(widget, { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note });
    }
    const events = recorder.events;
    return {
      described: [...new Set(described)],
      events: events.length,
      count: events.reduce((sum, e) => sum + e.count, 0),
    };
  }

  it("says Azure Storage's code and message (a 404, a 403), without the RequestId and Time lines of each answer", async () => {
    const blobs = new BlobServiceClient(
      `${url}/devstoreaccount1`,
      new StorageSharedKeyCredential('devstoreaccount1', Buffer.from('not-a-real-account-key').toString('base64')),
      { retryOptions: { maxTries: 1 } },
    );

    const missing = await repeated(() => blobs.getContainerClient('mirrors').getProperties());
    const refused = await repeated(() => blobs.getContainerClient('locked').getProperties());

    expect(missing).toEqual({
      described: ['HTTP 404 Not Found: ContainerNotFound: The specified container does not exist.'],
      events: 1,
      count: REPEATS,
    });
    expect(refused).toEqual({
      described: [
        'HTTP 403 Forbidden: AuthenticationFailed: Server failed to authenticate the request. ' +
          'Make sure the value of Authorization header is formed correctly including the signature.',
      ],
      events: 1,
      count: REPEATS,
    });
  });

  it("says Elasticsearch's error type and reason", async () => {
    const elastic = new ElasticClient({ node: url, maxRetries: 0 });
    try {
      const result = await repeated(() => elastic.search({ index: 'widgets' }));

      expect(result).toEqual({
        described: ['HTTP 404 Not Found: index_not_found_exception: no such index [widgets]'],
        events: 1,
        count: REPEATS,
      });
    } finally {
      await elastic.close();
    }
  });

  it("says OpenAI's error code, which tells an exhausted quota from rate limiting", async () => {
    const openai = new OpenAI({ apiKey: 'not-a-real-key', baseURL: `${url}/v1`, maxRetries: 0 });

    const result = await repeated(() =>
      openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    );

    expect(result.described).toHaveLength(1);
    expect(result.described[0]).toMatch(
      /^HTTP 429 Too Many Requests: insufficient_quota: You exceeded your current quota, please check your plan/,
    );
    expect(result).toMatchObject({ events: 1, count: REPEATS });
  });

  it("says Stripe's error code and message, without the request's id", async () => {
    const stripe = new Stripe('not-a-real-key', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });

    const result = await repeated(() => stripe.customers.retrieve('cus_NffrFeUfNV2Hib'));

    expect(result).toEqual({
      described: ["HTTP 404 Not Found: resource_missing: No such customer: 'cus_NffrFeUfNV2Hib'"],
      events: 1,
      count: REPEATS,
    });
  });

  it("says the status of an S3 answer the SDK could not parse (a proxy's HTML), for reads and HEADs alike", async () => {
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: `${url}/s3`,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'not-a-real-secret-access-key' },
    });
    try {
      const parsed = await rejectionOf(() => s3.send(new GetObjectCommand({ Bucket: 'configs', Key: 'app' })));
      const listed = await repeated(() => s3.send(new ListObjectsV2Command({ Bucket: 'configs' })));
      const headed = await repeated(() => s3.send(new HeadObjectCommand({ Bucket: 'configs', Key: 'app' })));

      expect(parsed).toMatchObject({ message: expect.stringMatching(/XML parse error: mismatched tags/) });
      expect(Object.keys(parsed as object)).not.toContain('$response');
      expect(describeError(parsed)).toBe('HTTP 502 Bad Gateway');
      expect(listed).toEqual({ described: ['HTTP 502 Bad Gateway'], events: 1, count: REPEATS });
      expect(headed).toEqual({ described: ['HTTP 502 Bad Gateway'], events: 1, count: REPEATS });
    } finally {
      s3.destroy();
    }
  });

  it("keeps MySQL's (using password: YES), which says whether a password was given, not what it was", async () => {
    const mysqlServer = await refusingMysql();
    try {
      const result = await repeated(() =>
        mysql.createConnection({
          host: '127.0.0.1',
          port: mysqlServer.port,
          user: 'app',
          password: 'not-a-real-password',
        }),
      );

      expect(result).toEqual({
        described: ["Access denied for user 'app'@'10.0.0.7' (using password: YES)"],
        events: 1,
        count: REPEATS,
      });
    } finally {
      await mysqlServer.close();
    }
  });

  it("says each of a zod error's issues by its path and message", async () => {
    const widgetSpec = z.object({
      name: z.string(),
      spec: z.object({ replicas: z.number(), containers: z.array(z.object({ image: z.string() })) }),
    });

    const result = await repeated(async () => widgetSpec.parse({ spec: { replicas: 'three', containers: [{}] } }));

    expect(result).toEqual({
      described: [
        'name: Invalid input: expected string, received undefined; ' +
          'spec.replicas: Invalid input: expected number, received string; ' +
          'spec.containers[0].image: Invalid input: expected string, received undefined',
      ],
      events: 1,
      count: REPEATS,
    });
  });
});
