// One pool of keep-alive connections per recorder, over TLS, with every
// authentication client-node supports still refreshing its credentials.
// client-node alone opens a connection (and a TLS handshake) per request.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { jest } from '@jest/globals';
import { EventsV1Api, KubeConfig } from '@kubernetes/client-node';
import { EventRecorder, PublishTimeoutError, PublishUnreachableError } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { FakeApiServer, TLS_CERTIFICATE } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { advanceUntilSeen, firingTimersWithin } from '../support/fake-time.js';
import { moveWallClock } from '../support/wall-clock.js';

/** A client-go exec credential plugin: prints the token in `file`, valid for `validMs`. */
const EXEC_PLUGIN = `
import { readFileSync } from 'node:fs';
const token = readFileSync(process.env.TOKEN_FILE, 'utf8').trim();
const expirationTimestamp = new Date(Date.now() + Number(process.env.VALID_MS)).toISOString();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token, expirationTimestamp } }));
`;

/** A kubeconfig as `kubectl config view --raw` prints it (JSON is YAML), for `loadFromString`: one context, `tls` its cluster's TLS fields. */
const kubeconfigText = (server: string, tls: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'cluster', cluster: { server, ...tls } }],
    users: [{ name: 'user', user: { token: 'static-token' } }],
    contexts: [{ name: 'context', context: { cluster: 'cluster', user: 'user' } }],
    'current-context': 'context',
  });
const CA_DATA = TLS_CERTIFICATE.toString('base64');

