// A standby whose Lease read gets no answer (a half-open connection: the
// server accepted the request and never answers) tries again: every Lease
// request is bounded. Against a raw node:http server on 127.0.0.1 that
// counts the requests it receives and answers none.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { boundedApiClient } from '../kube/bounded-api-client.js';
import { LeaderElector } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';

describe('a Lease read that never gets an answer', () => {
  let server: Server;
  const received: IncomingMessage[] = [];

  beforeAll(async () => {
    server = createServer((request) => received.push(request)); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('is aborted after the request timeout, and the standby tries again', async () => {
    const { port } = server.address() as AddressInfo;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(
      { name: 'hanging', server: `http://127.0.0.1:${port}`, skipTLSVerify: true },
      { name: 'user', token: 'not-a-real-token' },
    );
    const problems: string[] = [];
    const elector = new LeaderElector({
      lock: new LeaseLock(boundedApiClient(kubeConfig, CoordinationV1Api, 200), 'ops', 'lease'),
      identity: 'standby',
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_000,
      retryPeriodMs: 100,
      logger: { log: () => {}, debug: () => {}, error: () => {}, warn: (message) => problems.push(String(message)) },
      callbacks: { onStartedLeading: () => {}, onLostLeadership: () => {} },
    });
    const thirdRead = new Promise<void>((resolve) =>
      server.on('request', function third() {
        if (received.length < 3) return;
        server.off('request', third);
        resolve();
      }),
    );
    elector.start();
    await thirdRead;
    await elector.stop();

    expect(received.map((request) => `${request.method} ${request.url}`).slice(0, 3)).toEqual(
      Array(3).fill('GET /apis/coordination.k8s.io/v1/namespaces/ops/leases/lease'),
    );
    expect(elector.state).toBe('stopped');
    // Said once, not on every retry.
    expect(problems).toEqual([expect.stringMatching(/could not read lease ops\/lease: .*abort.*timeout/i)]);
  }, 30_000);
});
