// Credentials that hang, rotate or cannot work here: a hung authentication is given up at the publish's
// timeout and tried again (health says the credentials fail meanwhile), an exec plugin whose token the
// server refuses runs again, a kubeconfig's token-file is read again, and the auth-providers that would
// block the event loop or cannot refresh are refused at start-up.
import 'reflect-metadata';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsHealth, KubeEventsModule, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { eventually } from '../support/eventually.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { muteLogger } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';
import { rejectionOrNothing } from '../support/settled.js';
import { writeTokenFileKubeconfig } from '../support/token-file-kubeconfig.js';

/** Prints the token in TOKEN_FILE as an ExecCredential, and counts its runs in RUNS_FILE. */
const TOKEN_PLUGIN = `
import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync(process.env.RUNS_FILE, process.pid + '\\n');
const token = readFileSync(process.env.TOKEN_FILE, 'utf8').trim();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } }));
`;

describe('credentials that hang, rotate or cannot work here', () => {
  let server: FakeApiServer;
  let dir: string;
  let app: TestingModule | undefined;
  const savedKubeconfig = process.env.KUBECONFIG;

  const start = async (options: Partial<KubeEventsModuleOptions>) => {
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, permissionCheck: 'off', ...options })],
    }).compile();
    await app.init();
    return app;
  };
  const publish = (started: TestingModule, name = 'app') =>
    rejectionOrNothing(started.get(EventRecorder).publish(configMap(name), syncFailed));

  beforeEach(async () => {
    server = await FakeApiServer.start({ token: 'token-1' });
    dir = await mkdtemp(join(tmpdir(), 'kube-events-rotation-'));
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

  it('gives up an authentication that never settles at the timeout, says the credentials fail, and tries again', async () => {
    let calls = 0;
    const kubeConfig = server.kubeConfig({ token: undefined, authProvider: { name: 'corp-sso', config: {} } });
    kubeConfig.addAuthenticator({
      isAuthProvider: (user: User) => (user.authProvider as { name?: string } | undefined)?.name === 'corp-sso',
      applyAuthentication: async (_user: User, options: { headers?: Record<string, string> }) => {
        calls++;
        // The first call hangs for good, as an identity service that accepted the connection and never answers.
        if (calls === 1) await new Promise(() => undefined);
        options.headers = { ...options.headers, Authorization: 'Bearer token-1' };
      },
    });
    // A real second, not less: the authentication's bound is real time, and a loaded machine can hold a ready
    // authentication's continuation for a few hundred milliseconds.
    const started = await start({ kubeConfig, timeout: 1_000 });

    // The publish's own deadline and its request's end together: the publish times out, its occurrence queued.
    expect(await publish(started)).toMatchObject({ name: 'PublishTimeoutError', queued: true });
    const health = await eventually('the credentials failing', () => {
      const state = started.get(KubeEventsHealth).state();
      return state.credentials.working ? undefined : state;
    });
    expect(health).toMatchObject({
      writable: false,
      credentials: {
        working: false,
        why: "The kubeconfig's corp-sso authentication did not finish within 1000 ms; it is given up and tried again on the credentials' backoff.",
      },
    });

    // Tried again on the credentials' backoff: the queued occurrence is written by a new authentication.
    // The server holds the Event before the recorder has read the answer that says the credentials work again.
    await eventually(
      'the Event written, and the credentials working again',
      () => server.events().length === 1 && started.get(KubeEventsHealth).state().credentials.working,
      { timeoutMs: 10_000 },
    );
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(await publish(started)).toBeUndefined();
    expect(server.events()[0].series?.count).toBe(2);
    expect(started.get(KubeEventsHealth).state().credentials).toEqual({ working: true });
  });

  it('runs an exec plugin again once the server refuses its token (401), once for the writes refused together', async () => {
    const runsFile = join(dir, 'runs');
    const tokenFile = join(dir, 'token');
    const plugin = join(dir, 'plugin.mjs');
    await writeFile(plugin, TOKEN_PLUGIN);
    await writeFile(tokenFile, 'token-1');
    const kubeConfig: KubeConfig = server.kubeConfig({
      token: undefined,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'RUNS_FILE', value: runsFile },
          { name: 'TOKEN_FILE', value: tokenFile },
        ],
        interactiveMode: 'Never',
      },
    });
    const started = await start({ kubeConfig, timeout: 5_000 });
    const runs = async () => (await readFile(runsFile, 'utf8')).split('\n').filter(Boolean).length;

    expect(await publish(started, 'a')).toBeUndefined();
    expect(await runs()).toBe(1);

    // The token rotates: the server takes only the new one, which the plugin now prints.
    await writeFile(tokenFile, 'token-2');
    server.acceptToken('token-2');
    const refused = await Promise.all([publish(started, 'b'), publish(started, 'c'), publish(started, 'd')]);
    for (const error of refused) expect(error).toMatchObject({ statusCode: 401 });

    expect(await publish(started, 'e')).toBeUndefined();
    expect(await runs()).toBe(2);
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer token-2');
  });

  it("reads a kubeconfig's token-file again after the server refused its token", async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'token-1');
    const kubeconfigFile = join(dir, 'kubeconfig');
    await writeTokenFileKubeconfig(kubeconfigFile, {
      cluster: { server: server.url, 'insecure-skip-tls-verify': true },
      tokenFile,
    });
    process.env.KUBECONFIG = kubeconfigFile;
    const started = await start({ timeout: 5_000 });

    expect(await publish(started, 'a')).toBeUndefined();
    await writeFile(tokenFile, 'token-2');
    server.acceptToken('token-2');
    expect(await publish(started, 'b')).toMatchObject({ statusCode: 401 });

    expect(await publish(started, 'c')).toBeUndefined();
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer token-2');
  });

  it.each([
    [
      'gcp',
      /gcp auth-provider, which Kubernetes removed in 1\.26 .* exec credential plugin instead \(gke-gcloud-auth-plugin\)/,
    ],
    ['azure', /azure auth-provider, which Kubernetes removed in 1\.26 .* exec credential plugin instead \(kubelogin\)/],
    [
      'oidc',
      /oidc auth-provider, whose token refresh fails in @kubernetes\/client-node 2\.x .* exec credential plugin/,
    ],
  ])('refuses the %s auth-provider at start-up, naming what to use instead', async (name, message) => {
    const kubeConfig = server.kubeConfig({
      token: undefined,
      authProvider: { name, config: { 'cmd-path': '/bin/sleep', 'cmd-args': '3', 'idp-issuer-url': server.url } },
    });

    await expect(start({ kubeConfig })).rejects.toThrow(message);
    expect(server.requests).toHaveLength(0);
  });
});