describe('connections to the API server', () => {
  let server: FakeApiServer;
  let dir: string;
  const recorders: EventRecorder[] = [];
  const recorderFor = (kubeConfig: KubeConfig, timeout = 2_000, clock?: FakeClock) => {
    const recorder = new EventRecorder({ reporter: { controller: 'widgets' }, kubeConfig, timeout, clock });
    recorders.push(recorder);
    return recorder;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-events-pool-'));
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
    await server?.close();
    await rm(dir, { recursive: true, force: true });
    jest.useRealTimers();
  });

  it('reuses one connection for sequential writes over TLS, and at most the pool for concurrent ones', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'static-token' });
    const recorder = recorderFor(server.kubeConfig());
    for (let i = 0; i < 20; i++) await recorder.publish(configMap(`sequential-${i}`), syncFailed);
    expect(server.events()).toHaveLength(20);
    // undici may open a second connection for a request sent while the first is being handed back to the pool.
    expect(server.connections).toBeLessThanOrEqual(2);

    await Promise.all(
      Array.from({ length: 200 }, (_, i) => recorder.publish(configMap(`concurrent-${i}`), syncFailed)),
    );
    expect(server.events()).toHaveLength(220);
    expect(server.connections).toBeLessThanOrEqual(8);
  });

  it('replaces a connection the server closed', async () => {
    server = await FakeApiServer.start({ tls: true });
    const recorder = recorderFor(server.kubeConfig());
    await recorder.publish(configMap('a'), syncFailed);
    server.closeConnections();
    await recorder.publish(configMap('a'), syncFailed);
    expect(server.connections).toBe(2);
    expect(server.events()[0].series?.count).toBe(2);
  });

  it('runs an exec credential plugin again when its token expires, on the same connection', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'token-1' });
    const plugin = join(dir, 'credential-plugin.mjs');
    const tokenFile = join(dir, 'token');
    await writeFile(plugin, EXEC_PLUGIN);
    await writeFile(tokenFile, 'token-1');
    const kubeConfig = server.kubeConfig({
      token: undefined,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'TOKEN_FILE', value: tokenFile },
          { name: 'VALID_MS', value: '500' },
        ],
        interactiveMode: 'Never',
      },
    });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap('a'), syncFailed);

    await writeFile(tokenFile, 'token-2');
    server.acceptToken('token-2');
    moveWallClock(700); // past the token's 500 ms, on the wall clock client-node reads
    await recorder.publish(configMap('a'), syncFailed);

    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    expect(server.events()[0].series?.count).toBe(2);
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('reads a rotated service-account token file again, as client-go does every minute', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'bound-token-1' });
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'bound-token-1');
    const kubeConfig = server.kubeConfig({
      token: undefined,
      authProvider: { name: 'tokenFile', config: { tokenFile } },
    });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap('a'), syncFailed);

    // The kubelet rotates the projected token; only the wall clock that client-node reads moves on.
    await writeFile(tokenFile, 'bound-token-2');
    server.acceptToken('bound-token-2');
    moveWallClock(61_000);
    await recorder.publish(configMap('a'), syncFailed);

    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer bound-token-1',
      'Bearer bound-token-2',
    ]);
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('reads a CA file that changed within a minute, not for every request', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'static-token' });
    // A CA that did not sign the server's certificate, until the file is rotated.
    const caFile = join(dir, 'ca.crt');
    await writeFile(caFile, rootCertificates[0]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(
      { name: 'rotating-ca', server: server.url, caFile, skipTLSVerify: false },
      { name: 'user', token: 'static-token' },
    );
    const clock = new FakeClock();
    const recorder = recorderFor(kubeConfig, 2_000, clock);
    await expect(recorder.publish(configMap('a'), syncFailed)).rejects.toBeInstanceOf(PublishUnreachableError);

    // The recorder keeps retrying, still with the CA it read a moment ago.
    await writeFile(caFile, TLS_CERTIFICATE);
    let retriesFailed = 0;
    recorder.outcomes$.subscribe((outcome) => (retriesFailed += outcome.kind === 'failed' ? 1 : 0));
    await advanceUntilSeen(clock, () => retriesFailed >= 3, { stepMs: 100, limitMs: 60_000 });
    expect(server.events()).toHaveLength(0);

    moveWallClock(61_000);
    await recorder.publish(configMap('b'), syncFailed).catch(() => undefined); // queued behind the unreachable server, or written
    await recorder.flush();
    expect(
      server
        .events()
        .map((event) => event.regarding?.name)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('verifies the server at the next request once the kubeconfig is loaded again with verification on', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'static-token' });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfigText(server.url, { 'insecure-skip-tls-verify': true }));
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap('a'), syncFailed);

    // Same context name, verification on, no CA that signed the server's certificate: client-node refuses it now.
    kubeConfig.loadFromString(kubeconfigText(server.url, { 'insecure-skip-tls-verify': false }));
    await expect(kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'default' })).rejects.toThrow();
    const refused = await recorder.publish(configMap('b'), syncFailed).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PublishUnreachableError);
    expect((refused as Error).message).toMatch(/certificate/);
    expect(server.events().map((event) => event.regarding?.name)).toEqual(['a']);

    // The CA that signed it: what was queued is written.
    kubeConfig.loadFromString(kubeconfigText(server.url, { 'certificate-authority-data': CA_DATA }));
    await recorder.flush();
    expect(
      server
        .events()
        .map((event) => event.regarding?.name)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('checks the server against a tls-server-name changed in the kubeconfig at the next request', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'static-token' });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(
      kubeconfigText(server.url, { 'certificate-authority-data': CA_DATA, 'tls-server-name': 'localhost' }),
    );
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap('a'), syncFailed);

    kubeConfig.loadFromString(
      kubeconfigText(server.url, { 'certificate-authority-data': CA_DATA, 'tls-server-name': 'elsewhere.example' }),
    );
    const refused = await recorder.publish(configMap('b'), syncFailed).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(PublishUnreachableError);
    expect((refused as Error).message).toMatch(/elsewhere\.example/);
    expect(server.events()).toHaveLength(1);
  });

  it('times out a write waiting for a connection that hung requests hold, and writes it once they are let go', async () => {
    server = await FakeApiServer.start({ tls: true, token: 'static-token' });
    for (let i = 0; i < 8; i++) server.hangNext('POST');
    const clock = new FakeClock();
    const recorder = recorderFor(server.kubeConfig(), 500, clock);
    const publishing = Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        recorder.publish(configMap(`held-${i}`), syncFailed).then(
          () => 'resolved',
          (error: unknown) => error,
        ),
      ),
    );
    await server.waitForRequests(8, 'POST');
    await clock.advance(500);
    const results = await publishing;
    // The ninth waited in the pool's queue behind the eight hung ones: its deadline held all the same (it would
    // otherwise have been sent, and answered, once the hung ones were aborted).
    for (const result of results) expect(result).toMatchObject({ name: PublishTimeoutError.name, queued: true });

    // flush() writes them once their backoffs have passed; over TLS on a loaded machine that takes what it takes.
    await firingTimersWithin(clock, 300, recorder.flush());
    expect(
      server
        .events()
        .map((event) => event.regarding?.name)
        .sort(),
    ).toEqual(Array.from({ length: 9 }, (_, i) => `held-${i}`).sort());
    expect(server.events().every((event) => (event.series?.count ?? 1) === 1)).toBe(true);
  });
});
