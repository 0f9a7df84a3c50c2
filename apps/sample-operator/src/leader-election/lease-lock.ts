import { type CoordinationV1Api, type V1Lease, type V1ObjectMeta, V1MicroTime } from '@kubernetes/client-node';
import { isNotFound } from '../kube/api-status-code.js';
import type { LeaderElectionRecord, ResourceLock, VersionedRecord } from './resource-lock.js';

/**
 * A {@link ResourceLock} on a `coordination.k8s.io/v1` Lease, as client-go's
 * `resourcelock.LeaseLock`: `get` reads it, `create` creates it, `update`
 * replaces it with the `resourceVersion` the caller read (so that the server
 * refuses it with `409` if someone wrote in between), keeping the Lease's
 * labels and annotations. Needs get, create and update on `leases` in its
 * namespace.
 */
export class LeaseLock implements ResourceLock {
  /** The last Lease read or written: its labels and annotations are kept on replace. */
  private lastMetadata: V1ObjectMeta | undefined;

  constructor(
    private readonly api: CoordinationV1Api,
    readonly namespace: string,
    readonly name: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(): Promise<VersionedRecord | undefined> {
    try {
      return this.seen(await this.api.readNamespacedLease({ namespace: this.namespace, name: this.name }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(record: LeaderElectionRecord): Promise<VersionedRecord> {
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: leaseSpec(record),
    };
    return this.seen(await this.api.createNamespacedLease({ namespace: this.namespace, body }));
  }

  async update(record: LeaderElectionRecord, resourceVersion: string): Promise<VersionedRecord> {
    const { labels, annotations } = this.lastMetadata ?? {};
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        resourceVersion,
        ...(labels ? { labels } : {}),
        ...(annotations ? { annotations } : {}),
      },
      spec: leaseSpec(record),
    };
    return this.seen(await this.api.replaceNamespacedLease({ namespace: this.namespace, name: this.name, body }));
  }

  private seen(lease: V1Lease): VersionedRecord {
    this.lastMetadata = lease.metadata;
    return { record: recordOf(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' };
  }
}

/** The Lease's spec for a record. Times are `V1MicroTime`: the server refuses a MicroTime with other than six fractional digits. */
export function leaseSpec(record: LeaderElectionRecord): NonNullable<V1Lease['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime !== undefined ? { acquireTime: new V1MicroTime(record.acquireTime) } : {}),
    ...(record.renewTime !== undefined ? { renewTime: new V1MicroTime(record.renewTime) } : {}),
    leaseTransitions: record.leaderTransitions,
  };
}

/** The record a Lease holds (client-go's `LeaseSpecToLeaderElectionRecord`). */
export function recordOf(lease: V1Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: timeOf(spec.acquireTime),
    renewTime: timeOf(spec.renewTime),
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

/** client-node hands MicroTimes back as a Date or as the server's text, depending on the path. */
function timeOf(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === 'string' && value) {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}
