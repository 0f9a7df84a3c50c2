import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Which CPUs the API server and the measured client run on (`taskset` lists). */
export interface CpuPinning {
  /** This process, hence the control plane it starts: every CPU it may use but the client's. */
  readonly server: string;
  /** The one CPU each measured side runs on, alone. */
  readonly client: string;
  /** Gives this process the CPUs it had before, for whatever the bench runs next. */
  readonly release: () => void;
}

/**
 * Keeps the measured client off the API server's CPUs, as in a cluster,
 * where an operator's pod never shares its cores with kube-apiserver: on a
 * small machine where both share every core, the client's CPU per write
 * also counts the caches and cycles the server took from it, and varied by
 * up to 40% from one round to the next. Pins this process (so the etcd and
 * kube-apiserver it starts inherit it) to every CPU it may use but the
 * last, and returns the last for the sides. `undefined`, and nothing
 * pinned, with fewer than two CPUs, outside Linux, without util-linux's
 * `taskset`, or with `WRITE_CPU_PIN=0`.
 */
export function pinCpus(): CpuPinning | undefined {
  if (process.env.WRITE_CPU_PIN === '0') return undefined;
  const allowed = allowedCpus();
  if (!allowed || allowed.cpus.length < 2) return undefined;
  const client = String(allowed.cpus.at(-1));
  const server = allowed.cpus.slice(0, -1).join(',');
  // -a: every thread this process has already started (libuv's, V8's), not only the main one.
  const pinTo = (list: string) =>
    spawnSync('taskset', ['-a', '-p', '-c', list, String(process.pid)], { stdio: 'ignore' });
  const pinned = pinTo(server);
  if (pinned.error || pinned.status !== 0) return undefined;
  return { server, client, release: () => void pinTo(allowed.list) };
}

/**
 * The CPUs this process may run on, as the kernel lists them: a container's
 * cpuset need not start at 0 nor be contiguous.
 */
function allowedCpus(): { list: string; cpus: number[] } | undefined {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)?.[1];
  if (!list) return undefined;
  const cpus = list.split(',').flatMap((range) => {
    const [first, last = first] = range.split('-').map(Number);
    return Array.from({ length: last - first + 1 }, (_, i) => first + i);
  });
  return { list, cpus };
}
