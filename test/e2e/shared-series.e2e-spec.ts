// Replicas of one controller in separate processes, `resumeSeries` on, publishing the same failure about the same
// object: during a failover (one stops, another continues) and a shard move (both publish while the owner
// changes), the real API server holds one Event whose count is every publish that resolved, and none is rejected.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ProcessLog, exitOf } from './support/child-process.js';
import { Scratch, scratchPerTest } from './support/library-fixtures.js';

const PUBLISHER = fileURLToPath(new URL('./support/replica-publisher.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Replica {
  readonly child: ChildProcess;
  readonly log: ProcessLog;
}

describe('replicas in separate processes sharing one Event', () => {
  let scratch: Scratch;
  scratchPerTest('shared-series', (created) => (scratch = created));
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  const replica = (object: KubernetesObject, instance: string, before: number, after: number): Replica => {
    const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', PUBLISHER], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        REPLICA_OBJECT: JSON.stringify(object),
        REPLICA_INSTANCE: instance,
        REPLICA_BEFORE: String(before),
        REPLICA_AFTER: String(after),
      },
    });
    started.push(child);
    return { child, log: new ProcessLog(child) };
  };
  const go = (replica: Replica) => replica.child.stdin!.write('go\n');
  const settled = async ({ child, log }: Replica): Promise<{ resolved: number; rejected: string[] }> => {
    const line = log.lines[await log.waitFor(/^settled /, 60_000)];
    expect(await exitOf(child, 10_000)).toBe(0);
    return JSON.parse(line.slice('settled '.length)) as { resolved: number; rejected: string[] };
  };
  const theCount = async (object: KubernetesObject): Promise<number | undefined> => {
    const events = await scratch.eventsAbout(object);
    expect(events).toHaveLength(1);
    return events[0].series?.count ?? 1;
  };

  it('counts every publish across a failover: the owner stops, another replica continues its Event', async () => {
    const object = await scratch.configMap('failover');
    const owner = replica(object, 'widgets-0', 15, 0);
    await owner.log.waitFor('ready', 60_000);
    go(owner);
    const before = await settled(owner);
    const successor = replica(object, 'widgets-1', 0, 15);
    await successor.log.waitFor('ready', 60_000);
    go(successor);
    const after = await settled(successor);

    expect([...before.rejected, ...after.rejected]).toEqual([]);
    expect(await theCount(object)).toBe(before.resolved + after.resolved);
    expect(before.resolved + after.resolved).toBe(30);
  }, 120_000);

  it('counts every publish while the object moves between shards that both still publish about it', async () => {
    const object = await scratch.configMap('shard-move');
    const owner = replica(object, 'widgets-shard-0', 5, 40);
    await owner.log.waitFor('ready', 60_000);
    const next = replica(object, 'widgets-shard-1', 0, 40);
    await next.log.waitFor('ready', 60_000);
    // Both at once: the old owner has not let go yet, the new one has begun.
    go(owner);
    go(next);
    const [old, fresh] = await Promise.all([settled(owner), settled(next)]);

    expect([...old.rejected, ...fresh.rejected]).toEqual([]);
    expect(old.resolved + fresh.resolved).toBe(85);
    expect(await theCount(object)).toBe(85);
  }, 120_000);
});
