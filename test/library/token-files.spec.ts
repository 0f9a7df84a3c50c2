// A token file is read as client-go reads it: trimmed of the newline `echo "$TOKEN" > file` ends it with,
// bounded (a file over what any API server accepts in a request's headers is refused before any request),
// and read again at the next request after the server refused its token. A token that cannot go in a
// header is a credential failure in the error, the health and the metrics, never an unreachable server.
import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import {
  EventRecorder,
  healthSummary,
  KubeEventsHealth,
  KubeEventsMetrics,
  KubeEventsModule,
  PublishCredentialError,
} from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';
import { rejectionOrNothing } from '../support/settled.js';
import { writeTokenFileKubeconfig } from '../support/token-file-kubeconfig.js';

/** kube-apiserver's limit on a request's headers. */
const ONE_MIB = 1024 * 1024;

// A failed credential keeps its occurrence queued: shutting down tries it until the recorder's timeout.
jest.setTimeout(20_000);

describe('token files', () => {
  let server: FakeApiServer;
  let dir: string;
  let tokenFile: string;
  let app: TestingModule | undefined;
  const savedKubeconfig = process.env.KUBECONFIG;
  let controllers = 0;

  /**
   * A recorder whose kubeconfig names `tokenFile` as its user's `token-file`: the module's default (from
   * $KUBECONFIG), or one the application loaded itself and gave the module (client-node reads the file then).
   */
  const start = async (kubeconfigFrom: 'default' | 'application' = 'default') => {
    const kubeconfigFile = join(dir, 'kubeconfig');
    await writeTokenFileKubeconfig(kubeconfigFile, {
      cluster: { server: server.url, 'insecure-skip-tls-verify': true },
      tokenFile,
    });
    process.env.KUBECONFIG = kubeconfigFile;
    let kubeConfig: KubeConfig | undefined;
    if (kubeconfigFrom === 'application') {
      kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(kubeconfigFile);
    }
    const controller = `token-files-${++controllers}`;
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller }, permissionCheck: 'off', timeout: 5_000, kubeConfig }),
      ],
    }).compile();
    await app.init();
    const started = app;
    const publish = (name = 'app') =>
      rejectionOrNothing(started.get(EventRecorder).publish(configMap(name), syncFailed));
    return { app: started, controller, publish };
  };

  beforeEach(async () => {
    server = await FakeApiServer.start({ token: 'token-1' });
    dir = await mkdtemp(join(tmpdir(), 'kube-events-token-files-'));
    tokenFile = join(dir, 'token');
    muteLogger('warn');
    muteLogger('log');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    if (savedKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = savedKubeconfig;
    await server.close();
    await rm(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it.each([
    ['a newline, as `echo "$TOKEN" > file` writes it', 'token-1\n', 'default' as const],
    ['white space around it, as Go trims it', ' \t\r\ntoken-1\r\n\u00a0 ', 'default' as const],
    ['a newline, in a kubeconfig the application loaded', 'token-1\n', 'application' as const],
  ])('trims a token file ending with %s, and publishes', async (_, content, kubeconfigFrom) => {
    await writeFile(tokenFile, content);
    const { publish } = await start(kubeconfigFrom);

    expect(await publish()).toBeUndefined();

    expect(server.events()).toHaveLength(1);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(['Bearer token-1']);
  });

  it('refuses a token file over 1 MiB as a credential failure, without sending it', async () => {
    // What no API server accepts in a request's headers: kube-apiserver answers 431 past 1 MiB.
    await writeFile(tokenFile, 'a'.repeat(3 * ONE_MIB));
    const { app, controller, publish } = await start();

    const error = await publish();

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toBe(
      `The kubeconfig's token file ${JSON.stringify(tokenFile)} holds more than 1 MiB, more than the API server ` +
        "accepts in a request's headers, so no request was sent; it was not read further.",
    );
    expect(server.requests).toHaveLength(0);
    expect(healthSummary(app.get(KubeEventsHealth).state())).toMatchObject({
      writable: false,
      server: 'reachable',
      credentials: 'failing',
    });
    expect(app.get(KubeEventsMetrics).snapshot()[controller].failed).toEqual({ credentials: 1 });
  });

  it('refuses an empty token file as a credential failure, as client-go does', async () => {
    await writeFile(tokenFile, '\n');
    const { publish } = await start();

    expect(await publish()).toMatchObject({
      name: 'PublishCredentialError',
      message: expect.stringContaining('holds no token') as unknown,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('takes a token that cannot go in a header for a credential failure in the error, the health and the metrics, never an unreachable server', async () => {
    // A line break inside the token, which trimming leaves: the header would be invalid.
    await writeFile(tokenFile, 'token-1\nsecret-second-line\n');
    const { app, controller, publish } = await start();

    const error = await publish();

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toBe(
      'The kubeconfig\'s credentials make an invalid "Authorization" header (a character HTTP does not allow in a ' +
        'header, such as a line break inside the token), so no request was sent; its value is not shown.',
    );
    expect(server.requests).toHaveLength(0);
    const state = app.get(KubeEventsHealth).state();
    expect(state).toMatchObject({ writable: false, server: { reachable: true }, credentials: { working: false } });
    expect(JSON.stringify(state)).not.toContain('secret-second-line');
    expect(app.get(KubeEventsMetrics).snapshot()[controller].failed).toEqual({ credentials: 1 });
  });

  it('reads the token file again at the next request after the server refused its token, keeping one read since', async () => {
    await writeFile(tokenFile, 'token-1');
    const { publish } = await start();
    expect(await publish('a')).toBeUndefined();

    // Rotated within the minute the token is kept: only a refusal makes it read again.
    await writeFile(tokenFile, 'token-2\n');
    server.acceptToken('token-2');
    expect(await publish('b')).toMatchObject({ statusCode: 401 });
    expect(await publish('c')).toBeUndefined();
    expect(await publish('d')).toBeUndefined();

    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
      'Bearer token-2',
    ]);
  });
});
