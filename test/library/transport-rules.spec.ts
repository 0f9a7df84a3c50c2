// The kubeconfig decides how the API server is reached, as in client-go: TLS is verified whatever
// NODE_TLS_REJECT_UNAUTHORIZED says, a CA with insecure-skip-tls-verify is refused, plain HTTP is refused
// through a proxy as without one, and HTTPS_PROXY / NO_PROXY are honoured as Go honours them.
import 'reflect-metadata';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import { inspect } from 'node:util';
import { jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule } from 'nestjs-kube-events';
import { FakeApiServer, TLS_CERTIFICATE } from '../support/fake-api-server/index.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

const ENVIRONMENT = ['NODE_TLS_REJECT_UNAUTHORIZED', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const;

/** An HTTP CONNECT proxy on loopback that sends every tunnel to 127.0.0.1, whatever host it names, and records the hosts. */
async function startProxy(): Promise<{ server: Server; url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const server = createHttpServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request, client) => {
    tunnels.push(request.url ?? '');
    const port = Number(new URL(`http://${request.url}`).port);
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels };
}

function kubeConfigFor(cluster: Record<string, unknown>): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { name: 'cluster', server: '', skipTLSVerify: false, ...cluster },
    {
      name: 'user',
      token: 'fake-token',
    },
  );
  return kubeConfig;
}

describe('how the API server is reached', () => {
  let server: FakeApiServer;
  let app: TestingModule | undefined;
  let logged: string[];
  const saved = Object.fromEntries(ENVIRONMENT.map((name) => [name, process.env[name]]));

  const start = async (kubeConfig: KubeConfig) => {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig,
          permissionCheck: 'off',
          timeout: 1_000,
        }),
      ],
    }).compile();
    await app.init();
    return app.get(EventRecorder);
  };
  const failureOf = (recorder: EventRecorder) =>
    recorder.publish(configMap(), syncFailed).then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  beforeEach(async () => {
    server = await FakeApiServer.start({ tls: true, token: 'fake-token' });
    logged = captureLogLines(['warn']);
    for (const name of ENVIRONMENT) delete process.env[name];
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    for (const name of ENVIRONMENT) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    jest.restoreAllMocks();
  });

  it('verifies the server as the kubeconfig says, with NODE_TLS_REJECT_UNAUTHORIZED=0 set, and says the variable is ignored', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    // A CA that did not sign the server's certificate: a man in the middle, as far as the kubeconfig knows.
    const otherCa = Buffer.from(rootCertificates[0]).toString('base64');
    const recorder = await start(kubeConfigFor({ server: server.url, caData: otherCa }));

    const error = await failureOf(recorder);

    expect(error?.message).toMatch(/could not be reached.*(SELF_SIGNED|UNABLE_TO_VERIFY|CERT)/i);
    expect(server.requests).toHaveLength(0);
    expect(logged.filter((line) => line.includes('NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and ignored'))).toHaveLength(
      1,
    );
  });

  it('refuses a CA together with insecure-skip-tls-verify at start-up', async () => {
    const kubeConfig = kubeConfigFor({
      server: server.url,
      caData: TLS_CERTIFICATE.toString('base64'),
      skipTLSVerify: true,
    });

    await expect(start(kubeConfig)).rejects.toThrow(
      "The kubeconfig's cluster gives a CA (certificate-authority or certificate-authority-data) together with insecure-skip-tls-verify: true",
    );
  });

  it('refuses plain HTTP through a proxy-url as without one, and sends the proxy nothing', async () => {
    const proxy = await startProxy();
    try {
      const direct = await failureOf(await start(kubeConfigFor({ server: 'http://127.0.0.1:1' })));
      await app!.close();
      const proxied = await failureOf(
        await start(kubeConfigFor({ server: 'http://127.0.0.1:1', proxyUrl: proxy.url })),
      );

      for (const refused of [direct, proxied])
        expect(refused?.message).toContain('HTTP protocol is not allowed when skipTLSVerify is not set or false');
      expect(proxied?.constructor).toBe(direct?.constructor);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      proxy.server.close();
    }
  });

  it.each([
    ['HTTPS_PROXY', (proxy: string) => ((process.env.HTTPS_PROXY = proxy), {})],
    ["the kubeconfig's proxy-url", (proxy: string) => ({ proxyUrl: proxy })],
  ])(
    'keeps the password of a proxy URL that does not parse (%s) out of the rejection and all it carries',
    async (_, set) => {
      // The port is out of range: no URL parser takes it, and Node's error keeps the URL it was given as `input`.
      const proxy = 'http://bob:proxy-s3cret-passw0rd@proxy.example:99999';
      const cluster = {
        server: 'https://api.cluster.test:6443',
        caData: TLS_CERTIFICATE.toString('base64'),
        ...set(proxy),
      };

      const error = await failureOf(await start(kubeConfigFor(cluster)));

      expect(error).toBeInstanceOf(Error);
      expect(inspect(error, { depth: Infinity, showHidden: true })).not.toContain('proxy-s3cret-passw0rd');
      expect(logged.join('\n')).not.toContain('proxy-s3cret-passw0rd');
    },
  );

  it('goes through HTTPS_PROXY, and not for a server NO_PROXY names, as Go does', async () => {
    const proxy = await startProxy();
    const { port } = new URL(server.url);
    // A name only the proxy can resolve; the certificate is for localhost.
    const cluster = {
      server: `https://api.cluster.test:${port}`,
      caData: TLS_CERTIFICATE.toString('base64'),
      tlsServerName: 'localhost',
    };
    try {
      process.env.HTTPS_PROXY = proxy.url;
      expect(await failureOf(await start(kubeConfigFor(cluster)))).toBeUndefined();
      expect(proxy.tunnels).toEqual([`api.cluster.test:${port}`]);
      expect(server.events()).toHaveLength(1);
      await app!.close();

      process.env.NO_PROXY = 'example.org, .cluster.test';
      const direct = await failureOf(await start(kubeConfigFor(cluster)));
      expect(direct?.message).toMatch(/could not be reached.*ENOTFOUND|EAI_AGAIN/);
      expect(proxy.tunnels).toHaveLength(1);
    } finally {
      proxy.server.close();
    }
  });
});
