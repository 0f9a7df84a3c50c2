import type { LeaderElectionRecord, ResourceLock, VersionedRecord } from '../resource-lock.js';

/** An error as `@kubernetes/client-node` throws it: `code` is the HTTP status. */
export function apiError(code: number, message = `HTTP ${code}`): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/**
 * An in-memory Lease for unit tests of the election, with the server's
 * optimistic concurrency: `create` of an existing Lease and an `update` that
 * names another `resourceVersion` reject with 409. Every call answers on a
 * later microtask, as a real request would. Several electors may share one.
 */
export class FakeLeaseLock implements ResourceLock {
  /** What the server holds; `undefined` when the Lease does not exist. */
  stored: VersionedRecord | undefined;
  /** Every call, in order: `get`, `create`, `update <resourceVersion>`. */
  readonly calls: string[] = [];
  /** When set, every call rejects with it (an unreachable or failing API server). */
  failWith: Error | undefined;
  /** When true, calls never answer (a request that hangs). */
  hang = false;
  private version = 0;

  constructor(readonly name = 'test/lease') {}

  describe(): string {
    return this.name;
  }

  /** Someone else writes the Lease (another holder, `kubectl`): a new resourceVersion. */
  write(record: LeaderElectionRecord): VersionedRecord {
    this.stored = { record: { ...record }, resourceVersion: String(++this.version) };
    return this.copy()!;
  }

  /** Someone deletes the Lease. */
  delete(): void {
    this.stored = undefined;
  }

  get record(): LeaderElectionRecord | undefined {
    return this.stored ? { ...this.stored.record } : undefined;
  }

  async get(): Promise<VersionedRecord | undefined> {
    this.calls.push('get');
    await this.answer();
    return this.copy();
  }

  async create(record: LeaderElectionRecord): Promise<VersionedRecord> {
    this.calls.push('create');
    await this.answer();
    if (this.stored) throw apiError(409, 'leases.coordination.k8s.io already exists');
    return this.write(record);
  }

  async update(record: LeaderElectionRecord, resourceVersion: string): Promise<VersionedRecord> {
    this.calls.push(`update ${resourceVersion}`);
    await this.answer();
    if (!this.stored) throw apiError(404, 'leases.coordination.k8s.io not found');
    if (this.stored.resourceVersion !== resourceVersion) {
      throw apiError(409, 'Operation cannot be fulfilled on leases.coordination.k8s.io: the object has been modified');
    }
    return this.write(record);
  }

  private async answer(): Promise<void> {
    await Promise.resolve();
    if (this.hang) await new Promise<never>(() => undefined);
    if (this.failWith) throw this.failWith;
  }

  private copy(): VersionedRecord | undefined {
    return this.stored
      ? { record: { ...this.stored.record }, resourceVersion: this.stored.resourceVersion }
      : undefined;
  }
}
