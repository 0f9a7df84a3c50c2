import { get as httpGet } from 'node:http';
import { HealthServer } from './health-server.js';

describe('HealthServer', () => {
  let server: HealthServer;
  let live: string | undefined;
  let ready: string | undefined;

  beforeEach(() => {
    live = undefined;
    ready = undefined;
    server = new HealthServer({ live: () => live, ready: () => ready, status: () => ({ leader: 'pod-a' }) });
  });

  afterEach(() => server.close());

  async function get(port: number, path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.text() };
  }

  test('/healthz, /readyz: 200 ok, or 500 with the problem; /status: JSON; anything else 404', async () => {
    const port = await server.listen(0, '127.0.0.1');
    expect(await get(port, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get(port, '/readyz')).toEqual({ status: 200, body: 'ok\n' });
    live = 'lease not renewed for 40000 ms';
    ready = 'stopping';
    expect(await get(port, '/healthz')).toEqual({ status: 500, body: 'lease not renewed for 40000 ms\n' });
    expect(await get(port, '/readyz')).toEqual({ status: 500, body: 'stopping\n' });
    const status = await get(port, '/status');
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toEqual({ leader: 'pod-a' });
    expect((await get(port, '/nope')).status).toBe(404);
  });

  test('listens on the address it is given, and on every address by default', async () => {
    await server.listen(0, '127.0.0.1');
    expect(server.address()).toMatchObject({ address: '127.0.0.1' });
    await server.close();

    const everywhere = new HealthServer({ live: () => undefined, ready: () => undefined, status: () => ({}) });
    try {
      await everywhere.listen(0);
      expect(['::', '0.0.0.0']).toContain(everywhere.address()?.address);
    } finally {
      await everywhere.close();
    }
  });

  test('/status answers requests to an IP address or localhost, and 421 to any other Host', async () => {
    server = new HealthServer({ live: () => undefined, ready: () => undefined, status: () => ({ leader: 'pod-a' }) });
    const port = await server.listen(0, '127.0.0.1');
    const statusWithHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpGet({ host: '127.0.0.1', port, path: '/status', headers: { host } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
      });

    expect(await statusWithHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await statusWithHost(`localhost:${port}`)).toBe(200);
    expect(await statusWithHost(`[::1]:${port}`)).toBe(200);
    expect(await statusWithHost('10.244.0.7')).toBe(200);
    expect(await statusWithHost(`attacker.example:${port}`)).toBe(421);
    expect(await statusWithHost('configmirror.internal')).toBe(421);
  });
});
