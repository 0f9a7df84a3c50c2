// Drives one client process (main.go or library-client.ts) through their
// shared line protocol: ready → go → returned → exit, and collects what it
// reports about itself.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Milliseconds failed reconciles spent in `@PublishesFailures`, at percentiles. */
export interface Holds {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface Returned {
  /** Time the workload's calls took, as the client measured it. */
  wallMs: number;
  /** Publishes that rejected, by error name (the library; client-go's Eventf cannot). */
  rejected: Record<string, number>;
  /** Occurrences published by then, as [milliseconds since "go", count], every 50 ms. */
  issued: [number, number][];
  /** With --decorator: each failed reconcile but an object's first, which waits for its own create (`firstHolds`). */
  holds?: Holds;
  firstHolds?: Holds;
}

export interface Usage {
  /** User + system CPU of the whole process life, in milliseconds. */
  cpuMs: number;
  /** Peak resident set, in megabytes. */
  maxRssMb: number;
  /** The V8 young generation's peak committed size, in megabytes: the library's side only. */
  youngMb?: number;
  /** User + system CPU from "go" to "exit": the work alone, no start-up. */
  workCpuMs: number;
}

export class ClientProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly messages: Record<string, unknown>[] = [];
  private waiting?: () => void;
  private stderr = '';
  private closed = false;

  constructor(command: string, args: string[], cwd: string) {
    this.child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      try {
        this.messages.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        return; // not ours
      }
      this.waiting?.();
    });
    // Kept short: client-go logs every rejected write, and only the tail helps when something breaks.
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4_000)));
    this.child.once('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  private async next(event: string): Promise<Record<string, unknown>> {
    for (;;) {
      const index = this.messages.findIndex((message) => message.event === event);
      if (index >= 0) return this.messages.splice(index, 1)[0];
      if (this.closed) throw new Error(`client exited before "${event}" (${this.child.exitCode}):\n${this.stderr}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  ready(): Promise<unknown> {
    return this.next('ready');
  }

  async run(): Promise<Returned> {
    this.child.stdin.write('go\n');
    const message = await this.next('returned');
    return {
      wallMs: Number(message.wallMs),
      rejected: (message.rejected ?? {}) as Record<string, number>,
      issued: (message.issued ?? []) as [number, number][],
      holds: message.holds as Holds | undefined,
      firstHolds: message.firstHolds as Holds | undefined,
    };
  }

  async exit(): Promise<Usage> {
    this.child.stdin.write('exit\n');
    const message = await this.next('exit');
    await new Promise<void>((resolve) => (this.closed ? resolve() : this.child.once('close', () => resolve())));
    return {
      cpuMs: (Number(message.userUs) + Number(message.sysUs)) / 1000,
      maxRssMb: Number(message.maxRssKb) / 1024,
      workCpuMs: Number(message.workUs) / 1000,
      youngMb: message.youngKb === undefined ? undefined : Number(message.youngKb) / 1024,
    };
  }

  kill(): void {
    if (!this.closed) this.child.kill('SIGKILL');
  }
}
