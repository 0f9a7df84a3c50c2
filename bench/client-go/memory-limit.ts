// Runs each client under a memory limit, as in a pod. Node sizes V8's heap
// from its cgroup's limit (libuv's constrained memory): under the sample
// operator's 256 MiB, V8's young generation stays at 2 MB, where on a large
// machine without a limit it is sized at 64 MB at start-up and a long run
// fills it. Go's runtime reads no limit. Without a writable cgroup (not root,
// or cgroup v2 without the memory controller delegated), clients run
// without one, and the benchmark says so.
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MemoryLimit {
  /** `256 MiB (cgroup v1)`. */
  readonly description: string;
  /** The command that runs `command` inside the limit. */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  /** How often the processes hit the limit (and were squeezed): RSS measured then is not their own. */
  timesReached(): Promise<number>;
  /** Removes the cgroup; its processes must have exited. */
  remove(): Promise<void>;
}

const UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };

/** `256Mi` → bytes, as a Kubernetes memory quantity; undefined for `none`. */
export function parseMemoryLimit(quantity: string): number | undefined {
  if (quantity === 'none') return undefined;
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  if (!match)
    throw new Error(`BENCH_MEMORY_LIMIT must be a quantity such as 256Mi or 1Gi, or none; got "${quantity}".`);
  return Number(match[1]) * UNITS[match[2]];
}

/** A cgroup of its own under this process's cgroup, limited to `bytes`; or why there cannot be one. */
export async function createMemoryLimit(bytes: number): Promise<MemoryLimit | { unavailable: string }> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8')).trim().split('\n');
  const v1 = lines.map((line) => line.split(':')).find(([, controllers]) => controllers.split(',').includes('memory'));
  const v2 = lines.map((line) => line.split(':')).find(([id, controllers]) => id === '0' && controllers === '');
  const [dir, version, limitFile] = v1
    ? [join('/sys/fs/cgroup/memory', v1[2], `bench-clientgo-${process.pid}`), 'v1', 'memory.limit_in_bytes']
    : v2
      ? [join('/sys/fs/cgroup', v2[2], `bench-clientgo-${process.pid}`), 'v2', 'memory.max']
      : [undefined, undefined, undefined];
  if (!dir) return { unavailable: 'no memory cgroup in /proc/self/cgroup' };
  try {
    await mkdir(dir);
  } catch (error) {
    return { unavailable: `cannot create ${dir} (${(error as NodeJS.ErrnoException).code})` };
  }
  try {
    await writeFile(join(dir, limitFile), String(bytes));
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    return {
      unavailable: `cannot set ${limitFile} in ${dir} (${(error as NodeJS.ErrnoException).code}): the memory controller is not delegated`,
    };
  }
  return {
    description: `${bytes / UNITS.Mi} MiB (cgroup ${version})`,
    wrap: (command, args) => ({
      command: 'sh',
      // The shell joins the cgroup, then becomes the client: its children are in the limit from their first byte.
      args: ['-c', 'echo $$ > "$0" && exec "$@"', join(dir, 'cgroup.procs'), command, ...args],
    }),
    timesReached: async () => {
      if (version === 'v1') return Number(await readFile(join(dir, 'memory.failcnt'), 'utf8'));
      const events = await readFile(join(dir, 'memory.events'), 'utf8');
      return Number(/^max (\d+)$/m.exec(events)?.[1] ?? 0);
    },
    remove: () => rmdir(dir),
  };
}
