/**
 * What leader election reads and writes: client-go's `LeaderElectionRecord`,
 * held in a `coordination.k8s.io/v1` Lease (see {@link LeaseLock}), behind
 * an interface so that the election's timings can be tested against an
 * in-memory store (`testing/fake-lease-lock.ts`).
 */

/** The election's state as the Lease holds it (its `spec`). Times are ms since the epoch. */
export interface LeaderElectionRecord {
  /** Who holds the Lease; `''` when nobody does (after a release). */
  holderIdentity: string;
  /** How long the others wait, after they last saw the record change, before they may take it. */
  leaseDurationSeconds: number;
  /** When the current holder acquired it. */
  acquireTime: number | undefined;
  /** When the current holder last renewed it. */
  renewTime: number | undefined;
  /** How many times it changed hands (`spec.leaseTransitions`). */
  leaderTransitions: number;
}

/** A record as read from (or written to) the server, with the `resourceVersion` that a replace must name. */
export interface VersionedRecord {
  record: LeaderElectionRecord;
  resourceVersion: string;
}

/**
 * The lock object. `update` is a replace that names the `resourceVersion`
 * read before it: the server answers `409 Conflict` when someone else wrote
 * in between, which is how two candidates racing for one Lease are told apart.
 * Errors are `@kubernetes/client-node`'s `ApiException` (or alike, with a
 * numeric `code`): `create` of an existing lock and a stale `update` reject
 * with code 409.
 */
export interface ResourceLock {
  /** `namespace/name`, for logs. */
  describe(): string;
  /** The current record, or `undefined` when the lock object does not exist. */
  get(): Promise<VersionedRecord | undefined>;
  create(record: LeaderElectionRecord): Promise<VersionedRecord>;
  update(record: LeaderElectionRecord, resourceVersion: string): Promise<VersionedRecord>;
}

/** The record as text, to tell whether it changed since it was last observed (client-go compares the raw record). */
export function recordKey(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaderTransitions,
  ]);
}
