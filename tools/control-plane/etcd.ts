// etcd on free loopback ports, its data in a temp directory.

import { type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { BIND_ATTEMPTS, POLL_MS } from './definitions.js';
import { BIND_FAILURE, exited, spawnLogged, startupError, stopProcess, tail } from './processes.js';

export async function startEtcd(
  binDir: string,
  dir: string,
  timeoutMs: number,
): Promise<{ url: string; process: ChildProcess }> {
  const logPath = join(dir, 'etcd.log');
  for (let attempt = 1; ; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(dir, 'etcd-data');
    await rm(dataDir, { recursive: true, force: true });
    const child = spawnLogged(
      join(binDir, 'etcd'),
      [
        '--name=default',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=default=${peer}`,
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      logPath,
      dir,
    );
    const deadline = Date.now() + timeoutMs;
    while (!exited(child) && Date.now() < deadline) {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
      if (response?.ok && ((await response.json().catch(() => ({}))) as { health?: string }).health === 'true') {
        return { url, process: child };
      }
      await sleep(POLL_MS);
    }
    await stopProcess(child);
    const log = tail(logPath);
    if (attempt < BIND_ATTEMPTS && BIND_FAILURE.test(log)) continue;
    throw startupError(
      'etcd',
      exited(child) ? `it exited with ${child.exitCode ?? child.signalCode}` : `not healthy within ${timeoutMs} ms`,
      logPath,
    );
  }
}
