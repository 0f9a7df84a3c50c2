// A soak replica as the soak drives it: spawned and loaded ahead of time (so that starting it is the recorder's own
// start-up, not Node's), started, fed objects, stopped or killed; every line it prints goes to its ledger.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ProcessLedger } from './soak-ledger.js';

const REPLICA = fileURLToPath(new URL('./soak-replica.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ReplicaSettings {
  readonly kubeconfigPath: string;
  readonly timeoutMs: number;
  readonly publishEveryMs: number;
}

export class ReplicaProcess {
  readonly ledger: ProcessLedger;
  private readonly child: ChildProcess;
  private readonly seen = new Set<string>();
  private readonly waiters: { line: string; resolve: () => void }[] = [];
  private readonly exited: Promise<void>;

  private constructor(settings: ReplicaSettings) {
    this.ledger = new ProcessLedger('standby');
    this.child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', REPLICA], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {
        ...process.env,
        SOAK_KUBECONFIG: settings.kubeconfigPath,
        SOAK_TIMEOUT_MS: String(settings.timeoutMs),
        SOAK_PUBLISH_EVERY_MS: String(settings.publishEveryMs),
      },
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.ledger.read(line);
      if (line === 'loaded' || line === 'ready' || line === 'done') {
        this.seen.add(line);
        for (const waiter of this.waiters.filter((candidate) => candidate.line === line)) waiter.resolve();
      }
    });
  }

  /** Spawns a replica and waits until it has loaded (it has not started yet). */
  static async load(settings: ReplicaSettings): Promise<ReplicaProcess> {
    const replica = new ReplicaProcess(settings);
    await replica.until('loaded', 60_000);
    return replica;
  }

  /** Starts its application as `instance` (its ledger named `name`) with `objects`; resolves once it is publishing. */
  async start(name: string, instance: string, objects: readonly [number, KubernetesObject][]): Promise<void> {
    this.ledger.name = name;
    this.send({ objects });
    this.send({ start: instance });
    await this.until('ready', 60_000);
  }

  add(objects: readonly [number, KubernetesObject][]): void {
    this.send({ objects });
  }

  /** Stops publishing, lets it drain and close, and waits until it has exited. */
  async stop(): Promise<void> {
    this.send({ stop: true });
    await this.until('done', 120_000);
    await this.exited;
  }

  /** SIGKILL, as a node or a container runtime kills a pod. */
  async kill(): Promise<void> {
    this.ledger.killed = true;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  private send(command: object): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  private until(line: string, timeoutMs: number): Promise<void> {
    if (this.seen.has(line)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.ledger.name} did not print ${line} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        line,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}
