// A recorder keeps the kubeconfig context that was current when it was
// built: switching the KubeConfig's current context (as an application that
// also talks to another cluster does) never sends one context's credentials
// or TLS settings to the other's server, while that context's own material,
// rotated in place, is still used.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { EventsV1Api, KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import { EventRecorder, PublishCredentialError } from 'nestjs-kube-events';
import { FakeApiServer, TLS_CERTIFICATE } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { moveWallClock } from '../support/wall-clock.js';

const CA_DATA = TLS_CERTIFICATE.toString('base64');

describe('the kubeconfig context of a recorder', () => {
  let dev: FakeApiServer;
  let prod: FakeApiServer;
  let dir: string;
  const recorders: EventRecorder[] = [];
  const recorderFor = (kubeConfig: KubeConfig, timeout = 2_000) => {
    const recorder = new EventRecorder({ reporter: { controller: 'widgets' }, kubeConfig, timeout });
    recorders.push(recorder);
    return recorder;
  };

  /** Two contexts, `dev` current: each its cluster (`prod`'s with its own TLS server name) and its user. */
  const twoContexts = (devUser: Partial<User>, prodUser: Partial<User>, devCluster: Partial<Cluster> = {}) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions(contextsOptions(devUser, prodUser, devCluster));
    return kubeConfig;
  };
  const contextsOptions = (devUser: Partial<User>, prodUser: Partial<User>, devCluster: Partial<Cluster> = {}) => ({
    clusters: [
      { name: 'dev-cluster', server: dev.url, caData: CA_DATA, skipTLSVerify: false, ...devCluster },
      { name: 'prod-cluster', server: prod.url, caData: CA_DATA, skipTLSVerify: false, tlsServerName: 'localhost' },
    ],
    users: [
      { name: 'dev-user', ...devUser },
      { name: 'prod-admin', ...prodUser },
    ],
    contexts: [
      { name: 'dev', cluster: 'dev-cluster', user: 'dev-user' },
      { name: 'prod', cluster: 'prod-cluster', user: 'prod-admin' },
    ],
    currentContext: 'dev',
  });
  const authorizations = (server: FakeApiServer) => server.requests.map((request) => request.headers.authorization);

  beforeEach(async () => {
    dev = await FakeApiServer.start({ tls: true, token: 'DEV-TOKEN' });
    prod = await FakeApiServer.start({ tls: true, token: 'PROD-ADMIN-TOKEN' });
    dir = await mkdtemp(join(tmpdir(), 'kube-events-context-'));
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown()));
    await Promise.all([dev.close(), prod.close()]);
    await rm(dir, { recursive: true, force: true });
    jest.useRealTimers();
  });

  it("sends the built context's token and TLS settings to its server after the current context is switched", async () => {
    const kubeConfig = twoContexts(
      { token: 'DEV-TOKEN' },
      { token: 'PROD-ADMIN-TOKEN', impersonateUser: 'system:admin' },
    );
    // A server name the dev server's certificate does not carry: dev's TLS settings must be the ones used.
    kubeConfig.clusters[1] = { ...kubeConfig.clusters[1], tlsServerName: 'prod.example' };
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap('before'), syncFailed);

    kubeConfig.setCurrentContext('prod');
    await recorder.publish(configMap('after'), syncFailed);
    await recorder.publish(configMap('before'), syncFailed);

    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN', 'Bearer DEV-TOKEN']);
    expect(dev.requests.every((request) => request.headers['impersonate-user'] === undefined)).toBe(true);
    expect(prod.requests).toHaveLength(0);
    expect(
      dev
        .events()
        .map((event) => `${event.regarding?.name}:${event.series?.count ?? 1}`)
        .sort(),
    ).toEqual(['after:1', 'before:2']);
  });

  it('keeps the context it was built with even when the switch comes before its first write', async () => {
    const kubeConfig = twoContexts({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    const recorder = recorderFor(kubeConfig);
    kubeConfig.setCurrentContext('prod');

    await recorder.publish(configMap(), syncFailed);

    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN']);
    expect(prod.requests).toHaveLength(0);
  });

  it("reads its own context's rotated token file, never the token the application read for another context", async () => {
    const devToken = join(dir, 'dev-token');
    const prodToken = join(dir, 'prod-token');
    await writeFile(devToken, 'DEV-TOKEN');
    await writeFile(prodToken, 'PROD-ADMIN-TOKEN');
    const kubeConfig = twoContexts(
      { authProvider: { name: 'tokenFile', config: { tokenFile: devToken } } },
      { authProvider: { name: 'tokenFile', config: { tokenFile: prodToken } } },
    );
    const recorder = recorderFor(kubeConfig);

    // The application switches to prod for its own requests; client-node keeps the token it read there.
    kubeConfig.setCurrentContext('prod');
    await kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'default' });
    await recorder.publish(configMap(), syncFailed);
    await kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'default' });

    // The kubelet rotates dev's projected token; only the wall clock that client-node reads moves on.
    await writeFile(devToken, 'DEV-TOKEN-2');
    dev.acceptToken('DEV-TOKEN-2');
    moveWallClock(61_000);
    await recorder.publish(configMap(), syncFailed);

    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN-2']);
    expect(authorizations(prod)).toEqual(['Bearer PROD-ADMIN-TOKEN', 'Bearer PROD-ADMIN-TOKEN']);
    expect(dev.events()[0].series?.count).toBe(2);
  });

  it('uses a token replaced in the kubeconfig loaded again with the same context', async () => {
    const kubeConfig = twoContexts({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap(), syncFailed);

    dev.acceptToken('DEV-TOKEN-2');
    kubeConfig.loadFromOptions({
      ...contextsOptions({ token: 'DEV-TOKEN-2' }, { token: 'PROD-ADMIN-TOKEN' }),
      currentContext: 'prod',
    });
    await recorder.publish(configMap(), syncFailed);

    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN-2']);
    expect(prod.requests).toHaveLength(0);
  });

  it("uses a token changed in place on the context's user at the next request", async () => {
    const kubeConfig = twoContexts({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap(), syncFailed);

    dev.acceptToken('DEV-TOKEN-2');
    // client-node's User is read-only in its typings; an application that edits its kubeconfig writes to it all the same.
    (kubeConfig.getUser('dev-user') as { token?: string }).token = 'DEV-TOKEN-2';
    await recorder.publish(configMap(), syncFailed);

    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN-2']);
  });

  it('sends nothing while its context is gone from the kubeconfig, and writes once it is back', async () => {
    const kubeConfig = twoContexts({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap(), syncFailed);

    const options = contextsOptions({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    kubeConfig.loadFromOptions({ ...options, contexts: options.contexts.slice(1), currentContext: 'prod' });
    const gone = await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);

    expect(gone).toBeInstanceOf(PublishCredentialError);
    expect(gone).toMatchObject({
      queued: true,
      message:
        'The kubeconfig no longer has the context `dev` the recorder was built with, so no request was sent; ' +
        'a recorder keeps its context for its whole life: build a new one to use another.',
    });
    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN']);
    expect(prod.requests).toHaveLength(0);

    kubeConfig.loadFromOptions(options);
    await recorder.flush();
    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN']);
    expect(dev.events()[0].series?.count).toBe(2);
  });

  it("sends nothing while its context names another server, with that server's credentials, and writes once it is back", async () => {
    const kubeConfig = twoContexts({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' });
    const recorder = recorderFor(kubeConfig);
    await recorder.publish(configMap(), syncFailed);

    // Requests still go to dev's server, which the recorder was built with: prod's token must not go with them.
    kubeConfig.loadFromOptions(contextsOptions({ token: 'PROD-ADMIN-TOKEN' }, {}, { server: prod.url }));
    const moved = await recorder.publish(configMap(), syncFailed).catch((error: unknown) => error);

    expect(moved).toBeInstanceOf(PublishCredentialError);
    expect(moved).toMatchObject({
      queued: true,
      message:
        "The kubeconfig's context `dev` now names another server than when the recorder was built, so no request " +
        'was sent; a recorder keeps its server for its whole life: build a new one to follow the context.',
    });
    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN']);
    expect(prod.requests).toHaveLength(0);

    kubeConfig.loadFromOptions(contextsOptions({ token: 'DEV-TOKEN' }, { token: 'PROD-ADMIN-TOKEN' }));
    await recorder.flush();
    expect(authorizations(dev)).toEqual(['Bearer DEV-TOKEN', 'Bearer DEV-TOKEN']);
    expect(dev.events()[0].series?.count).toBe(2);
  });
});
