import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Which CPUs the API server and the measured client run on (`taskset` lists). */
export interface CpuPinning {
  /** This process, hence the control plane it starts: every CPU but the client's. */
  readonly server: string;
  /** The one CPU each measured side runs on, alone. */
  readonly client: string;
  /** Gives this process every CPU again, for whatever the bench runs next. */
  readonly release: () => void;
}

/**
 * Keeps the measured client off the API server's CPUs, as in a cluster,
 * where an operator's pod never shares its cores with kube-apiserver: on a
 * small machine where both share every core, the client's CPU per write
 * also counts the caches and cycles the server took from it, and varied by
 * up to 40% from one round to the next. Pins this process (so the etcd and
 * kube-apiserver it starts inherit it) to every CPU but the last, and
 * returns the last for the sides. `undefined`, and nothing pinned, on one
 * CPU, without util-linux's `taskset`, or with `WRITE_CPU_PIN=0`.
 */
export function pinCpus(): CpuPinning | undefined {
  const cpus = availableParallelism();
  if (process.env.WRITE_CPU_PIN === '0' || cpus < 2) return undefined;
  const server = cpus === 2 ? '0' : `0-${cpus - 2}`;
  // -a: every thread this process has already started (libuv's, V8's), not only the main one.
  const pinTo = (list: string) =>
    spawnSync('taskset', ['-a', '-p', '-c', list, String(process.pid)], { stdio: 'ignore' });
  const pinned = pinTo(server);
  if (pinned.error || pinned.status !== 0) return undefined;
  return { server, client: String(cpus - 1), release: () => void pinTo(`0-${cpus - 1}`) };
}
