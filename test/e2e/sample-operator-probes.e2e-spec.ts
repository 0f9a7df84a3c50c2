// The built sample operator's probes (apps/sample-operator/dist/main.js, as the Deployment runs it), through
// @nestjs/terminus on Nest's HTTP adapter, against the shared control plane: two replicas with leader election,
// each serving /healthz, /readyz and /status on HEALTH_PROBE_PORT. The leader and its standby are both live and
// ready; /status shows the election next to the library's KubeEventsHealthIndicator, in words and counts, and
// answers only requests addressed to an IP address. A bad variable stops the start, naming it.
import { request } from 'node:http';
import { exitOf, ProcessLog } from './support/child-process.js';
import { operatorProcessSuite } from './support/operator-fixtures.js';

const PORT_LINE = /health probes on 127\.0\.0\.1, port (\d+) /;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, unknown>;
}

/** GET `path` on the probes' port, with `host` as the Host header. */
function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<Answer & { text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          text,
          body: JSON.parse(text) as Record<string, unknown>,
          headers: response.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sample operator process: the probes through terminus', () => {
  const suite = operatorProcessSuite('mirror-probes', 'unused');

  function replica(name: string) {
    const child = suite.start({
      POD_NAME: name,
      POD_NAMESPACE: suite.namespace,
      LEADER_ELECT: 'true',
      LEADER_ELECT_LEASE_DURATION_MS: '3000',
      LEADER_ELECT_RENEW_DEADLINE_MS: '2000',
      LEADER_ELECT_RETRY_PERIOD_MS: '500',
      HEALTH_PROBE_PORT: '0',
      HEALTH_PROBE_BIND_ADDRESS: '127.0.0.1',
    });
    return { child, log: new ProcessLog(child) };
  }

  async function portOf(log: ProcessLog): Promise<number> {
    const line = log.lines[await log.waitFor(PORT_LINE)];
    return Number(PORT_LINE.exec(line)![1]);
  }

  test('leader and standby are live and ready; /status shows the election and the Events in words and counts', async () => {
    const leader = replica('probes-a');
    await leader.log.waitFor('probes-a leads (lease');
    // Leading starts the controller; it reports synced once its informers have listed.
    await leader.log.waitFor('ConfigMirror controller ready');
    const standby = replica('probes-b');
    await standby.log.waitFor('stands by');
    const [leaderPort, standbyPort] = [await portOf(leader.log), await portOf(standby.log)];

    for (const [port, state] of [
      [leaderPort, 'leading'],
      [standbyPort, 'candidate'],
    ] as const) {
      for (const path of ['/healthz', '/readyz']) {
        const answer = await get(port, path);
        expect({ path, status: answer.status, body: answer.body }).toEqual({
          path,
          status: 200,
          body: {
            status: 'ok',
            info: { leaderElection: { status: 'up', state } },
            error: {},
            details: { leaderElection: { status: 'up', state } },
          },
        });
      }
    }

    const status = await get(leaderPort, '/status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      instance: 'probes-a',
      leaderElection: { enabled: true, leader: 'probes-a', isLeader: true, state: 'leading' },
      controller: { running: true, synced: true },
      events: expect.objectContaining({ status: 'up', writable: true, server: 'reachable', credentials: 'working' }),
    });
    expect((await get(standbyPort, '/status')).body).toMatchObject({
      leaderElection: { leader: 'probes-a', isLeader: false, state: 'candidate' },
      controller: { running: false },
    });
    // No namespace, no Lease name, no address, no framework in what anyone on the port reads.
    for (const port of [leaderPort, standbyPort])
      for (const path of ['/healthz', '/readyz', '/status']) {
        const { text, headers } = await get(port, path);
        expect({ path, text }).toEqual({ path, text: expect.not.stringContaining(suite.namespace) });
        expect({ path, poweredBy: headers['x-powered-by'] }).toEqual({ path, poweredBy: undefined });
        expect({ path, text }).toEqual({ path, text: expect.not.stringContaining('configmirror-controller') });
      }

    expect((await get(leaderPort, '/status', 'configmirror.example:8081')).status).toBe(421);
    expect((await get(leaderPort, '/status', `localhost:${leaderPort}`)).status).toBe(200);

    for (const { child } of [standby, leader]) {
      child.kill('SIGTERM');
      expect(await exitOf(child, 15_000)).toBe(0);
    }
  });

  test('a bad variable stops the start with an error that names it, and exit 1', async () => {
    const child = suite.start({ WORKERS: '0' });
    const log = new ProcessLog(child);
    expect(await exitOf(child, 30_000)).toBe(1);
    expect(log.text()).toContain('Config validation error: WORKERS: must be an integer >= 1, got "0"');
  });
});
